import Foundation
import Harald
import HaraldATT
import HaraldCodec

extension VirtualPeripheral {
    /// The Open GoPro control service UUIDs (`b5f9XXXX-aa8d-11e3-9046-0002a5d5c51b`).
    public enum OpenGoPro {
        /// Control & Query service (0xFEA6).
        public static let service = BluetoothUUID(0xFEA6)
        /// GP-XXXX.
        public static func uuid(_ short: UInt16) -> BluetoothUUID {
            BluetoothUUID("B5F9" + String(format: "%04X", short) + "-AA8D-11E3-9046-0002A5D5C51B")!
        }
        public static let command = uuid(0x0072)
        public static let commandResponse = uuid(0x0073)
        public static let settings = uuid(0x0074)
        public static let settingsResponse = uuid(0x0075)
        public static let query = uuid(0x0076)
        public static let queryResponse = uuid(0x0077)
        /// WiFi Access Point service (GP-0001).
        public static let wifiService = uuid(0x0001)
        /// WiFi AP SSID (GP-0002): readable only over an encrypted (paired) link.
        public static let wifiSSID = uuid(0x0002)
    }

    /// A GoPro-like action camera, minimal: service 0xFEA6 with the command, settings and query
    /// characteristics and their notifying response characteristics. Requests are single
    /// Open GoPro packets (general or extended-13 header); responses are TLV messages split into
    /// packets of at most 20 bytes with Open GoPro headers (continuation counter included).
    ///
    /// Commands: 0x01 shutter (`01 01 <0|1>`), 0x3C Get Hardware Info (multi-packet answer), 0x17
    /// sleep; anything else gets status 2 (invalid parameter). Settings: any `id len value`
    /// is stored and acknowledged (`id 00`). Query 0x13 (get status values) answers status 70
    /// (battery %), 8 (busy) and 10 (encoding) and the stored settings it is asked for; query
    /// 0x53 answers the same way and registers the connection for pushes: whenever the shutter
    /// changes the encoding status (10), a `0x93` status push follows on the query response
    /// characteristic. The WiFi AP service (GP-0001) has the SSID (GP-0002), readable only once
    /// the link is paired (Insufficient Encryption before), as on the real camera; `pairing`
    /// decides how pairing goes.
    public static func actionCamera(
        address: DeviceAddress = DeviceAddress("D4:D9:19:00:00:02", kind: .random)!, name: String = "GoPro 0042", rssi: Int? = -64,
        pairing: PairingResponse = .accept(after: .milliseconds(800))
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address, advertisingData: .device(name: name, services: [OpenGoPro.service]), rssi: rssi,
            advertisingInterval: .milliseconds(200), pairing: pairing
        ) { runtime in
            let camera = CameraState()
            @Sendable func respond(_ uuid: BluetoothUUID, _ message: [UInt8], _ context: GATTRequestContext) async {
                for packet in OpenGoProPackets.split(message) {
                    await runtime.notify(uuid, packet, to: context.connection)
                }
            }
            func writable(_ uuid: BluetoothUUID, answer: BluetoothUUID, _ handle: @escaping @Sendable ([UInt8]) -> [UInt8]) -> GATTCharacteristicDefinition {
                GATTCharacteristicDefinition(uuid: uuid, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                    guard let message = OpenGoProPackets.message(of: value) else { throw ATTErrorCode.invalidAttributeValueLength }
                    await respond(answer, handle(message), context)
                })
            }
            let services = [
                GATTServiceDefinition(uuid: OpenGoPro.service, characteristics: [
                    GATTCharacteristicDefinition(uuid: OpenGoPro.command, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                        guard let message = OpenGoProPackets.message(of: value) else { throw ATTErrorCode.invalidAttributeValueLength }
                        let (answer, pushes) = camera.command(message)
                        await respond(OpenGoPro.commandResponse, answer, context)
                        for (connection, push) in pushes {
                            for packet in OpenGoProPackets.split(push) { await runtime.notify(OpenGoPro.queryResponse, packet, to: connection) }
                        }
                    }),
                    GATTCharacteristicDefinition(uuid: OpenGoPro.commandResponse, properties: [.notify]),
                    writable(OpenGoPro.settings, answer: OpenGoPro.settingsResponse) { camera.setting($0) },
                    GATTCharacteristicDefinition(uuid: OpenGoPro.settingsResponse, properties: [.notify]),
                    GATTCharacteristicDefinition(uuid: OpenGoPro.query, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                        guard let message = OpenGoProPackets.message(of: value) else { throw ATTErrorCode.invalidAttributeValueLength }
                        await respond(OpenGoPro.queryResponse, camera.query(message, connection: context.connection), context)
                    }),
                    GATTCharacteristicDefinition(uuid: OpenGoPro.queryResponse, properties: [.notify]),
                ]),
                GATTServiceDefinition(uuid: OpenGoPro.wifiService, characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: OpenGoPro.wifiSSID, properties: [.read], permissions: [.read, .readEncrypted], value: Array("GP24500042".utf8)),
                ]),
                deviceInformation(manufacturer: "Harald Labs", model: "Action 12", serial: "C3501324500042", firmware: "H23.01.01.10.00", hardware: "1"),
            ]
            return PeripheralBehaviour(services: services)
        }
    }
}

