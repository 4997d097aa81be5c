/// A fault to inject into a simulated link, applied to one PDU chosen by direction and number.
public struct LinkFault: Hashable, Sendable {
    /// What happens to the chosen PDU.
    public enum Action: Hashable, Sendable {
        /// The PDU vanishes.
        case drop
        /// The PDU arrives `Duration` later than the link would deliver it.
        case delay(Duration)
        /// The byte at the index is XORed with the mask (indexes past the end do nothing).
        case corrupt(byteIndex: Int, xor: UInt8)
        /// Only the first bytes arrive.
        case truncate(toLength: Int)
        /// The link drops (connection timeout) instead of delivering the PDU.
        case dropLink
    }

    /// The sending side of the PDU the fault applies to.
    public var from: LinkSide
    /// Which PDU of that side, counting from 1 over the link's life.
    public var pduNumber: Int
    /// What happens to the chosen PDU.
    public var action: Action

    /// A fault on the `pduNumber`-th PDU (from 1) that `from` sends.
    public init(from: LinkSide, pduNumber: Int, action: Action) {
        self.from = from
        self.pduNumber = pduNumber
        self.action = action
    }
}
