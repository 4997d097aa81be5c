import HaraldCodec

/// Intermediate Temperature (0x2A1E, notify): the temperatures a thermometer sends while a
/// measurement is in progress, before the final one arrives as a Temperature Measurement.
///
/// Same wire form, validation and JSON as ``TemperatureMeasurement``, which this value wraps;
/// its fields (``TemperatureMeasurement/temperature``, ``TemperatureMeasurement/unit``,
/// ``TemperatureMeasurement/celsius``, …) read through directly, as in `value.celsius`.
@dynamicMemberLookup
public struct IntermediateTemperature: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A1E)
    public static let name = "Intermediate Temperature"

    /// The temperature reading, laid out as a Temperature Measurement.
    public var measurement: TemperatureMeasurement

    /// An intermediate reading with the fields of `measurement`.
    public init(_ measurement: TemperatureMeasurement) {
        self.measurement = measurement
    }

    /// A field of the reading, such as `temperature`, `unit`, `timestamp` or `celsius`.
    public subscript<Field>(dynamicMember field: KeyPath<TemperatureMeasurement, Field>) -> Field {
        measurement[keyPath: field]
    }

    /// A settable field of the reading.
    public subscript<Field>(dynamicMember field: WritableKeyPath<TemperatureMeasurement, Field>) -> Field {
        get { measurement[keyPath: field] }
        set { measurement[keyPath: field] = newValue }
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        measurement = try TemperatureMeasurement(from: &reader)
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try measurement.encode(to: &writer)
    }

    /// `{temperature, unit: "celsius"|"fahrenheit", timestamp?, temperatureType?}`, as for a
    /// Temperature Measurement.
    public var jsonValue: JSONValue { measurement.jsonValue }
}