/// The camera's settings and recording state.
final class CameraState: @unchecked Sendable {
    // @unchecked Sendable: `settings` and `recording` are only touched with `lock` held.
    private let lock = NSLock()
    private var settings: [UInt8: [UInt8]] = [:]
    private var recording = false
    /// Status ids each connection registered for pushes (query 0x53).
    private var registrations: [GATTConnectionID: Set<UInt8>] = [:]

    /// The answer to a command, and the status pushes it causes.
    func command(_ message: [UInt8]) -> (answer: [UInt8], pushes: [(GATTConnectionID, [UInt8])]) {
        guard let id = message.first else { return ([0x00, 0x02], []) }
        switch id {
        case 0x01 where message.count == 3 && message[1] == 1:
            let pushes = lock.withLock { () -> [(GATTConnectionID, [UInt8])] in
                let changed = recording != (message[2] == 1)
                recording = message[2] == 1
                guard changed else { return [] }
                return registrations.filter { $0.value.contains(10) }.keys.sorted { $0.rawValue < $1.rawValue }
                    .map { ($0, [0x93, 0x00, 10, 1, recording ? 1 : 0]) }
            }
            return ([0x01, 0x00], pushes)
        case 0x17:
            return ([0x17, 0x00], [])
        case 0x3C:
            func field(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
            return ([0x3C, 0x00, 0x04, 0x00, 0x00, 0x00, 0x3E] + field("HERO12 Black") + [0x04, 0x00, 0x00, 0x00, 0x00]
                + field("H23.01.01.10.00") + field("C3501324500042") + field("GP24500042") + field("0441693db024"), [])
        default:
            return ([id, 0x02], [])
        }
    }

    func setting(_ message: [UInt8]) -> [UInt8] {
        guard message.count >= 2, message.count == 2 + Int(message[1]) else { return [message.first ?? 0, 0x02] }
        lock.withLock { settings[message[0]] = Array(message[2...]) }
        return [message[0], 0x00]
    }

    func query(_ message: [UInt8], connection: GATTConnectionID) -> [UInt8] {
        guard let queryID = message.first, queryID == 0x13 || queryID == 0x53 else { return [message.first ?? 0, 0x02] }
        let ids = message.count > 1 ? Array(message[1...]) : [70, 8, 10]
        var answer: [UInt8] = [queryID, 0x00]
        lock.withLock {
            if queryID == 0x53 { registrations[connection, default: []].formUnion(ids) }
            for id in ids {
                let value: [UInt8]
                switch id {
                case 70: value = [82]
                case 8: value = [recording ? 1 : 0]
                case 10: value = [recording ? 1 : 0]
                default: value = settings[id] ?? []
                }
                answer += [id, UInt8(value.count)] + value
            }
        }
        return answer
    }
}

/// Open GoPro packet headers (protocols.md A.2): splitting a message into ≤ 20-byte packets and
/// reading a single-packet message.
enum OpenGoProPackets {
    /// Packets for `message`: a general (5-bit length) header up to 31 bytes, else an extended
    /// 13-bit header; continuation packets carry `0x80 | counter` (4-bit, wrapping).
    static func split(_ message: [UInt8], packetSize: Int = 20) -> [[UInt8]] {
        let header: [UInt8] = message.count <= 31
            ? [UInt8(message.count)]
            : [0x20 | UInt8((message.count >> 8) & 0x1F), UInt8(message.count & 0xFF)]
        var packets: [[UInt8]] = []
        var rest = message[...]
        let first = min(rest.count, packetSize - header.count)
        packets.append(header + rest.prefix(first))
        rest = rest.dropFirst(first)
        var counter: UInt8 = 0
        while !rest.isEmpty {
            let part = rest.prefix(packetSize - 1)
            packets.append([0x80 | (counter & 0x0F)] + part)
            rest = rest.dropFirst(part.count)
            counter &+= 1
        }
        return packets
    }

    /// The message of a single start packet whose length fits it; nil otherwise.
    static func message(of packet: [UInt8]) -> [UInt8]? {
        guard let first = packet.first, first & 0x80 == 0 else { return nil }
        switch (first & 0x60) >> 5 {
        case 0:
            let length = Int(first & 0x1F)
            return packet.count == 1 + length ? Array(packet[1...]) : nil
        case 1:
            guard packet.count >= 2 else { return nil }
            let length = Int(first & 0x1F) << 8 | Int(packet[1])
            return packet.count == 2 + length ? Array(packet[2...]) : nil
        default:
            return nil
        }
    }
}
