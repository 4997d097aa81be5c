import HaraldCodec
import HaraldCore

/// A rule of ATT or GATT that a PDU from the peer broke: which PDU, the handle that broke it (when
/// one did) and what was wrong.
///
/// The GATT client treats every violation alike: the operation fails with
/// ``GATTError/protocolViolation(_:)`` and the bearer is closed (reason
/// ``ATTCloseReason/protocolViolation(_:)``), because after a response that breaks the protocol
/// the two sides no longer agree on what the server holds or which transaction is open.
public struct ATTProtocolViolation: Sendable, Hashable, CustomStringConvertible {
    /// The PDU that broke the rule, by opcode.
    public let pdu: ATTOpcode
    /// The offending handle, or nil when the violation is not about one (an oversized PDU).
    public let handle: UInt16?
    /// What was wrong, in words.
    public let rule: String

    /// A violation by the PDU with opcode `pdu`, at `handle` when one handle broke the rule, described
    /// by `rule`.
    public init(pdu: ATTOpcode, handle: UInt16?, rule: String) {
        self.pdu = pdu
        self.handle = handle
        self.rule = rule
    }

    /// `Read By Group Type Response: … (handle 0x0008)`.
    public var description: String {
        let at = handle.map { " (handle 0x\(Hex.word($0)))" } ?? ""
        return "\(pdu.name): \(rule)\(at)"
    }

    // MARK: The rules

    /// A PDU longer than the ATT_MTU in use (Core spec Vol 3 Part F: no PDU may exceed it).
    static func oversized(_ pdu: ATTOpcode, length: Int, mtu: Int) -> Self {
        Self(pdu: pdu, handle: nil, rule: "\(length) bytes, longer than ATT_MTU \(mtu)")
    }

    /// A handle of 0x0000, which is reserved and never an attribute's (Vol 3 Part F).
    static func zeroHandle(_ pdu: ATTOpcode, _ what: String) -> Self {
        Self(pdu: pdu, handle: 0, rule: "\(what) at handle 0x0000, which no attribute has")
    }

    /// A handle outside the range the request asked about.
    static func outside(_ pdu: ATTOpcode, _ what: String, handle: UInt16, requested: ATTHandleRange) -> Self {
        Self(pdu: pdu, handle: handle, rule: "\(what) at handle 0x\(Hex.word(handle)), outside the requested range \(requested)")
    }

    /// A handle not after the previous one of the same procedure (answers come in increasing
    /// handle order and never repeat one).
    static func notIncreasing(_ pdu: ATTOpcode, _ what: String, handle: UInt16, previous: UInt16) -> Self {
        Self(pdu: pdu, handle: handle, rule: "\(what) at handle 0x\(Hex.word(handle)), not after the previous one at 0x\(Hex.word(previous))")
    }
}
