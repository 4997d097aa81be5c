// The pairing benchmark's Harald sides (scripts/bench-pairing): a central that pairs with a peer
// N times (one fresh connection each, `PeripheralConnection.pair()` timed alone), and a
// peripheral (HCIPeripheral) that advertises and answers pairing until killed.
//
// Usage: HaraldBumbleBench --role pairing-central --transport T --name NAME --model M [--iterations N]
//        HaraldBumbleBench --role pairing-peripheral --transport T --name NAME --model M
// Models: jw (LE Secure Connections Just Works), nc (Numeric Comparison), passkey (the peer shows
// 123456, the central types it), legacy-jw, legacy-passkey.
import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldSMP

enum PairingBench {
    /// The passkey the displaying side shows in the passkey models.
    static let passkey: UInt32 = 123_456

    /// Each side's Security Manager set-up for a model.
    static func configuration(model: String, central: Bool, bonds: InMemoryBondStore = InMemoryBondStore()) -> SecurityConfiguration {
        let secureConnections = !model.hasPrefix("legacy")
        var authReq: AuthReq = secureConnections ? [.bonding, .secureConnections] : [.bonding]
        let io: IOCapability
        switch model {
        case "nc":
            io = .displayYesNo
            authReq.insert(.mitm)
        case "passkey", "legacy-passkey":
            io = central ? .keyboardOnly : .displayOnly
            authReq.insert(.mitm)
        default:
            io = .noInputNoOutput
        }
        return SecurityConfiguration(bonds: bonds, pairing: PairingConfiguration(ioCapability: io, authReq: authReq), agent: BenchAgent())
    }

    /// A person who confirms everything and types or shows ``passkey``, including each new
    /// pairing's replacement of the bond the previous iteration made with the same peer (which
    /// the bond rules refuse unasked for a pairing that is not stronger).
    struct BenchAgent: PairingAgent {
        func confirmBondReplacement(existing: BondStrength, replacement: BondStrength) async -> Bool { true }
        func confirmJustWorks() async -> Bool { true }
        func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { true }
        func enterPasskey() async -> UInt32? { PairingBench.passkey }
        func displayPasskey(_ passkey: UInt32) async {}
        func passkeyToDisplay() async -> UInt32? { PairingBench.passkey }
    }

    /// Pairs `iterations` times with the device advertising `name`; prints one JSON document.
    static func runCentral(transport: String, name: String, model: String, iterations: Int) async throws {
        let bonds = InMemoryBondStore()
        let backend = try await HCICentralBackend.open(transport: transport, security: configuration(model: model, central: true, bonds: bonds))
        let central = Central(backend: backend)
        try await central.waitUntilPoweredOn(timeout: .seconds(5))
        let found = try await central.scan(ScanRequest(namePrefix: name)).first(timeout: .seconds(10))
        let clock = ContinuousClock()
        var milliseconds: [Double] = []
        var failures: [String] = []
        for _ in 0..<iterations {
            // Every iteration pairs from scratch: with the last one's bond kept, the connection
            // would first encrypt with it (and the peer, which keeps no keys, would refuse).
            for bond in await bonds.allBonds() { _ = await bonds.removeBond(for: bond.identityAddress) }
            let connection: PeripheralConnection
            do { connection = try await central.connect(to: found, timeout: .seconds(10)) } catch {
                failures.append("connecting: \(error)")
                continue
            }
            let start = clock.now
            do {
                let security = try await connection.pair()
                milliseconds.append(seconds(clock.now - start) * 1000)
                if security.level == .none { failures.append("the link is not encrypted after pairing") }
            } catch {
                failures.append("\(error)")
            }
            await connection.disconnect()
            try await Task.sleep(for: .milliseconds(50))  // the peer re-advertises
        }
        await backend.close()
        let document: [String: Any] = ["model": model, "milliseconds": milliseconds, "failures": failures]
        print(String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]), as: UTF8.self))
    }

    /// Advertises as `name` with one characteristic that needs encryption and answers pairing
    /// until the process is killed.
    static func runPeripheral(transport: String, name: String, model: String) async throws {
        let service = BluetoothUUID(0xFFE0)
        let peripheral = try await HCIPeripheral.open(
            transport: transport,
            services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: BluetoothUUID(0xFFE1), properties: [.read], permissions: [.read, .readEncrypted], value: [0x01])
                    ])
            ], security: configuration(model: model, central: false))
        try await peripheral.advertise(LegacyAdvertising(data: .device(name: name, services: [service]), intervalMin: 32, intervalMax: 32))
        FileHandle.standardOutput.write(Data("READY\n".utf8))
        for await event in await peripheral.events() {
            FileHandle.standardError.write(Data("\(event)\n".utf8))
        }
    }
}
