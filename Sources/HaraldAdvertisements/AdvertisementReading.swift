/// A value decoded from an advertisement: a number, a state or a text.
public enum AdvertisementValue: Hashable, Sendable, CustomStringConvertible {
    /// A measurement, already scaled to its unit.
    case number(Double)
    /// A binary state (a door open, a battery low).
    case bool(Bool)
    /// A text: a name, an event, a version, raw bytes as hex.
    case text(String)

    /// The number, when this is one.
    public var number: Double? {
        if case let .number(value) = self { return value }
        return nil
    }

    /// The value as text: the number, `true` or `false`, or the text itself.
    public var description: String {
        switch self {
        case let .number(value): "\(value)"
        case let .bool(value): value ? "true" : "false"
        case let .text(value): value
        }
    }
}

/// One value an advertisement carried, in the shape a gateway publishes: a stable key, the value,
/// its unit, a Home Assistant device class where one fits, and the decoder that found it.
public struct AdvertisementReading: Hashable, Sendable {
    /// The value's key, stable across advertisements: `temperature`, `humidity`, `battery`;
    /// a second value of the same kind in one advertisement gets `_2`, a third `_3`.
    public var key: String
    /// The value.
    public var value: AdvertisementValue
    /// Its unit (`°C`, `%`, `hPa`), as Home Assistant spells it; nil when it has none.
    public var unit: String?
    /// Home Assistant's device class for it (`temperature`, `door`), when one fits.
    public var deviceClass: String?
    /// The name of the decoder that produced it (`BTHome`, `Battery Service`).
    public var decoder: String

    /// A reading of `value` under `key`.
    public init(key: String, value: AdvertisementValue, unit: String? = nil, deviceClass: String? = nil, decoder: String) {
        self.key = key
        self.value = value
        self.unit = unit
        self.deviceClass = deviceClass
        self.decoder = decoder
    }
}

extension Array where Element == AdvertisementReading {
    /// The readings with repeated keys numbered: the first keeps its key, later ones of the same
    /// key get `_2`, `_3`, … in order (the numbering BTHome asks receivers to use), skipping any
    /// number already taken.
    func numberingRepeatedKeys() -> [AdvertisementReading] {
        var used: Set<String> = []
        return map { reading in
            var numbered = reading
            var number = 2
            while used.contains(numbered.key) {
                numbered.key = "\(reading.key)_\(number)"
                number += 1
            }
            used.insert(numbered.key)
            return numbered
        }
    }
}
