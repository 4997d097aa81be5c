import HaraldCodec

// Beacon frames carried in advertising data: Apple's iBeacon (in manufacturer data) and Google's
// Eddystone (in service data for UUID 0xFEAA). Multi-byte fields of both are big-endian, unlike
// the rest of Bluetooth LE.

// MARK: - iBeacon

/// An iBeacon advertisement: manufacturer data for Apple (0x004C) holding
/// `02 15 <proximity UUID, 16 bytes> <major> <minor> <measured power>`.
///
/// Apple's CoreBluetooth does not report iBeacon advertisements to apps (CoreLocation does), so
/// on Apple platforms expect these only from other backends.
public struct IBeacon: Hashable, Sendable, ByteCodable {
    /// Apple's company identifier.
    public static let companyID: UInt16 = 0x004C
    /// The type (0x02) and length (0x15 = 21) bytes that open the frame.
    static let prefix: [UInt8] = [0x02, 0x15]

    /// Identifies the deployment (a company or an app's beacons).
    public var proximityUUID: BluetoothUUID
    /// Groups beacons (a store, a building).
    public var major: UInt16
    /// Identifies a beacon within its group.
    public var minor: UInt16
    /// RSSI in dBm measured 1 m from the beacon, for distance estimates.
    public var measuredPower: Int8

    /// An iBeacon: its UUID, major and minor numbers, and its RSSI at 1 m in dBm.
    public init(proximityUUID: BluetoothUUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.proximityUUID = proximityUUID
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// Decodes the bytes after the company identifier.
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let prefix = try reader.readBytes(count: 2, field: "type")
        guard prefix == Self.prefix else {
            throw reader.invalidValue("not an iBeacon frame (starts \(Hex.encode(prefix)))", field: "type", at: start)
        }
        let uuidBytes = try reader.readBytes(count: 16, field: "proximityUUID")
        proximityUUID = BluetoothUUID(bigEndianBytes: uuidBytes) ?? BluetoothUUID(high: 0, low: 0)
        major = try reader.read(UInt16.self, byteOrder: .bigEndian, field: "major")
        minor = try reader.read(UInt16.self, byteOrder: .bigEndian, field: "minor")
        measuredPower = try reader.read(Int8.self, field: "measuredPower")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bytes: Self.prefix)
        writer.write(bytes: proximityUUID.bigEndianBytes)
        writer.write(major, byteOrder: .bigEndian)
        writer.write(minor, byteOrder: .bigEndian)
        writer.write(measuredPower)
    }
}

extension ManufacturerData {
    /// The iBeacon frame, when this is Apple's manufacturer data holding one.
    public var iBeacon: IBeacon? {
        guard companyID == IBeacon.companyID else { return nil }
        return try? IBeacon(decoding: data)
    }

    /// Apple manufacturer data carrying `beacon`.
    public init(iBeacon beacon: IBeacon) {
        self.init(companyID: IBeacon.companyID, data: (try? beacon.encodedBytes()) ?? [])
    }
}

// MARK: - Eddystone

/// An Eddystone frame (service data for UUID 0xFEAA), by frame type.
public enum EddystoneFrame: Hashable, Sendable, ByteCodable {
    /// The Eddystone service UUID.
    public static let serviceUUID = BluetoothUUID(0xFEAA)

    /// Frame type 0x00: a static 16-byte beacon ID.
    case uid(EddystoneUID)
    /// Frame type 0x10: a compressed URL.
    case url(EddystoneURL)
    /// Frame type 0x20: unencrypted telemetry.
    case tlm(EddystoneTLM)
    /// Frame type 0x30: an ephemeral ID; TX power at 0 m and the 8-byte EID.
    case eid(txPowerAt0m: Int8, identifier: [UInt8])

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        guard let type = reader.peekByte() else { throw reader.invalidValue("empty frame", field: "frameType", at: start) }
        switch type {
        case 0x00: self = .uid(try reader.decode(EddystoneUID.self, field: "uid"))
        case 0x10: self = .url(try reader.decode(EddystoneURL.self, field: "url"))
        case 0x20: self = .tlm(try reader.decode(EddystoneTLM.self, field: "tlm"))
        case 0x30:
            try reader.skip(1, field: "frameType")
            let power = try reader.read(Int8.self, field: "txPower")
            self = .eid(txPowerAt0m: power, identifier: try reader.readBytes(count: 8, field: "eid"))
        default:
            throw reader.invalidValue("unknown Eddystone frame type 0x\(Hex.encode([type]))", field: "frameType", at: start)
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        switch self {
        case .uid(let frame): try writer.encode(frame)
        case .url(let frame): try writer.encode(frame)
        case .tlm(let frame): try writer.encode(frame)
        case let .eid(power, identifier):
            guard identifier.count == 8 else { throw ByteEncodingError(field: "eid", detail: "needs 8 bytes, has \(identifier.count)") }
            writer.write(UInt8(0x30))
            writer.write(power)
            writer.write(bytes: identifier)
        }
    }
}

