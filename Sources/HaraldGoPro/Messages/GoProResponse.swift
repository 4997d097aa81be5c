import HaraldCodec

/// A command or setting response (`[id][status][payload…]`, GP-0073 and GP-0075), or any
/// response seen only as its first two bytes.
public struct GoProResponse: Sendable, Hashable {
    /// The command ID (GP-0073), setting ID (GP-0075) or query ID (GP-0077) answered.
    public var id: UInt8
    /// The result.
    public var status: GoProStatusCode
    /// The bytes after ID and status (indices are those of the message, starting at 2).
    public var payload: ArraySlice<UInt8>

    /// A response to command or setting `id`.
    public init(id: UInt8, status: GoProStatusCode, payload: ArraySlice<UInt8> = []) {
        self.id = id
        self.status = status
        self.payload = payload
    }

    /// Reads a reassembled message; needs at least the ID and status bytes.
    public init(message: [UInt8]) throws(ByteDecodingError) {
        guard message.count >= 2 else {
            throw ByteDecodingError(
                typeName: "GoProResponse", field: message.isEmpty ? "id" : "status", offset: message.count,
                reason: .truncated(needed: 1, available: 0))
        }
        id = message[0]
        status = GoProStatusCode(rawValue: message[1])
        payload = message[2...]
    }

    /// The command answered (meaningful on GP-0073).
    public var commandID: GoProCommandID { GoProCommandID(id) }
    /// The setting answered (meaningful on GP-0075).
    public var settingID: GoProSettingID { GoProSettingID(id) }
}

/// A query response or push on GP-0077: `[query id][status]` then `[id][length][value]…`.
public struct GoProQueryResponse: Sendable, Hashable {
    /// Which query this answers (or which push it is).
    public var queryID: GoProQueryID
    /// The result.
    public var status: GoProStatusCode
    /// The setting, status or capability values, by ID.
    public var values: GoProValues

    /// Reads a reassembled message without copying it.
    public init(message: [UInt8]) throws(ByteDecodingError) {
        guard message.count >= 2 else {
            throw ByteDecodingError(
                typeName: "GoProQueryResponse", field: message.isEmpty ? "queryID" : "status", offset: message.count,
                reason: .truncated(needed: 1, available: 0))
        }
        queryID = GoProQueryID(message[0])
        status = GoProStatusCode(rawValue: message[1])
        do {
            values = try GoProValues(bytes: message, start: 2)
        } catch {
            var error = error
            error.typeName = "GoProQueryResponse"
            throw error
        }
    }

    /// A response to query `queryID` (or a push: 0x92, 0x93, 0xA2).
    public init(queryID: GoProQueryID, status: GoProStatusCode, values: GoProValues) {
        self.queryID = queryID
        self.status = status
        self.values = values
    }
}

/// An unsolicited value update on GP-0077 for IDs registered with a Register query.
public enum GoProPush: Sendable, Hashable {
    /// 0x92: settings changed.
    case settingValues(GoProValues)
    /// 0x93: statuses changed.
    case statusValues(GoProValues)
    /// 0xA2: settings' allowed values changed.
    case settingCapabilities(GoProValues)

    /// The push in a query response, or nil when the response is not a push.
    public init?(_ response: GoProQueryResponse) {
        switch response.queryID {
        case .settingValuePush: self = .settingValues(response.values)
        case .statusValuePush: self = .statusValues(response.values)
        case .settingCapabilityPush: self = .settingCapabilities(response.values)
        default: return nil
        }
    }

    /// Reads a reassembled GP-0077 message; throws when it is malformed or not a push.
    public init(message: [UInt8]) throws(ByteDecodingError) {
        let response = try GoProQueryResponse(message: message)
        guard let push = GoProPush(response) else {
            throw ByteDecodingError(
                typeName: "GoProPush", field: "queryID", offset: 0,
                reason: .invalidValue("0x\(Hex.byte(response.queryID.rawValue)) is not a push (0x92, 0x93, 0xA2)"))
        }
        self = push
    }

    /// The pushed values.
    public var values: GoProValues {
        switch self {
        case let .settingValues(values), let .statusValues(values), let .settingCapabilities(values): return values
        }
    }
}
