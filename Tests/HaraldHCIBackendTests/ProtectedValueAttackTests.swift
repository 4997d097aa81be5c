import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldHCIBackend
import HaraldProfiles
import HaraldSMP
import Testing

extension HaraldPeripheralBumbleIntegrationTests {
    /// Hostile Bumble centrals (scripts/bumble/attack_protected_value.py) against a device Harald
    /// serves over HCI whose values need an encrypted link: the attacker never pairs, writes the
    /// CCCD of the protected measurement and listens, or asks Find By Type Value about a guessed
    /// serial number. Part of the Harald↔Harald suite, so its controllers are never shared: the
    /// device runs on its peripheral controller, the attacker on its central one.
    /// `./scripts/integration --filter ProtectedValueAttacks` runs these alone.
    @Suite("Protected value attacks on Harald's HCI peripheral")
    struct ProtectedValueAttacks {
        static let serial = "SECRET-0025"

        /// A heart-rate strap whose measurement (notify only) and serial number need an encrypted link.
        static func device(name: String) throws -> PeripheralDefinition {
            try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: name, services: [BluetoothUUID(0x180D)])) {
                try ServiceDefinition(BluetoothUUID(0x180D)) {
                    CharacteristicDefinition(.heartRateMeasurement, security: .encrypted)
                    try CharacteristicDefinition(.bodySensorLocation, value: .chest)
                }
                try ServiceDefinition(BluetoothUUID(0x180A)) {
                    try CharacteristicDefinition(.serialNumber, value: SerialNumberString(text: serial), security: .encrypted)
                }
            }
        }

        /// The attacker's output lines, once it exits (or is stopped after 90 s).
        static func attack(_ arguments: [String], name: String) async throws -> [String] {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let python = ProcessInfo.processInfo.environment["HARALD_BUMBLE_PYTHON"] ?? root.appendingPathComponent(".venv/bin/python").path
            try #require(FileManager.default.isExecutableFile(atPath: python), "no Bumble venv at \(python): run scripts/bumble/setup-venv")
            let central = try #require(HaraldPair.centralTransport).replacingOccurrences(of: "tcp:", with: "tcp-client:")
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("attack-\(UUID().uuidString).out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: output) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments =
                [root.appendingPathComponent("scripts/bumble/attack_protected_value.py").path] + arguments + [
                    "--transport", central, "--name", name,
                ]
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            let exited = Locked(false)
            try process.run()
            let pid = process.processIdentifier
            let watchdog = Task {
                try? await Task.sleep(for: .seconds(90))
                if !exited.withLock({ $0 }) { kill(pid, SIGKILL) }  // our own child, by its PID
            }
            while process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
            exited.withLock { $0 = true }
            watchdog.cancel()
            let text = try String(contentsOf: output, encoding: .utf8)
            return text.split(separator: "\n").map(String.init)
        }

        /// Serves the device over HCI with a Security Manager (the attacker could pair, it does not).
        static func serve(name: String) async throws -> ServedPeripheral {
            let backend = HCIPeripheralBackend(
                transport: try #require(HaraldPair.peripheralTransport), security: SecurityConfiguration(bonds: InMemoryBondStore()))
            return try await ServedPeripheral.start(try device(name: name), on: backend)
        }

        @Test("an unpaired central that writes the protected measurement's CCCD is refused (0x05) and gets no notification")
        func anUnpairedCentralGetsNoProtectedNotification() async throws {
            let name = "Harald-ATK1"
            let served = try await Self.serve(name: name)
            let sent = Locked(0)
            let notifier = Task {
                while !Task.isCancelled {
                    if let count = try? await served.notify(.heartRateMeasurement, HeartRateMeasurement(heartRate: 72)) {
                        sent.withLock { $0 += count }
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            let lines = try await Self.attack(["subscribe", "--uuid", "2A37", "--listen", "3"], name: name)
            notifier.cancel()
            _ = await notifier.value
            let withheld = await served.withheldNotifications(.heartRateMeasurement)
            await served.stop()
            #expect(lines.contains { $0.hasPrefix("CONNECTED") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("CCCD_WRITE") && $0.hasSuffix("status=0x05") }, "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("NOTIFICATION") || $0.hasPrefix("INDICATION") }, "\(lines)")
            #expect(lines.contains("DONE notifications=0 indications=0"), "\(lines)")
            #expect(sent.withLock { $0 } == 0)
            #expect(withheld == 0)  // refused at the CCCD: there was never a subscription to skip
        }

        @Test("Find By Type Value with the right guess of a protected serial number finds nothing (0x0A)")
        func findByTypeValueIsNoOracleForAProtectedValue() async throws {
            let name = "Harald-ATK2"
            let served = try await Self.serve(name: name)
            let guess = Array(Self.serial.utf8).map { String(format: "%02x", $0) }.joined()
            let lines = try await Self.attack(["find-by-type-value", "--uuid", "2A25", "--value", guess], name: name)
            await served.stop()
            #expect(lines.contains { $0.hasPrefix("TARGET") }, "\(lines)")
            #expect(lines.contains("FIND_BY_TYPE_VALUE status=0x0A"), "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("FIND_BY_TYPE_VALUE found=") }, "\(lines)")
        }
    }
}
