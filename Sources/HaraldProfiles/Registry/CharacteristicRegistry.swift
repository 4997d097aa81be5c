import HaraldCodec

/// Maps characteristic UUIDs to their decoders, so that any known value can be shown as JSON by
/// the command line, logs and dumps.
///
/// ``standard`` knows every characteristic of this module. A registry is a value: copy it and
/// register your own types on the copy.
///
/// ```swift
/// var registry = CharacteristicRegistry.standard
/// registry.register(MyVendorValue.self)
/// let json = try registry.entry(for: "2A37")?.describe([0x00, 0x55])   // {"heartRate":85,…}
/// ```
public struct CharacteristicRegistry: Sendable {
    /// One known characteristic: its UUID, name and decoder.
    public struct Entry: Sendable {
        /// The characteristic's UUID.
        public let uuid: BluetoothUUID
        /// Its human-readable name, such as `Heart Rate Measurement`.
        public let name: String
        /// The Swift type that decodes it, such as `HeartRateMeasurement`.
        public let typeName: String
        @usableFromInline let describeBytes: @Sendable ([UInt8]) throws(ByteDecodingError) -> JSONValue
        @usableFromInline let roundTripBytes: (@Sendable ([UInt8]) -> RoundTrip)?

        /// Decodes a whole value (trailing bytes are an error) and describes it as JSON.
        @inlinable
        public func describe(_ bytes: [UInt8]) throws(ByteDecodingError) -> JSONValue {
            try describeBytes(bytes)
        }

        /// Decodes `bytes`, encodes the value again and decodes that: the check a fuzzer runs on
        /// every input. Nil when the type cannot encode.
        public func roundTrip(_ bytes: [UInt8]) -> RoundTrip? {
            roundTripBytes?(bytes)
        }
    }

    /// What ``Entry/roundTrip(_:)`` found.
    public enum RoundTrip: Hashable, Sendable {
        /// The input is not a valid value.
        case rejected(ByteDecodingError)
        /// The value encoded and decoded back to an equal value.
        case stable
        /// A decoded value could not be encoded again (a bug in the type).
        case encodingFailed(ByteEncodingError)
        /// The re-encoded bytes decoded to a different value, or not at all (a bug in the type).
        case changed(reencoded: [UInt8])
    }

    private var table: [BluetoothUUID: Entry] = [:]

    /// An empty registry.
    public init() {}

    /// Every registered characteristic: SIG-assigned UUIDs first, each group ordered by UUID.
    public var entries: [Entry] {
        table.values.sorted { ($0.uuid.isSIGAssigned ? 0 : 1, $0.uuid) < ($1.uuid.isSIGAssigned ? 0 : 1, $1.uuid) }
    }

    /// The entry for `uuid`, if one is registered.
    public func entry(for uuid: BluetoothUUID) -> Entry? { table[uuid] }

    /// Decodes `bytes` as the characteristic `uuid` and describes the value; nil when no decoder
    /// is registered for `uuid` (show the bytes as hex then).
    public func describe(_ bytes: [UInt8], as uuid: BluetoothUUID) throws(ByteDecodingError) -> JSONValue? {
        guard let entry = table[uuid] else { return nil }
        return try entry.describe(bytes)
    }

    /// Registers a decodable type under `uuid`, described by `describe`. A later registration for
    /// the same UUID replaces an earlier one.
    public mutating func register<Value: ByteDecodable & Sendable>(
        _ type: Value.Type, uuid: BluetoothUUID, name: String,
        describe: @escaping @Sendable (Value) -> JSONValue
    ) {
        table[uuid] = Entry(
            uuid: uuid, name: name, typeName: String(describing: Value.self),
            describeBytes: { (bytes) throws(ByteDecodingError) -> JSONValue in describe(try Value(decoding: bytes)) },
            roundTripBytes: nil)
    }

    /// Registers a characteristic type under its own UUID, optionally with another name or
    /// description than the type's own.
    public mutating func register<Value: CharacteristicValue>(
        _ type: Value.Type, name: String? = nil, describe: (@Sendable (Value) -> JSONValue)? = nil
    ) {
        let describe = describe ?? { $0.jsonValue }
        table[Value.uuid] = Entry(
            uuid: Value.uuid, name: name ?? Value.name, typeName: String(describing: Value.self),
            describeBytes: { (bytes) throws(ByteDecodingError) -> JSONValue in describe(try Value(decoding: bytes)) },
            roundTripBytes: { bytes in
                let value: Value
                do throws(ByteDecodingError) { value = try Value(decoding: bytes) } catch { return .rejected(error) }
                let reencoded: [UInt8]
                do throws(ByteEncodingError) { reencoded = try value.encodedBytes() } catch { return .encodingFailed(error) }
                guard let again = try? Value(decoding: reencoded), again == value else { return .changed(reencoded: reencoded) }
                return .stable
            })
    }
}
