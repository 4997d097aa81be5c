import HaraldCodec

/// The answer to Get Hardware Info (command 0x3C): after ID and status, length-prefixed fields.
///
/// A success answer also means the camera is ready for BLE commands.
public struct GoProHardwareInfo: Sendable, Hashable {
    /// Model number (62 = HERO12 Black), big-endian, up to 4 bytes.
    public var modelNumber: UInt32
    /// Model name, such as `HERO12 Black`.
    public var modelName: String
    /// Board type (deprecated field, such as `0x05`).
    public var boardType: String
    /// Firmware version, such as `H23.01.01.99.56`.
    public var firmwareVersion: String
    /// Serial number.
    public var serialNumber: String
    /// SSID of the camera's Wi-Fi access point.
    public var accessPointSSID: String
    /// MAC address of the access point, as the camera spells it (such as `2674f7f66104`).
    public var accessPointMAC: String
    /// Bytes after the known fields (reserved), kept as they are.
    public var reserved: [UInt8]

    /// Hardware info from its fields, as Get Hardware Info returns them.
    public init(
        modelNumber: UInt32, modelName: String, boardType: String, firmwareVersion: String, serialNumber: String,
        accessPointSSID: String, accessPointMAC: String, reserved: [UInt8] = []
    ) {
        self.modelNumber = modelNumber
        self.modelName = modelName
        self.boardType = boardType
        self.firmwareVersion = firmwareVersion
        self.serialNumber = serialNumber
        self.accessPointSSID = accessPointSSID
        self.accessPointMAC = accessPointMAC
        self.reserved = reserved
    }

    /// Reads the payload (the bytes after ID and status).
    public init<Bytes: Collection<UInt8>>(payload: Bytes) throws(ByteDecodingError) {
        self = try ByteReader.withReader(payload) { (reader) throws(ByteDecodingError) -> GoProHardwareInfo in
            let numberLength = Int(try reader.read(UInt8.self, field: "modelNumber.length"))
            guard numberLength <= 4 else {
                throw reader.invalidValue("\(numberLength) bytes, at most 4", field: "modelNumber.length", at: reader.offset - 1)
            }
            var number: UInt32 = 0
            for byte in try reader.readBytes(count: numberLength, field: "modelNumber") { number = number << 8 | UInt32(byte) }
            func text(_ field: String) throws(ByteDecodingError) -> String {
                let length = Int(try reader.read(UInt8.self, field: field + ".length"))
                return try reader.readUTF8(count: length, field: field, trimmingNulls: true)
            }
            let name = try text("modelName")
            let board = try text("boardType")
            let firmware = try text("firmwareVersion")
            let serial = try text("serialNumber")
            let ssid = try text("accessPointSSID")
            let mac = try text("accessPointMAC")
            return GoProHardwareInfo(
                modelNumber: number, modelName: name, boardType: board, firmwareVersion: firmware, serialNumber: serial,
                accessPointSSID: ssid, accessPointMAC: mac, reserved: reader.readRemainingBytes())
        }
    }

    /// Reads a whole Get Hardware Info response; throws unless its ID is 0x3C and its status
    /// success.
    public init(response: GoProResponse) throws(ByteDecodingError) {
        try GoProResponse.require(response, id: GoProCommandID.getHardwareInfo.rawValue, type: "GoProHardwareInfo")
        do {
            try self.init(payload: response.payload)
        } catch {
            var error = error
            error.typeName = "GoProHardwareInfo"
            error.offset += 2
            throw error
        }
    }
}

/// The answer to Get Open GoPro Version (command 0x51): `[1][major][1][minor]` after ID and status.
public struct GoProOpenGoProVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version of the Open GoPro API (2 on current cameras).
    public var major: Int
    /// The minor version.
    public var minor: Int

    /// A version from its parts.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// Reads the payload (the bytes after ID and status); each part is a length-prefixed
    /// big-endian integer of 1…7 bytes. Cameras send one byte per part and the protocol sets no
    /// upper bound; seven bytes is the most that always fits a non-negative `Int`, so a longer
    /// part (or an empty one) is rejected.
    public init<Bytes: Collection<UInt8>>(payload: Bytes) throws(ByteDecodingError) {
        self = try ByteReader.withReader(payload) { (reader) throws(ByteDecodingError) -> GoProOpenGoProVersion in
            func part(_ field: String) throws(ByteDecodingError) -> Int {
                let length = Int(try reader.read(UInt8.self, field: field + ".length"))
                guard (1...7).contains(length) else {
                    throw reader.invalidValue("\(length) bytes, expected 1…7", field: field + ".length", at: reader.offset - 1)
                }
                var value = 0
                for byte in try reader.readBytes(count: length, field: field) { value = value << 8 | Int(byte) }
                return value
            }
            let major = try part("major")
            let minor = try part("minor")
            try reader.expectEnd()
            return GoProOpenGoProVersion(major: major, minor: minor)
        }
    }

    /// Reads a whole Get Open GoPro Version response; throws unless its ID is 0x51 and its
    /// status success.
    public init(response: GoProResponse) throws(ByteDecodingError) {
        try GoProResponse.require(response, id: GoProCommandID.getOpenGoProVersion.rawValue, type: "GoProOpenGoProVersion")
        do {
            try self.init(payload: response.payload)
        } catch {
            var error = error
            error.typeName = "GoProOpenGoProVersion"
            error.offset += 2
            throw error
        }
    }

    /// `2.0`.
    public var description: String { "\(major).\(minor)" }
    /// Orders by major version, then minor: `1.0` < `2.0` < `2.1`.
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.major, lhs.minor) < (rhs.major, rhs.minor) }
}

extension GoProResponse {
    /// Throws unless `response` answers `id` with success.
    static func require(_ response: GoProResponse, id: UInt8, type: String) throws(ByteDecodingError) {
        guard response.id == id else {
            throw ByteDecodingError(
                typeName: type, field: "id", offset: 0,
                reason: .invalidValue("0x\(Hex.byte(response.id)), expected 0x\(Hex.byte(id))"))
        }
        guard response.status.isSuccess else {
            throw ByteDecodingError(typeName: type, field: "status", offset: 1, reason: .invalidValue("\(response.status)"))
        }
    }
}
