/// The LE Security Manager (Core spec Vol 3 Part H): the SMP PDUs carried on L2CAP channel
/// 0x0006 (`PDU/`), the cryptographic toolbox pairing is built from (`Crypto/`: AES-CMAC, the
/// key functions of LE Secure Connections and legacy pairing, P-256 key agreement, address
/// resolution) and the pairing procedures of both roles (`Pairing/`).
///
/// It knows nothing of HCI or of a transport: the host stack carries its PDUs and starts
/// encryption with the keys it produces.
public enum SecurityManager {
    /// The fixed L2CAP channel SMP runs on over LE.
    public static let channel: UInt16 = 0x0006
}
