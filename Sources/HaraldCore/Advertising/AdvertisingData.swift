import HaraldCodec

/// The content of an advertisement (and its scan response): a list of AD structures
/// `[length][type][data]`, parsed into typed fields with the raw structures kept.
///
/// Parsing is lenient in the way scanners must be: a structure with a zero length ends the data
/// (the rest is padding), unknown types are kept in ``structures``, and a malformed structure
/// (a UUID list whose length is not a multiple of the UUID size, say) is kept raw but not
/// interpreted. ``init(validating:)`` is the strict variant that throws on malformed input.
public struct AdvertisingData: Hashable, Sendable {
    /// One AD structure as it appeared on air.
    public struct Structure: Hashable, Sendable {
        /// What the structure carries.
        public var type: AdvertisingDataType
        /// Its data, without the length and type octets.
        public var data: [UInt8]
        /// A structure of `type` carrying `data`.
        public init(type: AdvertisingDataType, data: [UInt8]) {
            self.type = type
            self.data = data
        }
    }

    /// Every structure, in order, including ones Harald does not interpret.
    public var structures: [Structure]

    /// Advertising data made of `structures`, in order.
    public init(structures: [Structure] = []) {
        self.structures = structures
    }

    // MARK: Parsing

    /// Parses AD structures, leniently (see the type's documentation).
    public init<Bytes: Collection<UInt8>>(parsing bytes: Bytes) {
        self.structures = (try? Self.parse(Array(bytes), strict: false)) ?? []
    }

    /// Parses AD structures, throwing on a length that runs past the end or a malformed known
    /// structure.
    public init<Bytes: Collection<UInt8>>(validating bytes: Bytes) throws(ByteDecodingError) {
        self.structures = try Self.parse(Array(bytes), strict: true)
        for structure in structures { try Self.validate(structure) }
    }

    private static func parse(_ bytes: [UInt8], strict: Bool) throws(ByteDecodingError) -> [Structure] {
        var result: [Structure] = []
        try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) in
            while !reader.isAtEnd {
                let start = reader.offset
                let length = Int(try reader.read(UInt8.self, field: "length"))
                if length == 0 { break }  // padding: the significant part has ended
                guard reader.remainingCount >= length else {
                    if strict {
                        throw ByteDecodingError(
                            typeName: "AdvertisingData", field: "structure", offset: start,
                            reason: .truncated(needed: length, available: reader.remainingCount))
                    }
                    break
                }
                let type = try reader.read(UInt8.self, field: "type")
                let data = try reader.readBytes(count: length - 1, field: "data")
                result.append(Structure(type: AdvertisingDataType(rawValue: type), data: data))
            }
        }
        return result
    }

    private static func validate(_ structure: Structure) throws(ByteDecodingError) {
        let width: Int? =
            switch structure.type {
            case .incompleteList16BitServiceUUIDs, .completeList16BitServiceUUIDs, .solicitation16BitServiceUUIDs: 2
            case .incompleteList32BitServiceUUIDs, .completeList32BitServiceUUIDs, .solicitation32BitServiceUUIDs: 4
            case .incompleteList128BitServiceUUIDs, .completeList128BitServiceUUIDs, .solicitation128BitServiceUUIDs: 16
            default: nil
            }
        func fail(_ detail: String) -> ByteDecodingError {
            ByteDecodingError(
                typeName: "AdvertisingData", field: "type 0x\(String(structure.type.rawValue, radix: 16))",
                offset: 0, reason: .invalidValue(detail))
        }
        if let width, structure.data.count % width != 0 { throw fail("UUID list of \(structure.data.count) bytes") }
        switch structure.type {
        case .flags, .txPowerLevel: if structure.data.count != 1 { throw fail("expected 1 byte") }
        case .appearance: if structure.data.count != 2 { throw fail("expected 2 bytes") }
        case .manufacturerSpecificData, .serviceData16BitUUID: if structure.data.count < 2 { throw fail("too short") }
        case .serviceData32BitUUID: if structure.data.count < 4 { throw fail("too short") }
        case .serviceData128BitUUID: if structure.data.count < 16 { throw fail("too short") }
        case .completeLocalName, .shortenedLocalName:
            if String(validatingUTF8Bytes: structure.data) == nil { throw fail("name is not UTF-8") }
        default: break
        }
    }

    /// The structures back in wire form.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for structure in structures {
            let data = structure.data.prefix(254)
            out.append(UInt8(data.count + 1))
            out.append(structure.type.rawValue)
            out.append(contentsOf: data)
        }
        return out
    }

    /// The data of every structure of `type`.
    public func data(of type: AdvertisingDataType) -> [[UInt8]] {
        structures.filter { $0.type == type }.map(\.data)
    }

    // MARK: Typed fields

    /// The Flags structure (discoverable mode, BR/EDR support), if present.
    public var flags: Flags<AdvertisingFlag, UInt8>? {
        guard let data = data(of: .flags).first, data.count == 1 else { return nil }
        return Flags(rawValue: data[0])
    }

    /// The complete local name, else the shortened one. Invalid UTF-8 is repaired, not rejected.
    public var localName: String? {
        let name = data(of: .completeLocalName).first ?? data(of: .shortenedLocalName).first
        return name.map { String(decoding: $0, as: UTF8.self) }
    }

    /// True when ``localName`` came from a shortened-name structure.
    public var isLocalNameShortened: Bool {
        data(of: .completeLocalName).isEmpty && !data(of: .shortenedLocalName).isEmpty
    }

    /// Advertised service UUIDs from the 16-, 32- and 128-bit lists, complete or not, in order of
    /// first appearance, each once.
    public var serviceUUIDs: [BluetoothUUID] {
        uuids(in: [
            .incompleteList16BitServiceUUIDs, .completeList16BitServiceUUIDs,
            .incompleteList32BitServiceUUIDs, .completeList32BitServiceUUIDs,
            .incompleteList128BitServiceUUIDs, .completeList128BitServiceUUIDs,
        ])
    }

    /// Service UUIDs the advertiser would like a central to offer (solicitation).
    public var solicitedServiceUUIDs: [BluetoothUUID] {
        uuids(in: [.solicitation16BitServiceUUIDs, .solicitation32BitServiceUUIDs, .solicitation128BitServiceUUIDs])
    }

    /// Service data, by service UUID (the first structure wins for a repeated UUID).
    public var serviceData: [BluetoothUUID: [UInt8]] {
        var result: [BluetoothUUID: [UInt8]] = [:]
        for structure in structures {
            let width: Int
            switch structure.type {
            case .serviceData16BitUUID: width = 2
            case .serviceData32BitUUID: width = 4
            case .serviceData128BitUUID: width = 16
            default: continue
            }
            guard structure.data.count >= width,
                let uuid = try? ByteReader.withReader(
                    structure.data.prefix(width),
                    { (reader) throws(ByteDecodingError) in
                        try BluetoothUUID.read(from: &reader, byteCount: width, field: "uuid")
                    })
            else { continue }
            if result[uuid] == nil { result[uuid] = Array(structure.data.dropFirst(width)) }
        }
        return result
    }

    /// Manufacturer-specific data: the company identifier (Assigned Numbers) and the bytes after it.
    public var manufacturerData: ManufacturerData? {
        guard let data = data(of: .manufacturerSpecificData).first, data.count >= 2 else { return nil }
        return ManufacturerData(companyID: UInt16(data[0]) | UInt16(data[1]) << 8, data: Array(data.dropFirst(2)))
    }

    /// Transmit power level in dBm, used with RSSI to estimate path loss.
    public var txPowerLevel: Int8? {
        guard let data = data(of: .txPowerLevel).first, data.count == 1 else { return nil }
        return Int8(bitPattern: data[0])
    }

    /// The GAP Appearance value (category << 6 | subcategory).
    public var appearance: UInt16? {
        guard let data = data(of: .appearance).first, data.count == 2 else { return nil }
        return UInt16(data[0]) | UInt16(data[1]) << 8
    }

    private func uuids(in types: [AdvertisingDataType]) -> [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for structure in structures where types.contains(structure.type) {
            let width: Int
            switch structure.type.rawValue {
            case 0x02, 0x03, 0x14: width = 2
            case 0x04, 0x05, 0x1F: width = 4
            default: width = 16
            }
            guard structure.data.count % width == 0 else { continue }
            var index = structure.data.startIndex
            while index < structure.data.endIndex {
                let chunk = structure.data[index..<(index + width)]
                if let uuid = try? ByteReader.withReader(
                    chunk,
                    { (reader) throws(ByteDecodingError) in
                        try BluetoothUUID.read(from: &reader, byteCount: width, field: "uuid")
                    }), !result.contains(uuid)
                {
                    // A UUID repeated in the scan response (or a second list) is one service.
                    result.append(uuid)
                }
                index += width
            }
        }
        return result
    }
}

