import HaraldCodec

/// A command the Mi Band takes on the Heart Rate Control Point (0x2A39).
///
/// `15 <mode> <01|00>` turns a measurement mode on or off, `14 <minutes>` sets the automatic
/// measurement interval (0 = off), `16` keeps continuous mode running (the band stops it when no
/// keep-alive came for a while; send one about every 12 s).
public enum MiBandHeartRateCommand: ByteCodable, Hashable, Sendable {
    /// The band's measurement modes.
    public enum Mode: UInt8, Hashable, Sendable, CaseIterable {
        /// Measurements while asleep.
        case sleep = 0x00
        /// One measurement a second or so until stopped (needs ``keepAlive``).
        case continuous = 0x01
        /// One measurement, notified once.
        case single = 0x02
    }

    /// Turns `mode` on or off.
    case setMode(Mode, enabled: Bool)
    /// Measures automatically every `minutes` minutes (0 = off).
    case measurementInterval(minutes: UInt8)
    /// Keeps continuous mode going.
    case keepAlive

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let code = try reader.read(UInt8.self, field: "command")
        switch code {
        case 0x15:
            let modeOffset = reader.offset
            let raw = try reader.read(UInt8.self, field: "mode")
            guard let mode = Mode(rawValue: raw) else {
                throw reader.invalidValue("unknown mode 0x\(String(raw, radix: 16))", field: "mode", at: modeOffset)
            }
            let switchOffset = reader.offset
            let enabled = try reader.read(UInt8.self, field: "enabled")
            guard enabled <= 1 else { throw reader.invalidValue("expected 0 or 1, got \(enabled)", field: "enabled", at: switchOffset) }
            self = .setMode(mode, enabled: enabled == 1)
        case 0x14:
            self = .measurementInterval(minutes: try reader.read(UInt8.self, field: "minutes"))
        case 0x16:
            self = .keepAlive
        default:
            throw reader.invalidValue("unknown heart-rate command 0x\(String(code, radix: 16))", field: "command", at: start)
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        switch self {
        case let .setMode(mode, enabled):
            writer.write(bytes: [0x15, mode.rawValue, enabled ? 0x01 : 0x00])
        case let .measurementInterval(minutes):
            writer.write(bytes: [0x14, minutes])
        case .keepAlive:
            writer.write(UInt8(0x16))
        }
    }
}
