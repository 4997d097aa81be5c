import HaraldAssignedNumbers
import HaraldCodec
import HaraldCore
import HaraldProfiles

/// How the text output names things: numbers first (what the spec and the packet log show), then
/// the Bluetooth SIG's name when it has one.
public enum Labels {
    /// `180D Heart Rate`, `2A37 Heart Rate Measurement`; a vendor UUID with the name of the codec
    /// `registry` has for it (`00000007-…-0009AF100700 Mi Band Realtime Steps` where the Mi Band
    /// kit's values are registered, as the CLI's registry has them), else alone.
    public static func uuid(_ uuid: BluetoothUUID, registry: CharacteristicRegistry = .standard) -> String {
        guard let name = name(of: uuid, registry: registry) else { return uuid.uuidString }
        return "\(uuid.uuidString) \(name)"
    }

    /// The SIG's name for a UUID, else the name of `registry`'s codec for it (vendor characteristics).
    public static func name(of uuid: BluetoothUUID, registry: CharacteristicRegistry = .standard) -> String? {
        uuid.assignedName ?? registry.entry(for: uuid)?.name
    }

    /// `0x004C Apple, Inc.`; the number alone when the SIG has not assigned it.
    public static func company(_ companyID: UInt16) -> String {
        let number = "0x" + Hex.byte(UInt8(companyID >> 8)) + Hex.byte(UInt8(companyID & 0xFF))
        guard let name = AssignedNumbers.companyName(companyID) else { return number }
        return "\(number) \(name)"
    }

    /// `0x0341 Heart Rate Sensor: Heart Rate Belt`.
    public static func appearance(_ appearance: UInt16) -> String {
        let number = "0x" + Hex.byte(UInt8(appearance >> 8)) + Hex.byte(UInt8(appearance & 0xFF))
        guard let name = AssignedNumbers.appearanceName(appearance) else { return number }
        return "\(number) \(name)"
    }

    /// A decoded value for people: objects as `key: value` pairs in key order, strings quoted,
    /// numbers as JSON writes them (`level: 87`, `text: "Harald Test Peers"`).
    public static func decoded(_ value: JSONValue) -> String {
        switch value {
        case let .object(members):
            members.sorted { $0.key < $1.key }.map { "\($0.key): \(decoded($0.value))" }.joined(separator: ", ")
        case let .array(values): "[" + values.map(decoded).joined(separator: ", ") + "]"
        default: value.jsonText
        }
    }

    /// Hex of a value, cut after `limit` bytes with the full length said (`0001…02 (512 bytes)`).
    public static func hex(_ bytes: [UInt8], limit: Int = 32) -> String {
        guard bytes.count > limit else { return bytes.isEmpty ? "(empty)" : bytes.hexString }
        return Array(bytes.prefix(limit)).hexString + "… (\(bytes.count) bytes)"
    }

    /// A value as the text output prints it: hex, then `→` and the decoded value when `registry`
    /// has a codec for it (or the decoder's complaint when the bytes do not fit it).
    public static func value(_ bytes: [UInt8], of uuid: BluetoothUUID, hexLimit: Int = 32, registry: CharacteristicRegistry = .standard) -> String {
        let hex = hex(bytes, limit: hexLimit)
        do {
            guard let decoded = try registry.describe(bytes, as: uuid) else { return hex }
            return "\(hex) → \(Self.decoded(decoded))"
        } catch {
            return "\(hex) → (not a valid value: \(error.description))"
        }
    }
}
