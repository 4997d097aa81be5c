import HaraldProfiles

/// The one number of a decoded value worth plotting: the value itself when it is a number, else
/// the numeric field that names the characteristic.
public struct NumericReading: Equatable, Sendable {
    /// The field the number came from (nil when the value is a bare number).
    public let field: String?
    /// The number.
    public let value: Double

    /// Picks the number: a bare number; the only numeric field; the numeric field whose name
    /// starts or ends the characteristic's name (`heartRate` in Heart Rate Measurement, `steps` in
    /// Mi Band Realtime Steps); else the first numeric field in key order. Nil when the value
    /// holds no number.
    public init?(_ decoded: JSONValue, characteristicName: String? = nil) {
        switch decoded {
        case let .integer(value):
            self.init(field: nil, value: Double(value))
            return
        case let .number(value):
            self.init(field: nil, value: value)
            return
        case let .object(members):
            let numeric = members.compactMap { key, value in Self.number(value).map { (key, $0) } }.sorted { $0.0 < $1.0 }
            guard let first = numeric.first else { return nil }
            if numeric.count == 1 {
                self.init(field: first.0, value: first.1)
                return
            }
            let camel = characteristicName.map(Self.camelCase) ?? ""
            let named = numeric.filter { !camel.isEmpty && Self.names(camel, $0.0) }.max { $0.0.count < $1.0.count }
            let chosen = named ?? first
            self.init(field: chosen.0, value: chosen.1)
        default:
            return nil
        }
    }

    public init(field: String?, value: Double) {
        self.field = field
        self.value = value
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case let .integer(value): Double(value)
        case let .number(value): value
        default: nil
        }
    }

    /// Whether `field` starts or ends the camel-cased characteristic name (`heartRate` in
    /// `heartRateMeasurement`, `steps` in `miBandRealtimeSteps`).
    static func names(_ camelName: String, _ field: String) -> Bool {
        camelName.hasPrefix(field) || camelName.lowercased().hasSuffix(field.lowercased())
    }

    /// "Heart Rate Measurement" → "heartRateMeasurement".
    static func camelCase(_ name: String) -> String {
        let words = name.split { !$0.isLetter && !$0.isNumber }
        guard let first = words.first else { return "" }
        return first.lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
    }
}
