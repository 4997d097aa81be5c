/// The pairing values that open a way to the keys stay out of text.
///
/// Pairing Confirm, Pairing Random and Pairing DHKey Check go over the air in the clear, but a
/// log keeps them: with a legacy pairing's confirm and random values the TK falls to a search
/// (and with it the STK and the LTK distributed under it), and the random values of Passkey
/// Entry give the passkey away bit by bit. Their descriptions, debug descriptions and mirrors
/// show the PDU's name and the value's length, never its octets; the wire encoding is unchanged.
extension SMPPairingConfirm: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Pairing Confirm(<redacted 16 bytes>)`.
    public var description: String { "Pairing Confirm(<redacted \(confirmValue.count) bytes>)" }
    /// The same text as ``description``.
    public var debugDescription: String { description }
    /// The value's length only.
    public var customMirror: Mirror { Mirror(self, children: ["confirmValue": "<redacted \(confirmValue.count) bytes>"]) }
}

extension SMPPairingRandom: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Pairing Random(<redacted 16 bytes>)`.
    public var description: String { "Pairing Random(<redacted \(randomValue.count) bytes>)" }
    /// The same text as ``description``.
    public var debugDescription: String { description }
    /// The value's length only.
    public var customMirror: Mirror { Mirror(self, children: ["randomValue": "<redacted \(randomValue.count) bytes>"]) }
}

extension SMPPairingDHKeyCheck: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Pairing DHKey Check(<redacted 16 bytes>)`.
    public var description: String { "Pairing DHKey Check(<redacted \(checkValue.count) bytes>)" }
    /// The same text as ``description``.
    public var debugDescription: String { description }
    /// The value's length only.
    public var customMirror: Mirror { Mirror(self, children: ["checkValue": "<redacted \(checkValue.count) bytes>"]) }
}
