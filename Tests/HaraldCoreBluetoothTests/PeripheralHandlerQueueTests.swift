import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import Testing

/// Requests from centrals that wait for the app's handlers are bounded on the CoreBluetooth
/// peripheral backend: centrals decide how many they send.
@Suite("CoreBluetooth peripheral backend: requests waiting for handlers", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralHandlerQueueTests {
    static let service = BluetoothUUID(0xFFF0)
    static let slow = BluetoothUUID(0xFFF1)

    /// Lets the read handler go on once opened.
    actor Gate {
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            if isOpen { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    @Test func pastTheLimitARequestIsAnsweredInsufficientResourcesAndTheQueuedOnesAreStillServed() async throws {
        let gate = Gate()
        let definition = PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Slow")) {
            ServiceDefinition(
                uuid: Self.service,
                characteristics: [
                    CharacteristicDefinition(
                        uuid: Self.slow, properties: [.read],
                        onRead: { _ in
                            await gate.wait()
                            return [0x2A]
                        })
                ])
        }
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(definition)
        let phone = FakeRemoteCentral()
        let limit = CoreBluetoothPeripheralBackend<FakePeripheralManager>.handlerQueueLimit
        #expect(limit == 1024)
        let queued = (0..<limit).compactMap { _ in manager.sendRead(Self.slow, by: phone) }
        #expect(queued.count == limit)
        // The backend takes requests in order on its queue: this one comes after the limit's worth.
        let refused = try #require(manager.sendRead(Self.slow, by: phone))
        while refused.result == nil { await Task.yield() }
        #expect(refused.result == Int(ATTErrorCode.insufficientResources.rawValue))
        #expect(queued.allSatisfy { $0.result == nil })

        await gate.open()
        while queued.contains(where: { $0.result == nil }) { await Task.yield() }
        #expect(queued.allSatisfy { $0.result == 0 && $0.value == Data([0x2A]) })
        // Room again: the next read is served.
        let next = await manager.read(Self.slow, by: phone)
        #expect(next.result == 0 && next.value == [0x2A])
        await serving.stop()
    }
}
