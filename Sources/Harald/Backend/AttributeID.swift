import HaraldCodec

/// The identity of one discovered GATT attribute — a service, a characteristic or a descriptor —
/// on one connection: the key a ``ConnectionBackend`` addresses it by.
///
/// Treat it as opaque: compare and hash it, print it, hand it back to the connection it came from.
/// How a backend chooses it depends on what the backend can see:
///
/// - Backends that run ATT themselves (the simulator, the HCI host stack) see the server's
///   attribute handles, which are unique within its database, and derive the identity from one:
///   a service's declaration handle, a characteristic's value handle, a descriptor's handle
///   (``init(handle:)``). The same database gives the same identities on every connection.
/// - CoreBluetooth hides handles. Its backend numbers what it discovers from a counter kept per
///   peripheral (``init(serial:)``), never handing out a number twice, even across reconnections:
///   an identity from an earlier connection, or from a service the peripheral has since
///   invalidated, names nothing on the current one.
///
/// An identity is meaningful only on the connection (for handle-derived ones: the database) it
/// was discovered on.
public struct AttributeID: Hashable, Sendable, CustomStringConvertible {
    private enum Origin: Hashable, Sendable {
        case handle(UInt16)
        case serial(UInt64)
    }

    private let origin: Origin

    /// The identity of the attribute at ATT handle `handle` of the server's database (for
    /// backends that see handles).
    public init(handle: UInt16) { origin = .handle(handle) }

    /// An identity a backend numbered itself, for stacks that hide ATT handles (CoreBluetooth).
    /// The backend must not give the same number to two attributes of one peripheral.
    public init(serial: UInt64) { origin = .serial(serial) }

    /// The ATT handle the identity was derived from; nil when the backend numbered it itself.
    public var handle: UInt16? {
        if case .handle(let handle) = origin { return handle }
        return nil
    }

    /// `handle 0x002A`, or `attribute #17` for a numbered identity.
    public var description: String {
        switch origin {
        case .handle(let handle): "handle 0x\(Hex.word(handle))"
        case .serial(let number): "attribute #\(number)"
        }
    }
}
