/// The checks on the peer's Pairing Public Key that come on top of the point validation
/// (``P256PublicKey`` is always on the curve), shared by both roles (Core spec Vol 3 Part H
/// §2.3.5.6.1).
enum PeerPublicKeyCheck {
    /// Why the peer's key is refused, or nil when it may be used.
    enum Refusal: Hashable, Sendable {
        /// Its X coordinate is ours: our own key sent back, or its negation (x, p − y). The
        /// confirm values and the DHKey use X only, so either lets a man in the middle reflect
        /// our commitments and learn the passkey bit by bit (CVE-2020-26558).
        case reflected
        /// The spec's debug public key, refused unless ``PairingConfiguration/acceptsDebugKeys``.
        case debugKey
    }

    /// Refusals answer Pairing Failed, DHKey Check Failed (0x0B), as for a point off the curve:
    /// the Linux kernel's SMP sends 0x0B for a reflected key since its fix for CVE-2020-26558
    /// (the qualification test for a bad public key expects 0x0B), and 0x0B is what the Nordic
    /// guidance on the public-key erratum recommends for any public key refused.
    static let failureReason = PairingFailureReason.dhKeyCheckFailed

    /// Checks `peer` against `ours`. The debug key is the one exception to the reflection rule
    /// when debug keys are accepted (two devices in debug mode share it).
    static func refusal(of peer: P256PublicKey, ours: P256PublicKey, acceptsDebugKeys: Bool) -> Refusal? {
        let isDebugKey = ConstantTime.equal(peer.x, P256KeyPair.debug.publicKey.x) && ConstantTime.equal(peer.y, P256KeyPair.debug.publicKey.y)
        if isDebugKey { return acceptsDebugKeys ? nil : .debugKey }
        return ConstantTime.equal(peer.x, ours.x) ? .reflected : nil
    }
}
