import Harald
import HaraldCore
import HaraldGATTLink
import HaraldHCI
import HaraldSMP

/// The HCI backend's name for `SecurityConfiguration` (the same type: the simulator takes it too).
public typealias HCISecurityConfiguration = SecurityConfiguration

/// One HCI connection as central, as `BondingLinkSecurity` secures it: LE Enable Encryption,
/// the link's encryption state, and its L2CAP channel 0x0006.
struct HCIPairableLink: PairableLink {
    let link: LEConnection
    let host: HCIHost
    let peerIdentity: BluetoothAddress?

    var peerAddress: BluetoothAddress { link.peer }

    /// The address this link was made from (our private address may have rotated since).
    nonisolated(nonsending) func localAddress() async -> BluetoothAddress? {
        if let address = link.localAddress { return address }
        return await host.currentRandomAddress
    }

    nonisolated(nonsending) func encryption() async -> LinkEncryption {
        let parameters = link.parameters
        return LinkEncryption(isEncrypted: parameters.isEncrypted, keySize: parameters.keySize.map(Int.init))
    }

    nonisolated(nonsending) func encrypt(with key: SecretKey128, ediv: UInt16, rand: UInt64) async throws(LinkEncryptionError) {
        do throws(HCIError) {
            try await link.encrypt(with: key, rand: rand, ediv: ediv)
        } catch {
            switch error {
            case .encryptionFailed(let status) where status == .pinOrKeyMissing: throw .peerKeyMissing
            case .disconnected(let reason) where reason == .connectionTerminatedDueToMICFailure: throw .keysDiffer
            case .encryptionFailed(let status): throw .failed(.pairingFailed("encryption refused: \(status)"))
            default: throw .failed(HCICentralBackend.translate(error))
            }
        }
    }

    var securityManagerPDUs: AsyncStream<[UInt8]> { link.securityManager.incoming }

    nonisolated(nonsending) func sendSecurityManagerPDU(_ pdu: [UInt8]) async throws { try await link.securityManager.send(pdu) }

    /// HCI Disconnect with Authentication Failure (0x05); a link already gone needs nothing.
    nonisolated(nonsending) func disconnect() async { _ = try? await link.disconnect(reason: .authenticationFailure) }
}
