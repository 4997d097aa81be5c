import HaraldCodec
import HaraldSMP

/// SMP PDUs (HaraldSMP): any PDU by its code, under both SMP MTUs. Every SMP PDU has one wire
/// form (reserved bits and unknown failure reasons are kept), so a PDU that decodes must encode to
/// exactly its input, and that encoding must decode to the same PDU. A PDU that does not decode
/// must still name the Pairing Failed reason that answers it.
let smpTargets: [FuzzTarget] = [
    FuzzTarget("SMPPDU", checkSMPPDU)
]

@Sendable func checkSMPPDU(_ bytes: [UInt8]) {
    for mtu in [SecurityManager.legacyMTU, SecurityManager.secureConnectionsMTU] {
        let pdu: SMPPDU
        do {
            pdu = try SMPPDU(decoding: bytes, mtu: mtu)
        } catch {
            blackHole(error.description)
            blackHole(error.pairingFailureReason.description)
            continue
        }
        require(bytes.count <= mtu, "SMPPDU \(bytes.hexString) decodes above the MTU \(mtu)")
        blackHole(String(describing: pdu))
        let encoded: [UInt8]
        do {
            encoded = try pdu.encodedBytes()
        } catch {
            fatalError("SMPPDU \(bytes.hexString) decodes (\(pdu.code)) but does not encode: \(error)")
        }
        require(encoded == bytes, "SMPPDU \(bytes.hexString) re-encodes as \(encoded.hexString)")
        let again: SMPPDU
        do {
            again = try SMPPDU(decoding: encoded, mtu: mtu)
        } catch {
            fatalError("SMPPDU \(bytes.hexString) re-encodes as \(encoded.hexString), which does not decode: \(error)")
        }
        require(again == pdu, "SMPPDU \(bytes.hexString) decodes differently the second time")
    }
}