/// Eddystone-UID: `00 <TX power at 0 m> <namespace, 10 bytes> <instance, 6 bytes> [00 00]`.
public struct EddystoneUID: Hashable, Sendable, ByteCodable {
    /// Calibrated TX power in dBm at 0 m (RSSI at 1 m plus 41 dBm).
    public var txPowerAt0m: Int8
    /// 10-byte namespace (often a truncated hash of a domain, or elided from a UUID).
    public var namespace: [UInt8]
    /// 6-byte instance within the namespace.
    public var instance: [UInt8]

    /// An Eddystone-UID frame: TX power at 0 m in dBm, 10-byte namespace, 6-byte instance.
    public init(txPowerAt0m: Int8, namespace: [UInt8], instance: [UInt8]) {
        self.txPowerAt0m = txPowerAt0m
        self.namespace = namespace
        self.instance = instance
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try EddystoneFrame.expectType(0x00, in: &reader)
        txPowerAt0m = try reader.read(Int8.self, field: "txPower")
        namespace = try reader.readBytes(count: 10, field: "namespace")
        instance = try reader.readBytes(count: 6, field: "instance")
        // Two reserved bytes follow; beacons of the first specification left them out.
        if reader.remainingCount >= 2 { try reader.skip(2, field: "reserved") }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard namespace.count == 10 else { throw ByteEncodingError(field: "namespace", detail: "needs 10 bytes, has \(namespace.count)") }
        guard instance.count == 6 else { throw ByteEncodingError(field: "instance", detail: "needs 6 bytes, has \(instance.count)") }
        writer.write(UInt8(0x00))
        writer.write(txPowerAt0m)
        writer.write(bytes: namespace + instance + [0x00, 0x00])
    }
}

/// Eddystone-URL: `10 <TX power at 0 m> <scheme> <encoded URL, up to 17 bytes>`, where one byte
/// stands for a common scheme (`http://www.` …) and bytes 0x00–0x0D for common endings (`.com/` …).
public struct EddystoneURL: Hashable, Sendable, ByteCodable {
    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/", ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    /// Calibrated TX power in dBm at 0 m.
    public var txPowerAt0m: Int8
    /// The full URL, such as `https://goo.gl/S6zT6P`.
    public var url: String

    /// An Eddystone-URL frame: TX power at 0 m in dBm and the URL it encodes.
    public init(txPowerAt0m: Int8, url: String) {
        self.txPowerAt0m = txPowerAt0m
        self.url = url
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try EddystoneFrame.expectType(0x10, in: &reader)
        txPowerAt0m = try reader.read(Int8.self, field: "txPower")
        let schemeOffset = reader.offset
        let scheme = Int(try reader.read(UInt8.self, field: "scheme"))
        guard scheme < Self.schemes.count else { throw reader.invalidValue("reserved URL scheme \(scheme)", field: "scheme", at: schemeOffset) }
        var text = Self.schemes[scheme]
        guard reader.remainingCount <= 17 else {
            throw reader.invalidValue("encoded URL of \(reader.remainingCount) bytes (at most 17)", field: "url", at: reader.offset)
        }
        while !reader.isAtEnd {
            let offset = reader.offset
            let byte = try reader.read(UInt8.self, field: "url")
            if Int(byte) < Self.expansions.count {
                text += Self.expansions[Int(byte)]
            } else if (0x21...0x7E).contains(byte) {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                throw reader.invalidValue("reserved URL byte 0x\(Hex.encode([byte]))", field: "url", at: offset)
            }
        }
        url = text
    }

    /// Compresses the URL; throws when its scheme is not one of the four, it holds characters
    /// outside printable ASCII, or it needs more than 17 bytes.
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        // Longest scheme first, so `https://www.` wins over `https://`.
        guard
            let scheme = Self.schemes.indices.sorted(by: { Self.schemes[$0].count > Self.schemes[$1].count })
                .first(where: { url.hasPrefix(Self.schemes[$0]) })
        else { throw ByteEncodingError(field: "url", detail: "scheme must be http:// or https://") }
        var rest = Substring(url.dropFirst(Self.schemes[scheme].count))
        var encoded: [UInt8] = []
        let byLength = Self.expansions.indices.sorted { Self.expansions[$0].count > Self.expansions[$1].count }
        while !rest.isEmpty {
            if let code = byLength.first(where: { rest.hasPrefix(Self.expansions[$0]) }) {
                encoded.append(UInt8(code))
                rest = rest.dropFirst(Self.expansions[code].count)
                continue
            }
            guard let ascii = rest.unicodeScalars.first?.value, (0x21...0x7E).contains(ascii) else {
                throw ByteEncodingError(field: "url", detail: "only printable ASCII can be encoded")
            }
            encoded.append(UInt8(ascii))
            rest = Substring(rest.unicodeScalars.dropFirst())
        }
        guard encoded.count <= 17 else { throw ByteEncodingError(field: "url", detail: "needs \(encoded.count) bytes, at most 17 fit") }
        writer.write(UInt8(0x10))
        writer.write(txPowerAt0m)
        writer.write(UInt8(scheme))
        writer.write(bytes: encoded)
    }
}

