import HaraldCodec

/// One AD structure: `[length][type][data (length − 1 bytes)]`.
public struct ADStructure: Hashable, Sendable {
    /// The AD type (0x01 flags, 0x09 complete local name, 0xFF manufacturer data, …).
    public var type: UInt8
    public var data: [UInt8]

    public init(type: UInt8, data: [UInt8]) {
        self.type = type
        self.data = data
    }
}

/// AD types (Assigned Numbers §2.3) the parser gives meaning to.
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteUUIDs16: UInt8 = 0x02
    public static let completeUUIDs16: UInt8 = 0x03
    public static let incompleteUUIDs32: UInt8 = 0x04
    public static let completeUUIDs32: UInt8 = 0x05
    public static let incompleteUUIDs128: UInt8 = 0x06
    public static let completeUUIDs128: UInt8 = 0x07
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let txPowerLevel: UInt8 = 0x0A
    public static let solicitationUUIDs16: UInt8 = 0x14
    public static let solicitationUUIDs128: UInt8 = 0x15
    public static let serviceData16: UInt8 = 0x16
    public static let appearance: UInt8 = 0x19
    public static let solicitationUUIDs32: UInt8 = 0x1F
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturerSpecificData: UInt8 = 0xFF
}

/// Advertising or scan-response data: a run of AD structures, with their common meanings.
///
/// Decoding is strict (``init(decoding:)`` throws on a structure running past the end); scanning
/// uses ``init(lenient:)``, which keeps the structures before a broken one, since a peer's bad
/// advertising must not hide it.
public struct AdvertisingData: Hashable, Sendable, ByteDecodable {
    /// The structures in the order they came (zero-length padding is skipped).
    public var structures: [ADStructure]

    public init(structures: [ADStructure] = []) {
        self.structures = structures
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        structures = []
        while !reader.isAtEnd {
            let length = try reader.read(UInt8.self, field: "length")
            if length == 0 { continue }  // padding, common after the last structure
            let type = try reader.read(UInt8.self, field: "type")
            let data = try reader.readBytes(count: Int(length) - 1, field: "data")
            structures.append(ADStructure(type: type, data: data))
        }
    }

    /// Parses as far as the data is well formed; `isMalformed` tells whether something was cut.
    public init(lenient bytes: [UInt8]) {
        structures = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 {
                index += 1
                continue
            }
            guard index + 1 + length <= bytes.count else {
                isMalformed = true
                break
            }
            structures.append(ADStructure(type: bytes[index + 1], data: Array(bytes[(index + 2)..<(index + 1 + length)])))
            index += 1 + length
        }
    }

    /// True when ``init(lenient:)`` met a structure running past the end.
    public private(set) var isMalformed = false

    /// The wire form of the structures.
    public var bytes: [UInt8] {
        structures.flatMap { [UInt8(truncatingIfNeeded: $0.data.count + 1), $0.type] + $0.data }
    }

    /// The data of every structure of one type.
    public func values(of type: UInt8) -> [[UInt8]] { structures.filter { $0.type == type }.map(\.data) }

    // MARK: Meanings

    /// Flags (bit 0 LE limited discoverable, 1 LE general discoverable, 2 BR/EDR not supported).
    public var flags: UInt8? { values(of: ADType.flags).first?.first }

    /// The complete local name, else the shortened one (invalid UTF-8 is repaired).
    public var localName: String? {
        let raw = values(of: ADType.completeLocalName).first ?? values(of: ADType.shortenedLocalName).first
        return raw.map { String(decoding: $0, as: UTF8.self) }
    }

    /// True when ``localName`` is the complete name.
    public var isLocalNameComplete: Bool { !values(of: ADType.completeLocalName).isEmpty }

    /// Service UUIDs from the complete and incomplete 16-, 32- and 128-bit lists, in order, without
    /// duplicates. Partial trailing bytes of a list are ignored.
    public var serviceUUIDs: [BluetoothUUID] {
        uuids(in: [
            (ADType.incompleteUUIDs16, 2), (ADType.completeUUIDs16, 2), (ADType.incompleteUUIDs32, 4),
            (ADType.completeUUIDs32, 4), (ADType.incompleteUUIDs128, 16), (ADType.completeUUIDs128, 16),
        ])
    }

    /// Service solicitation UUIDs (16-, 32- and 128-bit).
    public var solicitedServiceUUIDs: [BluetoothUUID] {
        uuids(in: [(ADType.solicitationUUIDs16, 2), (ADType.solicitationUUIDs32, 4), (ADType.solicitationUUIDs128, 16)])
    }

    /// Service data, keyed by the service UUID that leads each structure.
    public var serviceData: [ServiceData] {
        var result: [ServiceData] = []
        for structure in structures {
            let width: Int
            switch structure.type {
            case ADType.serviceData16: width = 2
            case ADType.serviceData32: width = 4
            case ADType.serviceData128: width = 16
            default: continue
            }
            guard structure.data.count >= width, let uuid = Self.uuid(structure.data.prefix(width)) else { continue }
            result.append(ServiceData(uuid: uuid, data: Array(structure.data.dropFirst(width))))
        }
        return result
    }

    /// Manufacturer specific data: the company identifier (little-endian on air) and the rest.
    public var manufacturerData: [ManufacturerData] {
        values(of: ADType.manufacturerSpecificData).compactMap { data in
            guard data.count >= 2 else { return nil }
            return ManufacturerData(companyID: UInt16(data[0]) | UInt16(data[1]) << 8, data: Array(data.dropFirst(2)))
        }
    }

    /// Transmit power level in dBm.
    public var txPowerLevel: Int8? {
        values(of: ADType.txPowerLevel).first?.first.map { Int8(bitPattern: $0) }
    }

    /// GAP appearance (a category and subcategory, e.g. 0x0341 heart-rate belt).
    public var appearance: UInt16? {
        guard let data = values(of: ADType.appearance).first, data.count >= 2 else { return nil }
        return UInt16(data[0]) | UInt16(data[1]) << 8
    }

    private func uuids(in lists: [(type: UInt8, width: Int)]) -> [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for structure in structures {
            guard let width = lists.first(where: { $0.type == structure.type })?.width else { continue }
            var index = 0
            while index + width <= structure.data.count {
                if let uuid = Self.uuid(structure.data[index..<(index + width)]), !result.contains(uuid) {
                    result.append(uuid)
                }
                index += width
            }
        }
        return result
    }

    /// A UUID from its little-endian wire bytes (2, 4 or 16 of them).
    static func uuid(_ bytes: ArraySlice<UInt8>) -> BluetoothUUID? {
        let value = Array(bytes)
        switch value.count {
        case 2: return BluetoothUUID(UInt16(value[0]) | UInt16(value[1]) << 8)
        case 4: return BluetoothUUID(uuid32: value.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16: return BluetoothUUID(bigEndianBytes: value.reversed())
        default: return nil
        }
    }
}

/// Service data from an advertisement.
public struct ServiceData: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var data: [UInt8]

    public init(uuid: BluetoothUUID, data: [UInt8]) {
        self.uuid = uuid
        self.data = data
    }
}

/// Manufacturer specific data from an advertisement.
public struct ManufacturerData: Hashable, Sendable {
    /// Bluetooth SIG company identifier (0x004C Apple, 0x02F2 GoPro, …).
    public var companyID: UInt16
    public var data: [UInt8]

    public init(companyID: UInt16, data: [UInt8]) {
        self.companyID = companyID
        self.data = data
    }
}
