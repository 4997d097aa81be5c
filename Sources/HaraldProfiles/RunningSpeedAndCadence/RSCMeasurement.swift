import HaraldCodec

/// Running Speed and Cadence Measurement (0x2A53, notify).
///
/// Wire form: flags (u8: bit 0 stride length, bit 1 total distance, bit 2 running), speed (u16,
/// 1/256 m/s), cadence (u8, steps per minute), stride length (u16, 0.01 m, if bit 0), total
/// distance (u32, 0.1 m, if bit 1). Flag bits 3…7 are reserved and kept as received.
public struct RSCMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A53)
    public static let name = "RSC Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 Instantaneous Stride Length present, 1 Total Distance present, 2 running (else walking).
        case strideLengthPresent = 0, totalDistancePresent = 1, running = 2
    }

    /// Instantaneous speed in 1/256 m/s.
    public var rawSpeed: UInt16
    /// Instantaneous cadence in steps per minute.
    public var cadence: UInt8
    /// Instantaneous stride length in 0.01 m.
    public var rawStrideLength: UInt16?
    /// Total distance in 0.1 m.
    public var rawTotalDistance: UInt32?
    /// True when running, false when walking.
    public var isRunning: Bool
    /// Flag bits 3…7 as received.
    public var reservedFlags: UInt8

    /// A measurement: speed in 1/256 m/s, cadence in steps per minute, stride in 0.01 m, distance in 0.1 m.
    public init(rawSpeed: UInt16, cadence: UInt8, rawStrideLength: UInt16? = nil, rawTotalDistance: UInt32? = nil, isRunning: Bool = false) {
        self.rawSpeed = rawSpeed
        self.cadence = cadence
        self.rawStrideLength = rawStrideLength
        self.rawTotalDistance = rawTotalDistance
        self.isRunning = isRunning
        self.reservedFlags = 0
    }

    /// Speed in metres per second.
    public var speed: Double { Double(rawSpeed) / 256 }
    /// Stride length in metres.
    public var strideLength: Double? { rawStrideLength.map { Double($0) / 100 } }
    /// Total distance in metres.
    public var totalDistance: Double? { rawTotalDistance.map { Double($0) / 10 } }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        rawSpeed = try reader.read(UInt16.self, field: "instantaneousSpeed")
        cadence = try reader.read(UInt8.self, field: "instantaneousCadence")
        rawStrideLength = try flags.contains(.strideLengthPresent) ? reader.read(UInt16.self, field: "instantaneousStrideLength") : nil
        rawTotalDistance = try flags.contains(.totalDistancePresent) ? reader.read(UInt32.self, field: "totalDistance") : nil
        isRunning = flags.contains(.running)
        reservedFlags = flags.rawValue & 0xF8
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xF8)
        if rawStrideLength != nil { flags.insert(.strideLengthPresent) }
        if rawTotalDistance != nil { flags.insert(.totalDistancePresent) }
        if isRunning { flags.insert(.running) }
        writer.write(flags)
        writer.write(rawSpeed)
        writer.write(cadence)
        if let rawStrideLength { writer.write(rawStrideLength) }
        if let rawTotalDistance { writer.write(rawTotalDistance) }
    }

    /// `{instantaneousSpeed (m/s), instantaneousCadence, instantaneousStrideLength? (m),
    /// totalDistance? (m), running}`.
    public var jsonValue: JSONValue {
        .fields([
            "instantaneousSpeed": .number(speed),
            "instantaneousCadence": .int(cadence),
            "instantaneousStrideLength": strideLength.map { .number($0) },
            "totalDistance": totalDistance.map { .number($0) },
            "running": .bool(isRunning),
        ])
    }
}
