import HaraldCodec
import HaraldCore

/// The CCCD (defined in HaraldCore) as a registered descriptor value for `harald decode`.
extension ClientCharacteristicConfiguration: CharacteristicValue {
    public static let name = "Client Characteristic Configuration"

    /// `{notifications, indications, value (raw)}`.
    public var jsonValue: JSONValue {
        .object([
            "notifications": .bool(notificationsEnabled), "indications": .bool(indicationsEnabled),
            "value": .int(rawValue),
        ])
    }
}
