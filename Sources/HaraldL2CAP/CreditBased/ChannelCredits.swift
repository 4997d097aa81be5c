/// The credits of one direction of a credit-based channel (Core spec Vol 3 Part A §10.1): how
/// many K-frames may still be sent before more are granted. A peer whose grants would take the
/// count past 65,535 breaks the rules, and the channel is disconnected.
public struct ChannelCredits: Hashable, Sendable {
    /// Most credits a channel direction may hold.
    public static let maximum = 65_535

    /// K-frames that may be sent now.
    public private(set) var available: Int

    /// A count starting at the `initial` credits of a connection request or response.
    public init(initial: UInt16) { available = Int(initial) }

    /// Adds `credits` from a Flow Control Credit Indication. Throws ``CreditOverflow`` when the
    /// total would pass 65,535 (the count is left as it was); a grant of zero credits is allowed
    /// and does nothing.
    public mutating func grant(_ credits: UInt16) throws(CreditOverflow) {
        let total = available + Int(credits)
        guard total <= Self.maximum else { throw CreditOverflow(held: available, granted: Int(credits)) }
        available = total
    }

    /// Spends one credit for a K-frame; false (nothing spent) when none is left.
    public mutating func spend() -> Bool {
        guard available > 0 else { return false }
        available -= 1
        return true
    }
}

/// A credit grant that would have taken a channel past 65,535 credits.
public struct CreditOverflow: Error, Hashable, Sendable {
    /// Credits the sender held before the grant.
    public var held: Int
    /// Credits the grant added.
    public var granted: Int

    public init(held: Int, granted: Int) { (self.held, self.granted) = (held, granted) }
}
