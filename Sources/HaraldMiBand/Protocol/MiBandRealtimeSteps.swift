import HaraldCodec
import HaraldProfiles

/// Mi Band realtime steps (Huami characteristic 0x0007,
/// `00000007-0000-3512-2118-0009AF100700`, read/notify): today's steps, distance and calories.
///
/// 13 bytes: a type byte (0x0C seen on Mi Band 2…5), then steps, metres and kilocalories as
/// little-endian u32. Sources disagree on the widths (Gadgetbridge reads only 16-bit steps,
/// creotiv 16-bit steps and metres and 8-bit calories); all agree on the offsets, and u32 reads
/// every one of their captures the same. Shorter values are rejected.
public struct MiBandRealtimeSteps: CharacteristicValue {
    public static let uuid: BluetoothUUID = "00000007-0000-3512-2118-0009AF100700"
    public static let name = "Mi Band Realtime Steps"

    /// The leading type byte (0x0C on the bands seen so far).
    public var type: UInt8
    /// Steps today.
    public var steps: UInt32
    /// Distance today, metres.
    public var meters: UInt32
    /// Energy today, kilocalories.
    public var calories: UInt32

    /// A value from its fields: steps, metres and kilocalories today.
    public init(type: UInt8 = 0x0C, steps: UInt32, meters: UInt32, calories: UInt32) {
        self.type = type
        self.steps = steps
        self.meters = meters
        self.calories = calories
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        type = try reader.read(UInt8.self, field: "type")
        steps = try reader.read(UInt32.self, field: "steps")
        meters = try reader.read(UInt32.self, field: "meters")
        calories = try reader.read(UInt32.self, field: "calories")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(type)
        writer.write(steps)
        writer.write(meters)
        writer.write(calories)
    }

    /// `{steps, meters, calories, type}`.
    public var jsonValue: JSONValue {
        .object(["steps": .int(steps), "meters": .int(meters), "calories": .int(calories), "type": .int(type)])
    }
}

/// The Mi Band kit's values, for a registry that decodes and names them.
extension CharacteristicRegistry {
    /// The Mi Band kit's characteristic values a registry can name and decode (the realtime
    /// steps): a tool registers them next to `CharacteristicRegistry.standardTypes`, as `harald
    /// decode` does.
    public static let miBandTypes: [any CharacteristicValue.Type] = [MiBandRealtimeSteps.self]
}
