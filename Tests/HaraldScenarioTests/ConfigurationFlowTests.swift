import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator
import Testing

/// A virtual device with three settings: `mode` (u8) and `interval` (u16) store what is written;
/// `gain` (u8) refuses values above 10 with application error 0x80.
private enum SettingsDevice {
    static let address = BluetoothAddress("C0:DE:00:00:00:08", kind: .random)!
    static let service = BluetoothUUID(0xFFD0)
    static let mode = Characteristic<UInt8, ReadWrite>(BluetoothUUID(0xFFD1), service: service)
    static let interval = Characteristic<UInt16, ReadWrite>(BluetoothUUID(0xFFD2), service: service)
    static let gain = Characteristic<UInt8, ReadWrite>(BluetoothUUID(0xFFD3), service: service)

    static func device() -> VirtualPeripheral {
        VirtualPeripheral(address: address, advertisingData: .device(name: "Settings", services: [service])) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: mode.uuid, properties: [.read, .write], value: [1]),
                        GATTCharacteristicDefinition(uuid: interval.uuid, properties: [.read, .write], value: [0xE8, 0x03]),
                        GATTCharacteristicDefinition(
                            uuid: gain.uuid, properties: [.read, .write], value: [5],
                            onWrite: { _, value in
                                guard let first = value.first, first <= 10 else { throw ATTErrorCode(rawValue: 0x80) }
                            }),
                    ])
            ])
        }
    }
}

@Suite("Configuration flow on the simulator")
struct ConfigurationFlowTests {
    private func run(_ steps: [ConfigurationFlow.Step]) async throws
        -> (outcome: Result<[String], ConfigurationFlow.Failure>, values: [UInt16])
    {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [SettingsDevice.device()])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        return try await simulation.run(timeLimit: .seconds(600)) {
            let connection = try await central.connect(to: PeripheralIdentifier(address: SettingsDevice.address), timeout: .seconds(5))
            let outcome: Result<[String], ConfigurationFlow.Failure>
            do throws(ConfigurationFlow.Failure) {
                outcome = .success(try await ConfigurationFlow(steps: steps).run(on: connection))
            } catch {
                outcome = .failure(error)
            }
            let values: [UInt16] = [
                UInt16(try await connection.read(SettingsDevice.mode)), try await connection.read(SettingsDevice.interval),
                UInt16(try await connection.read(SettingsDevice.gain)),
            ]
            await connection.disconnect()
            return (outcome, values)
        }
    }

    @Test func everySettingIsWrittenAndVerified() async throws {
        let (outcome, values) = try await run([
            .setting(SettingsDevice.mode, to: 3, name: "mode"),
            .setting(SettingsDevice.interval, to: 250, name: "interval"),
            .setting(SettingsDevice.gain, to: 7, name: "gain"),
        ])
        #expect(try outcome.get() == ["mode", "interval", "gain"])
        #expect(values == [3, 250, 7])
    }

    @Test func aRefusedSettingRollsBackTheOnesAppliedBeforeIt() async throws {
        let (outcome, values) = try await run([
            .setting(SettingsDevice.mode, to: 3, name: "mode"),
            .setting(SettingsDevice.interval, to: 250, name: "interval"),
            .setting(SettingsDevice.gain, to: 99, name: "gain"),
        ])
        guard case let .failure(failure) = outcome else {
            Issue.record("the flow should fail")
            return
        }
        #expect(failure.step == "gain")
        #expect(failure.rolledBack == ["interval", "mode"])
        #expect(failure.leftApplied.isEmpty)
        if case let BluetoothError.attribute(status, _)? = failure.underlying as? BluetoothError {
            #expect(status == ATTErrorCode(rawValue: 0x80))
        } else {
            Issue.record("underlying error \(String(describing: failure.underlying))")
        }
        #expect(values == [1, 1000, 5])
    }

    @Test func aSettingThatDoesNotReadBackIsUndoneToo() async throws {
        // The step writes 9 but verifies against a value the device never holds.
        let impossible = ConfigurationFlow.Step(
            name: "mode-check",
            apply: { connection in
                let previous = try await connection.read(SettingsDevice.mode)
                try await connection.write(9, to: SettingsDevice.mode)
                return { try await $0.write(previous, to: SettingsDevice.mode) }
            },
            verify: { connection in try await connection.read(SettingsDevice.mode) == 10 })
        let (outcome, values) = try await run([.setting(SettingsDevice.interval, to: 250, name: "interval"), impossible])
        guard case let .failure(failure) = outcome else {
            Issue.record("the flow should fail")
            return
        }
        #expect(failure.step == "mode-check")
        #expect(failure.underlying == nil)
        #expect(failure.rolledBack == ["mode-check", "interval"])
        #expect(values == [1, 1000, 5])
    }
}
