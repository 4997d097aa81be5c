import Harald
import HaraldCodec
import HaraldCore

/// Long reads: CoreBluetooth asks the app for a value once per ATT request, the Read Request and
/// then each Read Blob with its offset. The value a read handler produced at offset 0 is kept
/// for the central's Read Blobs that follow, so a value that changes between them is read as one
/// version, not stitched from several.
extension CoreBluetoothPeripheralBackend {
    /// Which central's long read of which characteristic.
    struct LongReadKey: Hashable {
        let central: CentralIdentifier
        let characteristic: BluetoothUUID
        let service: BluetoothUUID
    }

    /// Values kept for long reads in progress; the oldest goes when a new one would pass the
    /// limit (CoreBluetooth reports no disconnections, so a central that left mid-read is never
    /// seen leaving).
    struct LongReads {
        /// The most kept at once: `longReadLimit` × 512 bytes at most.
        static var limit: Int { 64 }
        /// Oldest first; at most one per central and characteristic.
        private(set) var kept: [(key: LongReadKey, value: [UInt8])] = []

        func value(_ key: LongReadKey) -> [UInt8]? { kept.first { $0.key == key }?.value }

        mutating func keep(_ value: [UInt8], for key: LongReadKey) {
            forget(key)
            if kept.count >= Self.limit { kept.removeFirst() }
            kept.append((key, Array(value.prefix(CoreBluetoothPeripheralBackend.maximumValueLength))))
        }

        mutating func forget(_ key: LongReadKey) { kept.removeAll { $0.key == key } }

        /// Forgets every central's value of the characteristic (its value was written or set).
        mutating func forget(characteristic uuid: BluetoothUUID, service: BluetoothUUID) {
            kept.removeAll { $0.key.characteristic == uuid && $0.key.service == service }
        }

        mutating func forgetAll() { kept.removeAll() }
    }

    /// Whether a read answer of `count` bytes from `offset` fills the central's Read Response
    /// (ATT_MTU − 1 bytes, its `maximumUpdateValueLength` + 2), so that it reads on with a Read
    /// Blob; true when the central's limit is unknown.
    static func continues(_ count: Int, from offset: Int, limit: Int) -> Bool {
        limit < 0 || count - offset >= limit + 2
    }

    /// The handler that answers a Read Blob from a kept value: the characteristic's
    /// authorization rule is asked again, as for every request.
    static func keptValueHandler(_ value: [UInt8], _ definition: CharacteristicDefinition) -> AttributeReadHandler {
        let rule = definition.authorize
        return { request throws(ATTErrorCode) in
            if let rule, await !rule(request, .read) { throw .insufficientAuthorization }
            return value
        }
    }

    /// On the queue, after a read handler answered at `offset`: keeps the value for the Read
    /// Blobs of a long read (at offset 0, when the answer does not hold it all), or forgets it
    /// when the answer was the last part.
    func noteLongRead(_ key: LongReadKey, offset: Int, limit: Int, _ result: Result<[UInt8], ATTErrorCode>, generation: UInt64) {
        state.withLock { state in
            guard state.session?.generation == generation else { return }
            guard case .success(let value) = result, Self.continues(value.count, from: offset, limit: limit) else {
                state.session?.longReads.forget(key)
                return
            }
            if offset == 0 { state.session?.longReads.keep(value, for: key) }
        }
    }
}