/// Eddystone-TLM (unencrypted, version 0):
/// `20 00 <battery mV> <temperature, signed 8.8 fixed point> <advertising count> <uptime, 0.1 s>`.
public struct EddystoneTLM: Hashable, Sendable, ByteCodable {
    /// Battery voltage in millivolts; nil when the beacon does not measure it (sent as 0).
    public var batteryVoltage: UInt16?
    /// Beacon temperature in °C, in steps of 1/256; nil when not measured (sent as 0x8000).
    public var temperature: Double?
    /// Advertising PDUs sent since power-on or reboot.
    public var advertisingCount: UInt32
    /// Time since power-on or reboot, in units of 0.1 s.
    public var uptimeTenths: UInt32

    /// An Eddystone-TLM frame: battery in mV, temperature in °C (nil: not supported), frames sent, uptime in 0.1 s.
    public init(batteryVoltage: UInt16?, temperature: Double?, advertisingCount: UInt32, uptimeTenths: UInt32) {
        self.batteryVoltage = batteryVoltage
        self.temperature = temperature
        self.advertisingCount = advertisingCount
        self.uptimeTenths = uptimeTenths
    }

    /// Time since power-on or reboot.
    public var uptime: Duration { .milliseconds(Int64(uptimeTenths) * 100) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try EddystoneFrame.expectType(0x20, in: &reader)
        let versionOffset = reader.offset
        let version = try reader.read(UInt8.self, field: "version")
        guard version == 0 else {
            throw reader.invalidValue("TLM version \(version) (only 0, unencrypted, is readable)", field: "version", at: versionOffset)
        }
        let voltage = try reader.read(UInt16.self, byteOrder: .bigEndian, field: "batteryVoltage")
        batteryVoltage = voltage == 0 ? nil : voltage
        let temperature = try reader.read(Int16.self, byteOrder: .bigEndian, field: "temperature")
        self.temperature = temperature == Int16.min ? nil : Double(temperature) / 256
        advertisingCount = try reader.read(UInt32.self, byteOrder: .bigEndian, field: "advertisingCount")
        uptimeTenths = try reader.read(UInt32.self, byteOrder: .bigEndian, field: "uptime")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var fixed = Int16.min
        if let temperature {
            let scaled = (temperature * 256).rounded()
            guard scaled > Double(Int16.min), scaled <= Double(Int16.max) else {
                throw ByteEncodingError(field: "temperature", detail: "\(temperature) °C is outside the 8.8 range")
            }
            fixed = Int16(scaled)
        }
        writer.write(bytes: [0x20, 0x00])
        writer.write(batteryVoltage ?? 0, byteOrder: .bigEndian)
        writer.write(fixed, byteOrder: .bigEndian)
        writer.write(advertisingCount, byteOrder: .bigEndian)
        writer.write(uptimeTenths, byteOrder: .bigEndian)
    }
}

extension EddystoneFrame {
    static func expectType(_ type: UInt8, in reader: inout ByteReader) throws(ByteDecodingError) {
        let offset = reader.offset
        let found = try reader.read(UInt8.self, field: "frameType")
        guard found == type else {
            throw reader.invalidValue("frame type 0x\(Hex.encode([found])), expected 0x\(Hex.encode([type]))", field: "frameType", at: offset)
        }
    }
}

// MARK: - Advertising data

extension AdvertisingData {
    /// The iBeacon frame in the manufacturer data, if any.
    public var iBeacon: IBeacon? { manufacturerData?.iBeacon }

    /// The Eddystone frame in the service data for 0xFEAA, if any and well-formed.
    public var eddystone: EddystoneFrame? {
        guard let frame = serviceData[EddystoneFrame.serviceUUID] else { return nil }
        return try? EddystoneFrame(decoding: frame)
    }

    /// The advertisement of an iBeacon: Flags (LE general discoverable, no BR/EDR) and the
    /// Apple manufacturer data, 30 bytes.
    public init(iBeacon beacon: IBeacon) {
        let manufacturer = ManufacturerData(iBeacon: beacon)
        self.init(structures: [
            Structure(type: .flags, data: [0x06]),
            Structure(
                type: .manufacturerSpecificData,
                data: [UInt8(manufacturer.companyID & 0xFF), UInt8(manufacturer.companyID >> 8)] + manufacturer.data),
        ])
    }

    /// The advertisement of an Eddystone beacon: Flags, the 16-bit service UUID list with 0xFEAA,
    /// and the frame as service data.
    public init(eddystone frame: EddystoneFrame) throws(ByteEncodingError) {
        self.init(structures: [
            Structure(type: .flags, data: [0x06]),
            Structure(type: .completeList16BitServiceUUIDs, data: [0xAA, 0xFE]),
            Structure(type: .serviceData16BitUUID, data: [0xAA, 0xFE] + (try frame.encodedBytes())),
        ])
    }
}
