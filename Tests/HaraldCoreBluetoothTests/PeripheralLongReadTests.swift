import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import Testing

/// CoreBluetooth asks for a value once per ATT request of a long read (the Read Request, then
/// each Read Blob with its offset); the backend runs the read handler once, at offset 0, and
/// answers that central's Read Blobs from what it returned.
@Suite("CoreBluetooth peripheral: a long read gets one version of a changing value", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralLongReadTests {
    static let service = BluetoothUUID(0xFFF0)
    static let changing = BluetoothUUID(0xFFF1)

    /// Answers each read with 60 bytes, every byte the number of that handler call (1, 2, …).
    static func definition(calls: Locked<Int>) -> PeripheralDefinition {
        PeripheralDefinition(
            advertisement: PeripheralAdvertisement(name: "Long", services: [service]),
            services: [
                ServiceDefinition(
                    uuid: service,
                    characteristics: [
                        CharacteristicDefinition(
                            uuid: changing, properties: [.read, .write],
                            onRead: { _ throws(ATTErrorCode) in
                                let call = calls.withLock { count in
                                    count += 1
                                    return count
                                }
                                return [UInt8](repeating: UInt8(truncatingIfNeeded: call), count: 60)
                            })
                    ])
            ])
    }

    func served() async throws -> (FakePeripheralManager, any ServingBackend, Locked<Int>) {
        let calls = Locked(0)
        let (manager, backend) = FakePeripheralManager.make()
        return (manager, try await backend.serve(Self.definition(calls: calls)), calls)
    }

    /// A central with ATT_MTU 23 (a notification holds 20 bytes, a Read Response 22).
    func central() -> FakeRemoteCentral { FakeRemoteCentral(maximumUpdateValueLength: 20) }

    /// The part of the value a Read Response or Read Blob Response from `offset` carries: the
    /// first 22 bytes of what the backend answered.
    func part(_ manager: FakePeripheralManager, at offset: Int, by central: FakeRemoteCentral) async -> [UInt8]? {
        let answer = await manager.read(Self.changing, offset: offset, by: central)
        guard answer.result == 0 else { return nil }
        return answer.value.map { Array($0.prefix(22)) }
    }

    @Test func aLongReadOfAValueThatChangesOnEachReadGetsOneVersion() async throws {
        let (manager, serving, calls) = try await served()
        let phone = central()
        var value: [UInt8] = []
        for offset in [0, 22, 44] { value += await part(manager, at: offset, by: phone) ?? [] }
        #expect(value == [UInt8](repeating: 1, count: 60))
        #expect(calls.withLock { $0 } == 1)
        await serving.stop()
    }

    @Test func aLongReadStartingAgainAtOffsetZeroGetsTheNewVersion() async throws {
        let (manager, serving, _) = try await served()
        let phone = central()
        _ = await part(manager, at: 0, by: phone)
        #expect(await part(manager, at: 0, by: phone) == [UInt8](repeating: 2, count: 22))
        #expect(await part(manager, at: 22, by: phone) == [UInt8](repeating: 2, count: 22))
        await serving.stop()
    }

    @Test func aValueWrittenBetweenThePartsOfALongReadIsReadFromThere() async throws {
        let (manager, serving, _) = try await served()
        let phone = central()
        _ = await part(manager, at: 0, by: phone)
        #expect(await manager.write([(Self.changing, 0, [9])], by: central()) == 0)
        #expect(await part(manager, at: 22, by: phone) == [UInt8](repeating: 2, count: 22))
        await serving.stop()
    }

    @Test func aValueSetBetweenThePartsOfALongReadIsReadFromThere() async throws {
        let (manager, serving, _) = try await served()
        let phone = central()
        _ = await part(manager, at: 0, by: phone)
        try await serving.setValue([9], characteristic: Self.changing, service: Self.service)
        #expect(await part(manager, at: 22, by: phone) == [UInt8](repeating: 2, count: 22))
        await serving.stop()
    }

    @Test func eachCentralsLongReadHasItsOwnVersion() async throws {
        let (manager, serving, _) = try await served()
        let first = central()
        let second = central()
        _ = await part(manager, at: 0, by: first)
        _ = await part(manager, at: 0, by: second)
        #expect(await part(manager, at: 22, by: first) == [UInt8](repeating: 1, count: 22))
        #expect(await part(manager, at: 22, by: second) == [UInt8](repeating: 2, count: 22))
        await serving.stop()
    }

    @Test func aReadBlobWithNoLongReadBeforeItRunsTheHandler() async throws {
        let (manager, serving, calls) = try await served()
        let phone = central()
        #expect(await part(manager, at: 22, by: phone) == [UInt8](repeating: 1, count: 22))
        #expect(await part(manager, at: 44, by: phone) == [UInt8](repeating: 2, count: 16))
        #expect(calls.withLock { $0 } == 2)
        await serving.stop()
    }

    @Test func aReadBlobAfterTheLastPartRunsTheHandlerAgain() async throws {
        let (manager, serving, _) = try await served()
        let phone = central()
        for offset in [0, 22, 44] { _ = await part(manager, at: offset, by: phone) }
        #expect(await part(manager, at: 22, by: phone) == [UInt8](repeating: 2, count: 22))
        await serving.stop()
    }

    @Test func theValuesKeptForLongReadsAreBoundedOldestFirst() async throws {
        let (manager, serving, _) = try await served()
        let phones = (0...64).map { _ in central() }
        for phone in phones { _ = await part(manager, at: 0, by: phone) }
        // 65 long reads started; 64 are kept: the first central's went.
        #expect(await part(manager, at: 22, by: phones[0]) == [UInt8](repeating: 66, count: 22))
        #expect(await part(manager, at: 22, by: phones[1]) == [UInt8](repeating: 2, count: 22))
        await serving.stop()
    }
}