/// Manufacturer-specific advertising data.
public struct ManufacturerData: Hashable, Sendable {
    /// The Bluetooth SIG company identifier (0x004C Apple, 0x0059 Nordic, 0x02F2 GoPro, …).
    public var companyID: UInt16
    /// The bytes after the company identifier.
    public var data: [UInt8]

    /// Manufacturer data: `companyID` from the SIG's assigned numbers (0x004C Apple, 0x0059 Nordic, …), then the company's bytes.
    public init(companyID: UInt16, data: [UInt8]) {
        self.companyID = companyID
        self.data = data
    }
}

extension String {
    /// Nil unless `bytes` are valid UTF-8.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        let invalid = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        if invalid { return nil }
        self = String(decoding: bytes, as: UTF8.self)
    }
}

// MARK: Codable

/// Coded as one string: the AD structures in wire form (``bytes``) as lower-case hex without
/// separators (`"02010603030d18"`), the form Harald's logs and test vectors use; hex rather than
/// base64 so a stored advertisement can be read and compared by eye.
///
/// Decoding reads hex as ``HaraldCodec/Hex/decode(_:)`` does and checks the framing: every
/// structure must fit in the bytes, and a zero length may only start padding of zero bytes.
/// Anything else throws `DecodingError.dataCorrupted`. The contents of structures are not
/// validated, as when scanning, so everything a scan produced decodes back to an equal value.
/// Encoding throws for a structure of more than 254 data bytes, which no length byte describes.
extension AdvertisingData: Codable {
    /// Reads the AD structures from a single hex string, checking their length framing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let bytes: [UInt8]
        do { bytes = try Hex.decode(text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "advertising data: \(error)")
        }
        do { structures = try Self.parse(bytes, strict: true) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "advertising data: \(error)")
        }
        let framed = structures.reduce(0) { $0 + 2 + $1.data.count }
        guard bytes[framed...].allSatisfy({ $0 == 0 }) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "advertising data: bytes after the zero length at offset \(framed) are not padding")
        }
    }

    /// Writes the AD structures in wire form as one lower-case hex string, such as `"02010603030d18"`.
    public func encode(to encoder: any Encoder) throws {
        if let long = structures.first(where: { $0.data.count > 254 }) {
            throw EncodingError.invalidValue(
                self,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "an AD structure of type 0x\(Hex.byte(long.type.rawValue)) has \(long.data.count) data bytes; at most 254 fit"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(Hex.encode(bytes))
    }
}
