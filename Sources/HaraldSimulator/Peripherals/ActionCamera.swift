import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGoPro

extension VirtualPeripheral {
    /// The Open GoPro control service UUIDs (`b5f9XXXX-aa8d-11e3-9046-0002a5d5c51b`).
    public enum OpenGoPro {
        /// Control & Query service (0xFEA6).
        public static let service = BluetoothUUID(0xFEA6)
        /// GP-XXXX.
        public static func uuid(_ short: UInt16) -> BluetoothUUID {
            BluetoothUUID("B5F9" + String(format: "%04X", short) + "-AA8D-11E3-9046-0002A5D5C51B")!
        }
        public static let command = GoProCharacteristic.command.uuid
        public static let commandResponse = GoProCharacteristic.commandResponse.uuid
        public static let settings = GoProCharacteristic.settings.uuid
        public static let settingsResponse = GoProCharacteristic.settingsResponse.uuid
        public static let query = GoProCharacteristic.query.uuid
        public static let queryResponse = GoProCharacteristic.queryResponse.uuid
        /// WiFi Access Point service (GP-0001).
        public static let wifiService = uuid(0x0001)
        /// WiFi AP SSID (GP-0002): readable only over an encrypted (paired) link.
        public static let wifiSSID = uuid(0x0002)
    }

    /// A GoPro-like action camera speaking the Open GoPro BLE protocol.
    ///
    /// Service 0xFEA6 with the command (GP-0072), settings (GP-0074) and query (GP-0076)
    /// characteristics and their notifying response characteristics (GP-0073/0075/0077).
    /// Requests are reassembled with the camera kit's assembler (any header, multi-packet
    /// requests included); answers go out as a General-header packet when they fit 20 bytes,
    /// else through the kit's fragmenter, one whole message at a time per connection.
    ///
    /// - Commands: 0x01 shutter (starts and stops recording: statuses 8 busy and 10 encoding;
    ///   while recording, 13 video progress rises and 35 video time left falls a second per
    ///   second, 70 battery loses 1 % a minute), 0x3C Get Hardware Info (98 bytes, 6 packets;
    ///   status 1 until `bootTime` after the connection), 0x51 Open GoPro version (2.0), 0x05
    ///   sleep, 0x17 AP control, 0x18 hilight, 0x3E load preset group. A bad shutter parameter
    ///   answers status 2, an unknown command status 1.
    /// - Settings: resolution (2), frames per second (3), auto power down (59), LED (91), lens
    ///   (121), each with its allowed values (others: status 2; at 5K, resolution 24, only 60,
    ///   30 and 24 fps); the keep-alive (91 = 0x42).
    /// - Queries: 0x12/0x13 get settings/statuses (all of them when no IDs are given: the 88
    ///   statuses of a real camera, 370 bytes in 20 packets), 0x32 capabilities, 0x52/0x53/0x62
    ///   register (answering the current values or capabilities), 0x72/0x73/0x82 unregister.
    ///   Registered connections get 0x92 (setting), 0x93 (status) and 0xA2 (capability: the
    ///   frame rates when the resolution enters or leaves 5K) pushes when a value changes.
    ///
    /// The WiFi AP service (GP-0001) has the SSID (GP-0002), readable only once the link is
    /// paired (Insufficient Encryption before), as on the real camera; `pairing` decides how
    /// pairing goes. `faults` make the camera misbehave for tests (``ActionCameraFault``).
    public static func actionCamera(
        address: BluetoothAddress = BluetoothAddress("D4:D9:19:00:00:02", kind: .random)!, name: String = "GoPro 0042", rssi: RSSI? = -64,
        pairing: PairingResponse = .accept(after: .milliseconds(800)), bootTime: Duration = .seconds(1), faults: [ActionCameraFault] = []
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address, advertisingData: .device(name: name, services: [OpenGoPro.service]), rssi: rssi,
            advertisingInterval: .milliseconds(200), pairing: pairing
        ) { runtime in
            let camera = ActionCameraState(serial: "C3501324500042", accessPointSSID: "GP24500042", bootTime: bootTime, faults: faults)
            let assemblers = RequestAssemblers()
            func request(_ characteristic: GoProCharacteristic) -> GATTCharacteristicDefinition {
                GATTCharacteristicDefinition(uuid: characteristic.uuid, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                    guard let message = assemblers.append(value, from: context.connection, on: characteristic) else { return }
                    camera.handle(message, on: characteristic, from: context.connection, at: runtime.clock.now)
                })
            }
            let services = [
                GATTServiceDefinition(uuid: OpenGoPro.service, characteristics: [
                    request(.command),
                    GATTCharacteristicDefinition(uuid: OpenGoPro.commandResponse, properties: [.notify]),
                    request(.settings),
                    GATTCharacteristicDefinition(uuid: OpenGoPro.settingsResponse, properties: [.notify]),
                    request(.query),
                    GATTCharacteristicDefinition(uuid: OpenGoPro.queryResponse, properties: [.notify]),
                ]),
                GATTServiceDefinition(uuid: OpenGoPro.wifiService, characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: OpenGoPro.wifiSSID, properties: [.read], permissions: [.read, .readEncrypted], value: Array("GP24500042".utf8)),
                ]),
                deviceInformation(manufacturer: "Harald Labs", model: "Action 12", serial: "C3501324500042", firmware: "H23.01.01.10.00", hardware: "1"),
            ]
            return PeripheralBehaviour(services: services) { session in
                // The connection's only sender: whole messages one after another, so the packets
                // of an answer and of a push never interleave; and the camera's one-second clock.
                let outbox = camera.connected(session.connection, at: runtime.clock.now)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in outbox {
                            if message.delay > .zero, await !session.sleep(for: message.delay) { break }
                            for packet in message.packets { await session.notify(message.characteristic.uuid, packet) }
                        }
                    }
                    group.addTask {
                        while await session.sleep(for: .seconds(1)) { camera.tick(session.connection, at: runtime.clock.now) }
                    }
                    await group.next()
                    group.cancelAll()
                }
                camera.disconnected(session.connection)
                assemblers.forget(session.connection)
            }
        }
    }
}

/// The camera's request assemblers: one per connection and request characteristic.
final class RequestAssemblers: @unchecked Sendable {
    // @unchecked Sendable: `assemblers` is only touched with `lock` held.
    private let lock = NSLock()
    private var assemblers: [GATTConnectionID: GoProMessageAssemblers<GoProCharacteristic>] = [:]

    /// The complete request message when `packet` ends one; nil while more packets are due, and
    /// for a malformed packet (the camera ignores it, as the real one does).
    func append(_ packet: [UInt8], from connection: GATTConnectionID, on characteristic: GoProCharacteristic) -> [UInt8]? {
        lock.withLock {
            do { return try assemblers[connection, default: GoProMessageAssemblers()].append(packet, from: characteristic) } catch { return nil }
        }
    }

    func forget(_ connection: GATTConnectionID) {
        _ = lock.withLock { assemblers.removeValue(forKey: connection) }
    }
}
