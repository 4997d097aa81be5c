import Foundation
import Harald
import HaraldCore
import HaraldCoreBluetooth
import Testing

/// A notification or indication carries at most ATT_MTU − 3 bytes of a value (a central's
/// `maximumUpdateValueLength`); the backend never hands CoreBluetooth a value to cut.
@Suite("CoreBluetooth peripheral: values longer than a link carries", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralUpdateLengthTests {
    func served() async throws -> (FakePeripheralManager, any ServingBackend) {
        let (manager, backend) = FakePeripheralManager.make()
        return (manager, try await backend.serve(TestDevice.definition()))
    }

    func id(_ central: FakeRemoteCentral) -> CentralIdentifier { CentralIdentifier(rawValue: central.identifier.uuidString) }

    static func isMisuse(_ error: any Error) -> Bool {
        if case .misuse? = error as? BluetoothError { return true }
        return false
    }

    @Test func aNotificationToOneCentralWhoseLinkIsTooShortIsRefusedNotCut() async throws {
        let (manager, serving) = try await served()
        let small = FakeRemoteCentral(maximumUpdateValueLength: 4)
        manager.subscribe(small, to: TestDevice.stream)
        await #expect(
            performing: {
                try await serving.notify(Array(0..<10), characteristic: TestDevice.stream, service: TestDevice.service, to: id(small))
            }, throws: Self.isMisuse)
        #expect(manager.updates.isEmpty)
        await serving.stop()
    }

    @Test func anIndicationToACentralWhoseLinkIsTooShortIsRefusedNotCut() async throws {
        let (manager, serving) = try await served()
        let small = FakeRemoteCentral(maximumUpdateValueLength: 4)
        manager.subscribe(small, to: TestDevice.stream)
        await #expect(
            performing: {
                try await serving.indicate(Array(0..<10), characteristic: TestDevice.stream, service: TestDevice.service, to: id(small), timeout: .seconds(5))
            }, throws: Self.isMisuse)
        #expect(manager.updates.isEmpty)
        await serving.stop()
    }

    @Test func aNotificationToEverySubscriberGoesWholeOnlyToTheCentralsWhoseLinkCarriesIt() async throws {
        let (manager, serving) = try await served()
        let small = FakeRemoteCentral(maximumUpdateValueLength: 4)
        let large = FakeRemoteCentral(maximumUpdateValueLength: 182)
        manager.subscribe(small, to: TestDevice.stream)
        manager.subscribe(large, to: TestDevice.stream)
        let sent = try await serving.notify(Array(0..<10), characteristic: TestDevice.stream, service: TestDevice.service, to: nil)
        #expect(sent == 1)
        #expect(manager.updates == [.init(value: Array(0..<10), characteristic: TestDevice.stream, centrals: [large.identifier])])
        #expect(await serving.withheldNotifications(characteristic: TestDevice.stream, service: TestDevice.service) == 1)
        await serving.stop()
    }

    @Test func aNotificationNoSubscribersLinkCarriesReachesNoOneAndIsCountedAsWithheld() async throws {
        let (manager, serving) = try await served()
        let small = FakeRemoteCentral(maximumUpdateValueLength: 4)
        manager.subscribe(small, to: TestDevice.stream)
        let sent = try await serving.notify(Array(0..<10), characteristic: TestDevice.stream, service: TestDevice.service, to: nil)
        #expect(sent == 0)
        #expect(manager.updates.isEmpty)
        #expect(await serving.withheldNotifications(characteristic: TestDevice.stream, service: TestDevice.service) == 1)
        await serving.stop()
    }

    @Test func aValueThatFitsGoesWholeToTheCentralNamed() async throws {
        let (manager, serving) = try await served()
        let small = FakeRemoteCentral(maximumUpdateValueLength: 4)
        manager.subscribe(small, to: TestDevice.stream)
        manager.subscribe(FakeRemoteCentral(), to: TestDevice.stream)
        let sent = try await serving.notify([0, 1, 2, 3], characteristic: TestDevice.stream, service: TestDevice.service, to: id(small))
        #expect(sent == 1)
        #expect(manager.updates == [.init(value: [0, 1, 2, 3], characteristic: TestDevice.stream, centrals: [small.identifier])])
        await serving.stop()
    }
}
