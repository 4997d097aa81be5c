/// The LE Secure Connections shared secret (Core spec Vol 3 Part H §2.3.5.6.1): the X
/// coordinate of the P-256 point both sides compute, 256 bits. The input `W` of `f5`.
///
/// Never shows its bits in descriptions, logs or dumps.
public struct DHKey: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let octets: [UInt8]

    /// A DHKey from 32 octets, most significant first (the spec's order); nil for any other length.
    public init?(bigEndianBytes bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        octets = bytes
    }

    /// A DHKey from 32 octets, least significant first (HCI's order, as LE Generate DHKey
    /// Complete reports it); nil for any other length.
    public init?(littleEndianBytes bytes: [UInt8]) {
        self.init(bigEndianBytes: bytes.reversed())
    }

    /// The 32 octets, most significant first. Inside the toolbox only.
    var bigEndianOctets: [UInt8] { octets }

    /// `<DHKey>`: never the bits.
    public var description: String { "<DHKey>" }
    /// `<DHKey>`, as ``description``: a debugger shows no bits either.
    public var debugDescription: String { description }
    /// No children, so `dump` and debuggers cannot reach the shared secret.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
