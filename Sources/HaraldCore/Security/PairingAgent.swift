/// The user's side of pairing: what the Security Manager asks of a person (or of an app acting
/// for one) during the association model both devices' IO capabilities chose.
///
/// Every method may take as long as the person needs, within the SMP timeout (30 s per step).
public protocol PairingAgent: Sendable {
    /// Just Works: whether to pair with no number to check (an app may ask "Pair with X?").
    func confirmJustWorks() async -> Bool
    /// Numeric Comparison (Secure Connections): both devices show `value`; true when the
    /// person says they match.
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool
    /// Passkey Entry where the peer displays: the six-digit passkey (0…999999) the person typed,
    /// or nil to refuse.
    func enterPasskey() async -> UInt32?
    /// Passkey Entry where this device displays: show `passkey` (0…999999) for the person to type
    /// on the peer.
    func displayPasskey(_ passkey: UInt32) async
    /// Passkey Entry where this device displays: the passkey to show, or nil (the default) for a
    /// fresh random one, as the spec asks. A fixed passkey is what devices with a passkey printed
    /// on a label do; it protects far less, since anyone who learns it can pair.
    func passkeyToDisplay() async -> UInt32?
    /// A pairing that just finished would replace the stored bond of the same peer with a
    /// weaker one: unauthenticated (Just Works), a lower security level or a shorter key. True
    /// lets it replace the bond; false (the default) fails the pairing and keeps the bond, since
    /// an attacker at the peer's address would otherwise swap a strong bond for its own weak one
    /// (BLURtooth). Both sides are described by level, key size and identity, never by key.
    func confirmBondReplacement(existing: BondStrength, replacement: BondStrength) async -> Bool
}

extension PairingAgent {
    public func passkeyToDisplay() async -> UInt32? { nil }
    public func confirmBondReplacement(existing: BondStrength, replacement: BondStrength) async -> Bool { false }
}

/// An agent for devices with no user interface, and for tests: it confirms Just Works and
/// Numeric Comparison, and answers Passkey Entry with a fixed passkey when it has one.
public struct AutomaticPairingAgent: PairingAgent {
    /// The passkey typed or shown; nil refuses Passkey Entry where this side must type.
    public var passkey: UInt32?
    /// What it answers to Numeric Comparison.
    public var acceptsNumericComparison: Bool
    /// What it answers when a pairing would replace a bond with a weaker one (see
    /// ``PairingAgent/confirmBondReplacement(existing:replacement:)``); false by default.
    public var allowsWeakerBondReplacement: Bool

    /// An agent that answers without asking: `passkey` (0…999999) for Passkey Entry, yes or no to
    /// Numeric Comparison, and no to replacing a bond with a weaker one unless
    /// `allowsWeakerBondReplacement`.
    public init(passkey: UInt32? = nil, acceptsNumericComparison: Bool = true, allowsWeakerBondReplacement: Bool = false) {
        self.passkey = passkey
        self.acceptsNumericComparison = acceptsNumericComparison
        self.allowsWeakerBondReplacement = allowsWeakerBondReplacement
    }

    public func confirmJustWorks() async -> Bool { true }
    public func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { acceptsNumericComparison }
    public func enterPasskey() async -> UInt32? { passkey }
    public func displayPasskey(_ passkey: UInt32) async {}
    public func confirmBondReplacement(existing: BondStrength, replacement: BondStrength) async -> Bool {
        allowsWeakerBondReplacement
    }
}

/// The six digits both devices show in Numeric Comparison: `g2` mod 10^6.
public struct NumericComparisonValue: Hashable, Sendable, CustomStringConvertible {
    /// 0…999999.
    public let value: UInt32

    /// The value for a `g2` output.
    public init(g2: UInt32) { value = g2 % 1_000_000 }

    /// Six digits, zero-padded (`"000042"`).
    public var description: String {
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
