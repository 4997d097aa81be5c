import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldProfiles

extension VirtualPeripheral {
    /// The Mi Band 2 (Huami) UUIDs and characteristics the virtual band offers.
    public enum MiBand {
        /// `0000XXXX-0000-3512-2118-0009af100700`.
        public static func uuid(_ short: UInt16) -> BluetoothUUID {
            BluetoothUUID("0000" + String(format: "%04X", short) + "-0000-3512-2118-0009AF100700")!
        }
        /// The "MiBand service" (0xFEE0): battery, realtime steps.
        public static let service = BluetoothUUID(0xFEE0)
        /// The "MiBand2 service" (0xFEE1): authentication.
        public static let authService = BluetoothUUID(0xFEE1)
        /// The key both Gadgetbridge and creotiv use by default ("0123456789@ABCDE").
        public static let defaultKey: [UInt8] = Array("0123456789@ABCDE".utf8)

        /// Auth (0x0009): `02 08` asks for a challenge, answered `10 02 01 <16 random bytes>`;
        /// `03 08 <AES-128-ECB(key, random)>` answers it, confirmed `10 03 01` (or `10 03 04`);
        /// `01 08 <16-byte key>` sets a new key (`10 01 01`).
        public static let auth = Characteristic<[UInt8], WriteNotify>(uuid(0x0009), service: authService)
        /// Realtime steps (0x0007): steps, meters, kcal; notified every second while enabled.
        public static let realtimeSteps = Characteristic<MiBandRealtimeSteps, ReadNotify>(uuid(0x0007), service: service)
        /// Battery info (0x0006): 20 bytes, level in byte 1, charging state in byte 2.
        public static let batteryInfo = Characteristic<[UInt8], Read>(uuid(0x0006), service: service)
    }

    /// A Mi-Band-2-like fitness band: services 0xFEE0 (battery info, realtime steps growing by a
    /// few steps a second) and 0xFEE1 (the AES authentication handshake of protocols.md B.2),
    /// Heart Rate (control point `15 02 01` starts a single measurement, notified as `00 <bpm>`)
    /// and Device Information. Deterministic: the challenge comes from a fixed-seed generator.
    public static func fitnessBand(
        address: DeviceAddress = DeviceAddress("C8:0F:10:00:00:03", kind: .public)!, name: String = "MI Band 2", rssi: Int? = -70
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address, advertisingData: .device(name: name, services: [MiBand.service]), rssi: rssi,
            advertisingInterval: .milliseconds(250)
        ) { runtime in
            let band = BandState()
            let services = [
                GATTServiceDefinition(uuid: MiBand.service, characteristics: [
                    GATTCharacteristicDefinition(uuid: MiBand.uuid(0x0006), properties: [.read], value: BandState.batteryInfo),
                    GATTCharacteristicDefinition(uuid: MiBand.uuid(0x0007), properties: [.read, .notify], onRead: { _ throws(ATTErrorCode) in
                        band.steps()
                    }),
                ]),
                GATTServiceDefinition(uuid: MiBand.authService, characteristics: [
                    GATTCharacteristicDefinition(uuid: MiBand.uuid(0x0009), properties: [.write, .writeWithoutResponse, .notify], onWrite: { context, value throws(ATTErrorCode) in
                        if let reply = band.authenticate(value, connection: context.connection) {
                            await runtime.notify(MiBand.uuid(0x0009), reply, to: context.connection)
                        }
                    }),
                ]),
                GATTServiceDefinition(uuid: BluetoothUUID(0x180D), characteristics: [
                    GATTCharacteristicDefinition(uuid: HeartRateMeasurement.uuid, properties: [.notify]),
                    GATTCharacteristicDefinition(uuid: HeartRateControlPoint.uuid, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                        if value == [0x15, 0x02, 0x01] {
                            await runtime.notify(HeartRateMeasurement.uuid, [0x00, 76], to: context.connection)
                        }
                    }),
                ]),
                deviceInformation(manufacturer: "Huami-like", model: "Band 2", serial: "B2-000003", firmware: "1.0.1.81", hardware: "V0.1.3.2"),
            ]
            return PeripheralBehaviour(services: services) { session in
                while await session.sleep(for: .seconds(1)) {
                    band.walk()
                    await session.notify(MiBand.uuid(0x0007), band.steps())
                }
            }
        }
    }
}

/// The band's step counter, key and authentication challenges.
final class BandState: @unchecked Sendable {
    // @unchecked Sendable: every stored property is only touched with `lock` held.
    private let lock = NSLock()
    private var stepCount: UInt32 = 409
    private var key = VirtualPeripheral.MiBand.defaultKey
    private var challenges: [GATTConnectionID: [UInt8]] = [:]
    private var seed: UInt64 = 0x2545_F491_4F6C_DD1D

    /// Battery info from protocols.md B.4, with level 73 % and not charging.
    static let batteryInfo: [UInt8] = [0x0F, 73, 0x00, 0xE0, 0x07, 0x0B, 0x1A, 0x12, 0x23, 0x2C, 0x04, 0xE0, 0x07, 0x0B, 0x1A, 0x17, 0x2B, 0x3B, 0x04, 0x64]

    func walk() { lock.withLock { stepCount += 2 } }

    func steps() -> [UInt8] {
        let count = lock.withLock { stepCount }
        let value = MiBandRealtimeSteps(steps: count, meters: count * 62 / 100, calories: count / 50)
        return (try? value.encodedBytes()) ?? []
    }

    /// The reply to a write on the auth characteristic, if any.
    func authenticate(_ value: [UInt8], connection: GATTConnectionID) -> [UInt8]? {
        guard let command = value.first else { return nil }
        return lock.withLock { () -> [UInt8]? in
            switch command {
            case 0x01 where value.count == 18:
                key = Array(value[2...])
                return [0x10, 0x01, 0x01]
            case 0x02:
                var random: [UInt8] = []
                for _ in 0..<16 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    random.append(UInt8(truncatingIfNeeded: seed >> 56))
                }
                challenges[connection] = random
                return [0x10, 0x02, 0x01] + random
            case 0x03 where value.count == 18:
                guard let random = challenges.removeValue(forKey: connection) else { return [0x10, 0x03, 0x04] }
                return AES128(key: key).encrypt(block: random) == Array(value[2...]) ? [0x10, 0x03, 0x01] : [0x10, 0x03, 0x04]
            default:
                return [0x10, command, 0x04]
            }
        }
    }
}
