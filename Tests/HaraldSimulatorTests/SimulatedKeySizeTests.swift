import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSMP
import HaraldSimulator
import Testing

/// KNOB against the central over the simulator: a device that offers only a short key is refused
/// (Pairing Failed, Encryption Key Size), and the public error names both key sizes.
@Suite("Key size in the simulator")
struct SimulatedKeySizeTests {
    static let device = BluetoothAddress("C4:00:00:00:00:07", kind: .random)!
    static let service = BluetoothUUID(0xFFE0)
    static let encrypted = BluetoothUUID(0xFFE1)

    static func shortKeyDevice() -> VirtualPeripheral {
        // The device's own explicit, weakened configuration: it offers (and accepts) 7 octets.
        let security = DeviceSecurity(configuration: PairingConfiguration(maxEncryptionKeySize: 7, minEncryptionKeySize: 7))
        return VirtualPeripheral(address: device, advertisingData: .device(name: "Old"), pairing: .securityManager(security)) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: encrypted, properties: [.read], permissions: [.read, .readEncrypted], value: [0x0E])
                    ])
            ])
        }
    }

    @Test func aDeviceOfferingSevenOctetsIsRefusedAndTheErrorNamesTheKeySizes() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (error, bonds) = try await simulation.run {
            let bonds = InMemoryBondStore()
            let simulator = try Simulator(clock: clock, devices: [Self.shortKeyDevice()], security: SecurityConfiguration(bonds: bonds))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let characteristic = try await connection.characteristic(Self.encrypted, service: Self.service)
            let error = await #expect(throws: BluetoothError.self) { try await connection.readRaw(characteristic) }
            await connection.disconnect()
            return (error, try await central.bonds())
        }
        guard case .pairingFailed(let message)? = error else {
            Issue.record("expected pairingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("7 octets"))
        #expect(message.contains("16 are required"))
        #expect(bonds.isEmpty)
    }

    @Test func aSevenOctetKeyBothSidesOptedIntoNeverReadsAValueThatNeedsSixteen() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (result, keySize) = try await simulation.run { () -> (Result<[UInt8], BluetoothError>, Int?) in
            // Both sides weakened on purpose: the pairing succeeds with a 7-octet key, and the
            // device's server must judge the link by that size from the Encryption Change on.
            let weak = PairingConfiguration(maxEncryptionKeySize: 7, minEncryptionKeySize: 7)
            let simulator = try Simulator(
                clock: clock, devices: [Self.shortKeyDevice()], security: SecurityConfiguration(bonds: InMemoryBondStore(), pairing: weak))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let characteristic = try await connection.characteristic(Self.encrypted, service: Self.service)
            let result: Result<[UInt8], BluetoothError>
            do { result = .success(try await connection.readRaw(characteristic)) } catch { result = .failure(BluetoothError(error)) }
            let keySize = await connection.security()?.keySize
            await connection.disconnect()
            return (result, keySize)
        }
        #expect(keySize == 7)
        #expect(throws: BluetoothError.self, "a 16-octet minimum answers Insufficient Encryption Key Size") { try result.get() }
    }

    @Test func theTranslationOfAKeySizeRefusalNamesBothSizes() {
        let error = BondingLinkSecurity.translate(.encryptionKeySize(offered: 10, required: 16), timeout: .seconds(30))
        #expect(error == .pairingFailed("the peer offers an encryption key of 10 octets, 16 are required (Encryption Key Size, 0x06)"))
        #expect(error.description.contains("10 octets"))
    }
}
