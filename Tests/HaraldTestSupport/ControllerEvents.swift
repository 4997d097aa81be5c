import HaraldCore
import HaraldHCI

/// HCI events as a controller sends them (Core Vol 4 Part E 7.7), built byte by byte so tests
/// do not lean on the host's own decoders to describe what a controller says.
public enum ControllerEvents {
    /// Any event: code, parameter length, parameters.
    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> HCIPacket {
        HCIPacket(type: .event, payload: [code, UInt8(parameters.count)] + parameters)
    }

    /// Command Complete (0x0E) giving back `credits` command slots.
    public static func complete(_ opcode: HCIOpcode, _ returnParameters: [UInt8], credits: UInt8 = 1) -> HCIPacket {
        event(0x0E, [credits] + le16(opcode.rawValue) + returnParameters)
    }

    /// Command Status (0x0F) giving back `credits` command slots.
    public static func status(_ opcode: HCIOpcode, _ status: HCIStatus, credits: UInt8 = 1) -> HCIPacket {
        event(0x0F, [status.rawValue, credits] + le16(opcode.rawValue))
    }

    /// LE Connection Complete (LE Meta 0x01), by default as the central: interval 0x18, latency 0,
    /// timeout 0x48. `role` 0x01 makes this device the peripheral.
    public static func connectionComplete(handle: UInt16, peer: BluetoothAddress, status: HCIStatus = .success, role: UInt8 = 0x00) -> HCIPacket {
        event(
            0x3E,
            [0x01, status.rawValue] + le16(handle) + [role, peer.kind.rawValue]
                + peer.littleEndianBytes + [0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
    }

    /// LE Advertising Report (LE Meta 0x02) with one report. `eventType`: 0x00 ADV_IND, 0x04
    /// SCAN_RSP.
    public static func advertisingReport(eventType: UInt8, address: BluetoothAddress, data: [UInt8], rssi: Int8) -> HCIPacket {
        event(
            0x3E,
            [0x02, 0x01, eventType, address.kind.rawValue] + address.littleEndianBytes
                + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)])
    }

    /// LE Connection Update Complete (LE Meta 0x03).
    public static func connectionUpdateComplete(handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) -> HCIPacket {
        event(0x3E, [0x03, 0x00] + le16(handle) + le16(interval) + le16(latency) + le16(supervisionTimeout))
    }

    /// LE Read Remote Features Complete (LE Meta 0x04).
    public static func remoteFeaturesComplete(handle: UInt16, features: UInt64) -> HCIPacket {
        event(0x3E, [0x04, 0x00] + le16(handle) + (0..<8).map { UInt8(truncatingIfNeeded: features >> (8 * $0)) })
    }

    /// LE Data Length Change (LE Meta 0x07), the same length and time both ways.
    public static func dataLengthChange(handle: UInt16, octets: UInt16, time: UInt16) -> HCIPacket {
        event(0x3E, [0x07] + le16(handle) + le16(octets) + le16(time) + le16(octets) + le16(time))
    }

    /// LE PHY Update Complete (LE Meta 0x0C).
    public static func phyUpdateComplete(handle: UInt16, txPHY: UInt8, rxPHY: UInt8) -> HCIPacket {
        event(0x3E, [0x0C, 0x00] + le16(handle) + [txPHY, rxPHY])
    }

    /// Number Of Completed Packets (0x13) for one handle.
    public static func completedPackets(handle: UInt16, count: UInt16) -> HCIPacket {
        event(0x13, [0x01] + le16(handle) + le16(count))
    }

    /// Disconnection Complete (0x05).
    public static func disconnectionComplete(handle: UInt16, reason: HCIStatus) -> HCIPacket {
        event(0x05, [0x00] + le16(handle) + [reason.rawValue])
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
