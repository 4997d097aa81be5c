import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldProfiles
import Testing

/// Authorization rules and the Presentation Format descriptor on the CoreBluetooth peripheral
/// backend (through the CB-shaped fake).
@Suite("CoreBluetooth peripheral backend: authorization and descriptors", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralAuthorizationTests {
    static let service = BluetoothUUID(0xFFF0)
    static let stored = BluetoothUUID(0xFFF1)
    static let setting = BluetoothUUID(0xFFF2)

    /// A stored read-only value and a writable setting, both behind a rule that lets in only
    /// centrals in `allowed`.
    static func definition(allowing allowed: Locked<Set<CentralIdentifier>>) -> PeripheralDefinition {
        let rule: AttributeAuthorizationHandler = { request, _ in allowed.withLock { $0.contains(request.central) } }
        return PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Guarded")) {
            ServiceDefinition(
                uuid: service,
                characteristics: [
                    CharacteristicDefinition(uuid: stored, properties: [.read], value: [9, 9]).authorized(by: rule)
                        .formatted(CharacteristicPresentationFormat(format: .uint16, unit: 0x2700)),
                    CharacteristicDefinition(uuid: setting, properties: [.read, .write], value: [0]).authorized(by: rule),
                ])
        }
    }

    @Test func aStoredValueBehindARuleIsNotCachedAndARefusedReadIsInsufficientAuthorization() async throws {
        let allowed = Locked<Set<CentralIdentifier>>([])
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition(allowing: allowed))
        #expect(manager.characteristic(Self.stored)?.spec.value == nil)
        let phone = FakeRemoteCentral()
        #expect(await manager.read(Self.stored, by: phone).result == 0x08)
        allowed.withLock { _ = $0.insert(CentralIdentifier(rawValue: phone.identifier.uuidString)) }
        let read = await manager.read(Self.stored, by: phone)
        #expect(read.result == 0 && read.value == [9, 9])
        await serving.stop()
    }

    @Test func aRefusedWriteIsInsufficientAuthorizationAndNothingIsStored() async throws {
        let allowed = Locked<Set<CentralIdentifier>>([])
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition(allowing: allowed))
        let phone = FakeRemoteCentral()
        #expect(await manager.write([(Self.setting, 0, [7])], by: phone) == 0x08)
        allowed.withLock { _ = $0.insert(CentralIdentifier(rawValue: phone.identifier.uuidString)) }
        #expect(await manager.read(Self.setting, by: phone).value == [0])
        #expect(await manager.write([(Self.setting, 0, [7])], by: phone) == 0)
        #expect(await manager.read(Self.setting, by: phone).value == [7])
        await serving.stop()
    }

    @Test func aPresentationFormatIsPublishedWithItsCharacteristic() async throws {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition(allowing: Locked([])))
        let format = try #require(manager.characteristic(Self.stored)?.spec.presentationFormat)
        #expect([UInt8](format) == [0x06, 0x00, 0x00, 0x27, 0x01, 0x00, 0x00])
        await serving.stop()
    }
}
