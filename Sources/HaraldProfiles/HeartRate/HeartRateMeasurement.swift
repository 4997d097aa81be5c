import HaraldCodec

/// Heart Rate Measurement (0x2A37, notify): heart rate, sensor contact, energy expended and RR
/// intervals.
///
/// Wire form: flags (u8), heart rate (u8 or u16 per flag bit 0), energy expended (u16 kJ, if
/// flag bit 3), then RR intervals (u16 each, 1/1024 s, if flag bit 4) filling the rest.
///
/// Validation: a field announced by the flags must be present; with the RR flag at least one
/// interval must follow (as Nordic's parser requires) and the RR tail must be a whole number of
/// u16s — an odd trailing byte is an error. Flag bits 5…7 are reserved and kept as received.
public struct HeartRateMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A37)
    public static let name = "Heart Rate Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// The heart rate is a u16 (otherwise a u8).
        case heartRateIsUInt16 = 0
        /// Skin contact is detected (meaningful only with ``sensorContactSupported``).
        case sensorContactDetected = 1
        /// The sensor reports skin contact.
        case sensorContactSupported = 2
        /// An energy-expended field follows the heart rate.
        case energyExpendedPresent = 3
        /// RR intervals fill the rest of the value.
        case rrIntervalsPresent = 4
    }

    /// Width of the heart-rate field on the wire.
    public enum ValueFormat: Hashable, Sendable {
        /// One byte, 0…255 bpm.
        case uint8
        /// Two bytes, 0…65535 bpm.
        case uint16
    }

    /// Whether the sensor is touching the skin.
    public enum SensorContact: Hashable, Sendable {
        /// The sensor does not report contact (flag bits 1-2 are `00` or `01`).
        case notSupported
        /// Contact is reported and not detected (`10`).
        case notDetected
        /// Contact is reported and detected (`11`).
        case detected
    }

    /// Heart rate in beats per minute.
    public var heartRate: UInt16
    /// Width of the heart-rate field; ``ValueFormat/uint8`` cannot carry more than 255 bpm.
    public var format: ValueFormat
    /// Skin-contact status.
    public var sensorContact: SensorContact
    /// Energy expended since the last reset, in kilojoules; 65535 means "65535 or more".
    public var energyExpended: UInt16?
    /// RR intervals in 1/1024 s, oldest first; empty when the measurement carries none.
    public var rrIntervals: RRIntervals
    /// Flag bits 5…7 (reserved) as received; written back unchanged.
    public var reservedFlags: UInt8

    /// A measurement; the heart-rate field is a u8 when `heartRate` fits in one.
    @inlinable
    public init(
        heartRate: UInt16, sensorContact: SensorContact = .notSupported, energyExpended: UInt16? = nil,
        rrIntervals: RRIntervals = RRIntervals(), format: ValueFormat? = nil
    ) {
        self.heartRate = heartRate
        self.format = format ?? (heartRate > 0xFF ? .uint16 : .uint8)
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
        self.reservedFlags = 0
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        if flags.contains(.heartRateIsUInt16) {
            format = .uint16
            heartRate = try reader.read(UInt16.self, field: "heartRate")
        } else {
            format = .uint8
            heartRate = UInt16(try reader.read(UInt8.self, field: "heartRate"))
        }
        switch (flags.contains(.sensorContactSupported), flags.contains(.sensorContactDetected)) {
        case (true, true): sensorContact = .detected
        case (true, false): sensorContact = .notDetected
        default: sensorContact = .notSupported
        }
        energyExpended = try flags.contains(.energyExpendedPresent) ? reader.read(UInt16.self, field: "energyExpended") : nil
        reservedFlags = flags.rawValue & 0xE0
        // Filled in a local and stored once: appending to `self.rrIntervals` in place made the
        // optimiser copy the whole value on the way out.
        var intervals = RRIntervals()
        if flags.contains(.rrIntervalsPresent) {
            repeat {
                intervals.append(try reader.read(UInt16.self, field: "rrIntervals"))
            } while !reader.isAtEnd
        }
        rrIntervals = intervals
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xE0)
        if format == .uint16 { flags.insert(.heartRateIsUInt16) }
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags.insert(.sensorContactSupported)
        case .detected: flags.insert(.sensorContactSupported); flags.insert(.sensorContactDetected)
        }
        if energyExpended != nil { flags.insert(.energyExpendedPresent) }
        if !rrIntervals.isEmpty { flags.insert(.rrIntervalsPresent) }
        writer.write(flags)
        switch format {
        case .uint8:
            try requireEncodable(heartRate <= 0xFF, field: "heartRate", "\(heartRate) bpm does not fit the u8 format")
            writer.write(UInt8(truncatingIfNeeded: heartRate))
        case .uint16:
            writer.write(heartRate)
        }
        if let energyExpended { writer.write(energyExpended) }
        for interval in rrIntervals { writer.write(interval) }
    }

    /// `{heartRate, sensorContact, energyExpended?, rrIntervals? (seconds)}`.
    public var jsonValue: JSONValue {
        .fields([
            "heartRate": .int(heartRate),
            "sensorContact": .string("\(sensorContact)"),
            "energyExpended": energyExpended.map { .int($0) },
            "rrIntervals": rrIntervals.isEmpty ? nil : .array(rrIntervals.seconds.map { .number($0) }),
        ])
    }
}
