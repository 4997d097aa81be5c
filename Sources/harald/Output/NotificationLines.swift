import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldTerminal

/// The text lines of `harald subscribe`: time since subscribing, the characteristic with its SIG
/// name, hex and decoded fields, and a sparkline of the recent numbers when the value has one.
struct NotificationLines {
    let uuid: BluetoothUUID
    /// How many recent numbers the sparkline shows.
    var width = 20
    private(set) var numbers: [Double] = []

    init(uuid: BluetoothUUID) { self.uuid = uuid }

    mutating func line(for bytes: [UInt8], decoded: JSONValue?, at elapsed: Duration) -> String {
        var line = "[\(Self.seconds(elapsed))] \(Labels.uuid(uuid)): \(Labels.value(bytes, of: uuid))"
        if let decoded, let reading = NumericReading(decoded, characteristicName: uuid.assignedName) {
            numbers.append(reading.value)
            if numbers.count > width { numbers.removeFirst(numbers.count - width) }
            line += "  \(reading.field ?? "value") \(Sparkline.render(numbers, width: min(width, numbers.count)))"
        }
        return line
    }

    /// `+12.345s`, to the millisecond.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        let fraction = String(milliseconds % 1000)
        return "+\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}

extension PeripheralConnection {
    /// ``readRawValues(of:timeout:)`` with a progress bar: in batches of eight when the bar is
    /// shown (a terminal on stderr), in one call otherwise (the fewest round trips).
    func readRawValues(of characteristics: [DiscoveredCharacteristic], progress: ProgressDisplay) async throws(BluetoothError)
        -> [Result<[UInt8], BluetoothError>]
    {
        guard progress.enabled, characteristics.count > 8 else { return try await readRawValues(of: characteristics) }
        var results: [Result<[UInt8], BluetoothError>] = []
        for start in stride(from: 0, to: characteristics.count, by: 8) {
            progress.show(done: start, total: characteristics.count)
            results += try await readRawValues(of: Array(characteristics[start..<min(start + 8, characteristics.count)]))
        }
        progress.show(done: characteristics.count, total: characteristics.count)
        return results
    }
}
