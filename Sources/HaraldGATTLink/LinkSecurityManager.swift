import Harald
import HaraldCore

/// What secures the link under a ``GATTConnection``: ``BondingLinkSecurity`` (the bond store and
/// Harald's Security Manager) on the HCI backend and in the simulator.
public protocol LinkSecurityManager: Sendable {
    /// How the link is secured now.
    func currentSecurity() async -> LinkSecurity
    /// Raises the link's security as the peer's refusal `code` asks (Insufficient
    /// Authentication, Insufficient Encryption, Encryption Key Size Too Short): encrypts with the
    /// bond's key when there is one, else pairs. Throws when it cannot (pairing failed or refused,
    /// the peer lost its bond and the policy says not to pair again…).
    func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity
    /// Pairs now, even when a bond exists or the link is encrypted already (the new keys replace
    /// the bond's).
    func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity
}
