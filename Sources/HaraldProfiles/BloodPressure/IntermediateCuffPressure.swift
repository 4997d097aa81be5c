import HaraldCodec

/// Intermediate Cuff Pressure (0x2A36, notify): the cuff pressure while a blood-pressure
/// measurement is in progress.
///
/// Same layout as ``BloodPressureMeasurement``: the first SFLOAT is the current cuff pressure;
/// the diastolic and MAP fields are unused (the sender sets them to NaN). They are read but not
/// kept, and written as NaN.
public struct IntermediateCuffPressure: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A36)
    public static let name = "Intermediate Cuff Pressure"

    /// Current cuff pressure, in ``unit``.
    public var currentCuffPressure: MedicalFloat16
    /// mmHg or kPa.
    public var unit: BloodPressureUnit
    /// When the value was taken.
    public var timestamp: DateTime?
    /// Pulse rate in beats per minute.
    public var pulseRate: MedicalFloat16?
    /// The user; 255 means unknown user.
    public var userID: UInt8?
    /// Problems detected while measuring.
    public var measurementStatus: BloodPressureMeasurementStatus?
    /// Flag bits 5…7 as received.
    public var reservedFlags: UInt8

    /// A reading from its fields; the cuff pressure in `unit` (mmHg or kPa).
    public init(
        currentCuffPressure: MedicalFloat16, unit: BloodPressureUnit = .mmHg, timestamp: DateTime? = nil,
        pulseRate: MedicalFloat16? = nil, userID: UInt8? = nil, measurementStatus: BloodPressureMeasurementStatus? = nil
    ) {
        self.currentCuffPressure = currentCuffPressure
        self.unit = unit
        self.timestamp = timestamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.measurementStatus = measurementStatus
        self.reservedFlags = 0
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let layout = try BloodPressureMeasurement(from: &reader)
        currentCuffPressure = layout.systolic
        unit = layout.unit
        timestamp = layout.timestamp
        pulseRate = layout.pulseRate
        userID = layout.userID
        measurementStatus = layout.measurementStatus
        reservedFlags = layout.reservedFlags
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var layout = BloodPressureMeasurement(
            systolic: currentCuffPressure, diastolic: .nan, meanArterialPressure: .nan, unit: unit,
            timestamp: timestamp, pulseRate: pulseRate, userID: userID, measurementStatus: measurementStatus)
        layout.reservedFlags = reservedFlags
        try layout.encode(to: &writer)
    }

    /// `{unit, currentCuffPressure, timestamp?, pulseRate?, userID?, measurementStatus?}`.
    public var jsonValue: JSONValue {
        .fields([
            "unit": .string("\(unit)"),
            "currentCuffPressure": .medical(currentCuffPressure),
            "timestamp": timestamp?.jsonValue,
            "pulseRate": pulseRate.map { .medical($0) },
            "userID": userID.map { .int($0) },
            "measurementStatus": measurementStatus.map { .int($0.rawValue) },
        ])
    }
}
