import HaraldCodec
import HaraldCore

/// One report of LE Advertising Report (0x3E/0x02): a legacy advertising PDU or scan response.
public struct LEAdvertisingReport: Hashable, Sendable, ByteDecodable {
    /// Legacy PDU types.
    public enum EventType: UInt8, Hashable, Sendable {
        /// Connectable and scannable undirected (ADV_IND).
        case advInd = 0x00
        /// Connectable directed (ADV_DIRECT_IND).
        case advDirectInd = 0x01
        /// Scannable undirected (ADV_SCAN_IND).
        case advScanInd = 0x02
        /// Non-connectable undirected (ADV_NONCONN_IND).
        case advNonconnInd = 0x03
        /// Scan response (SCAN_RSP).
        case scanResponse = 0x04
    }

    /// The advertising PDU type received (ADV_IND, ADV_SCAN_IND, SCAN_RSP, …).
    public var eventType: EventType
    /// The advertiser's device address and its type.
    public var address: BluetoothAddress
    /// The AD structures, raw (at most 31 bytes).
    public var data: [UInt8]
    /// Signal strength in dBm; 127 = not available.
    public var rssi: Int8

    /// A report; `rssi` is in dBm (127: not available).
    public init(eventType: EventType, address: BluetoothAddress, data: [UInt8], rssi: Int8) {
        self.eventType = eventType
        self.address = address
        self.data = data
        self.rssi = rssi
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let rawType = try reader.read(UInt8.self, field: "eventType")
        guard let type = EventType(rawValue: rawType) else {
            throw reader.invalidValue("unknown event type 0x\(Hex.byte(rawType))", field: "eventType", at: start)
        }
        eventType = type
        address = try BluetoothAddress.read(from: &reader, typeField: "addressType", addressField: "address")
        let length = try reader.read(UInt8.self, field: "dataLength")
        guard length <= 31 else {
            throw reader.invalidValue("\(length) bytes of legacy advertising data, at most 31", field: "dataLength")
        }
        data = try reader.readBytes(count: Int(length), field: "data")
        rssi = try reader.read(Int8.self, field: "rssi")
    }
}

/// One report of LE Extended Advertising Report (0x3E/0x0D).
public struct LEExtendedAdvertisingReport: Hashable, Sendable, ByteDecodable {
    /// Event type bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU,
    /// 5-6 data status.
    public var eventType: UInt16
    /// The advertiser's device address and its type.
    public var address: BluetoothAddress
    /// The PHY of the primary advertising channel: 1 = LE 1M, 3 = LE Coded.
    public var primaryPHY: UInt8
    /// The PHY of the secondary channel: 0 none, 1 = LE 1M, 2 = LE 2M, 3 = LE Coded.
    public var secondaryPHY: UInt8
    /// The advertising set identifier (0…15; 0xFF: none).
    public var advertisingSID: UInt8
    /// dBm; 127 = not available.
    public var txPower: Int8
    /// dBm; 127 = not available.
    public var rssi: Int8
    /// Units of 1.25 ms; 0 = no periodic advertising.
    public var periodicAdvertisingInterval: UInt16
    /// The address a directed advertisement is addressed to.
    public var directAddress: BluetoothAddress?
    /// This fragment's AD bytes (up to 229 per event; long data comes in several reports).
    public var data: [UInt8]

    /// Whether the data is complete or more fragments follow.
    public enum DataStatus: UInt8, Hashable, Sendable {
        /// The report carries the last (or only) fragment of the data.
        case complete = 0
        /// More fragments of the same data follow in later reports.
        case incompleteMoreToCome = 1
        /// The controller gave up on the data: what arrived is all there will be.
        case incompleteTruncated = 2
        /// A value the specification reserves.
        case reserved = 3
    }

    /// Event type bit 0: the advertisement accepts connections.
    public var isConnectable: Bool { eventType & 0x01 != 0 }
    /// Event type bit 1: the advertiser answers scan requests.
    public var isScannable: Bool { eventType & 0x02 != 0 }
    /// Event type bit 2: the advertisement is addressed to one device.
    public var isDirected: Bool { eventType & 0x04 != 0 }
    /// Event type bit 3: this is a scan response.
    public var isScanResponse: Bool { eventType & 0x08 != 0 }
    /// Event type bit 4: a legacy advertising PDU.
    public var isLegacy: Bool { eventType & 0x10 != 0 }
    /// Event type bits 5–6: whether the data is complete.
    public var dataStatus: DataStatus { DataStatus(rawValue: UInt8((eventType >> 5) & 0x03)) ?? .reserved }

    /// A report from its fields; `txPower` and `rssi` are in dBm (127: not available).
    public init(
        eventType: UInt16, address: BluetoothAddress, primaryPHY: UInt8 = 1, secondaryPHY: UInt8 = 0, advertisingSID: UInt8 = 0xFF,
        txPower: Int8 = 127, rssi: Int8, periodicAdvertisingInterval: UInt16 = 0, directAddress: BluetoothAddress? = nil, data: [UInt8]
    ) {
        self.eventType = eventType
        self.address = address
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.txPower = txPower
        self.rssi = rssi
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddress = directAddress
        self.data = data
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        eventType = try reader.read(UInt16.self, field: "eventType")
        address = try BluetoothAddress.read(from: &reader, typeField: "addressType", addressField: "address")
        primaryPHY = try reader.read(UInt8.self, field: "primaryPHY")
        secondaryPHY = try reader.read(UInt8.self, field: "secondaryPHY")
        advertisingSID = try reader.read(UInt8.self, field: "advertisingSID")
        txPower = try reader.read(Int8.self, field: "txPower")
        rssi = try reader.read(Int8.self, field: "rssi")
        periodicAdvertisingInterval = try reader.read(UInt16.self, field: "periodicAdvertisingInterval")
        let directTypeRaw = try reader.read(UInt8.self, field: "directAddressType")
        let direct = try BluetoothAddress(from: &reader, kind: (LEAddressType(rawValue: directTypeRaw) ?? .random).kind, field: "directAddress")
        directAddress = eventType & 0x04 != 0 ? direct : nil
        let length = try reader.read(UInt8.self, field: "dataLength")
        data = try reader.readBytes(count: Int(length), field: "data")
    }
}
