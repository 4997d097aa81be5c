import Harald
import HaraldCore

/// What secures the link under a ``GATTConnection``: the HCI backend's Security Manager (the
/// bond store and SMP), a simulated one in tests.
public protocol LinkSecurityManager: Sendable {
    /// How the link is secured now.
    func currentSecurity() async -> LinkSecurity
    /// Raises the link's security as the peer's refusal `code` asks (Insufficient
    /// Authentication, Insufficient Encryption, Encryption Key Size Too Short): encrypts with the
    /// bond's key when there is one, else pairs. Throws when it cannot (pairing failed or refused,
    /// the peer lost its bond and the policy says not to pair again…).
    func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity
}
