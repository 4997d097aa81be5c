import HaraldCodec
import HaraldCore
import HaraldProfiles

/// The text lines of `harald subscribe`: time since subscribing, the characteristic with its SIG
/// name, hex and decoded fields, and a sparkline of the recent numbers when the value has one.
public struct NotificationLines: Sendable {
    public let uuid: BluetoothUUID
    /// How many recent numbers the sparkline shows.
    public let width: Int
    /// The recent numbers, oldest first (at most `width`).
    public private(set) var numbers: [Double] = []
    /// Where the characteristic's name and codec come from.
    public let registry: CharacteristicRegistry

    public init(uuid: BluetoothUUID, width: Int = 20, registry: CharacteristicRegistry = .standard) {
        self.uuid = uuid
        self.width = max(1, width)
        self.registry = registry
    }

    /// The line for one value received `elapsed` after subscribing; `decoded` is what the codec
    /// registry made of `bytes` (nil when it has no codec for the UUID).
    public mutating func line(for bytes: [UInt8], decoded: JSONValue?, at elapsed: Duration) -> String {
        var line = "[\(Self.seconds(elapsed))] \(Labels.uuid(uuid, registry: registry)): \(Labels.value(bytes, of: uuid, registry: registry))"
        if let decoded, let reading = NumericReading(decoded, characteristicName: Labels.name(of: uuid, registry: registry)) {
            numbers.append(reading.value)
            if numbers.count > width { numbers.removeFirst(numbers.count - width) }
            line += "  \(reading.field ?? "value") \(Sparkline.render(numbers, width: min(width, numbers.count)))"
        }
        return line
    }

    /// `+12.345s`, to the millisecond.
    public static func seconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        let fraction = String(milliseconds % 1000)
        return "+\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}
