/// One ``GoProMessageAssembler`` per response characteristic, created on first use.
///
/// `Key` is whatever names a characteristic for the caller: ``GoProCharacteristic``
/// (`GoProMessageAssemblers<GoProCharacteristic>()`), a `BluetoothUUID`, or an attribute handle.
public struct GoProMessageAssemblers<Key: Hashable & Sendable>: Sendable {
    @usableFromInline var assemblers: [Key: GoProMessageAssembler] = [:]

    /// Assemblers for every response characteristic, none in progress.
    public init() {}

    /// Takes one notification that arrived on `characteristic`; returns the complete message
    /// when this packet ends one. Errors are those of ``GoProMessageAssembler``; they affect only
    /// that characteristic's assembler.
    @inlinable
    public mutating func append(_ packet: [UInt8], from characteristic: Key) throws(GoProPacketError) -> [UInt8]? {
        try assemblers[characteristic, default: GoProMessageAssembler()].append(packet)
    }

    /// The assembler of `characteristic` (an idle one if none has been used yet).
    public subscript(characteristic: Key) -> GoProMessageAssembler {
        get { assemblers[characteristic] ?? GoProMessageAssembler() }
        set { assemblers[characteristic] = newValue }
    }

    /// Drops every incomplete message (for example on disconnection).
    public mutating func reset() { assemblers.removeAll() }
}
