import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldSimulator

// The GoPro-like camera's part of `harald demo`.
extension Demo {
    static func camera(_ central: Central, _ world: Simulator, _ camera: VirtualPeripheral, _ say: DemoPrinter) async throws {
        say("connecting to \(camera.name ?? "the camera")")
        let connection = try await central.connect(to: camera.identifier, timeout: .seconds(5))
        let command = Characteristic<[UInt8], Harald.Write>(VirtualPeripheral.OpenGoPro.command, service: VirtualPeripheral.OpenGoPro.service)
        let response = Characteristic<[UInt8], Notify>(VirtualPeripheral.OpenGoPro.commandResponse, service: VirtualPeripheral.OpenGoPro.service)
        // Get Hardware Info: a multi-packet answer, reassembled from its Open GoPro headers.
        let packets = try await connection.subscribe(response, buffering: .oldest(64))
        try await connection.write([0x01, 0x3C], to: command)
        var message: [UInt8] = []
        var remaining = 0
        for try await packet in packets {
            guard let header = packet.first else { continue }
            if header & 0x80 != 0 {
                message += packet.dropFirst()
            } else if header & 0x60 == 0x20, packet.count >= 2 {
                remaining = Int(header & 0x1F) << 8 | Int(packet[1])
                message = Array(packet.dropFirst(2))
            } else {
                remaining = Int(header & 0x1F)
                message = Array(packet.dropFirst())
            }
            say("  packet \(packet.hexString)")
            if message.count >= remaining { break }
        }
        try await connection.unsubscribe(packets)
        let fields = Self.lengthPrefixedStrings(Array(message.dropFirst(7)))
        say("  hardware info: status \(message.count > 1 ? message[1] : 0xFF), model \"\(fields.first ?? "?")\", firmware \"\(fields.count > 1 ? fields[1] : "?")\"")
        let shutter = try await connection.request(write: [0x03, 0x01, 0x01, 0x01], to: command, response: response)
        say("  shutter on → \(shutter.hexString) (\(shutter.count == 3 && shutter[2] == 0 ? "success" : "error"))")
        // The WiFi SSID needs a paired link: the first read is refused and starts pairing.
        let ssid = Characteristic<[UInt8], Harald.Read>(VirtualPeripheral.OpenGoPro.wifiSSID, service: VirtualPeripheral.OpenGoPro.wifiService)
        do { _ = try await connection.read(ssid) } catch { say("  read WiFi SSID: \(error); pairing starts") }
        try await central.clock.sleep(for: .seconds(1))
        say("  read WiFi SSID after pairing: \"\(String(decoding: try await connection.read(ssid), as: UTF8.self))\"")
        await connection.disconnect()
        if let simulated = world.connection(to: camera.address) { await Self.report(simulated, say) }
    }

    static func lengthPrefixedStrings(_ bytes: [UInt8]) -> [String] {
        var strings: [String] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            guard index + 1 + length <= bytes.count else { break }
            strings.append(String(decoding: bytes[(index + 1)..<(index + 1 + length)], as: UTF8.self))
            index += 1 + length
            // Skip the 4-byte fields between strings (board type, …) when they are not text.
            if index < bytes.count, bytes[index] == 4, index + 5 <= bytes.count, bytes[(index + 1)..<(index + 5)].allSatisfy({ $0 < 0x20 }) {
                index += 5
            }
        }
        return strings
    }
}
