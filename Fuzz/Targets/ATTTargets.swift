import HaraldATT
import HaraldCodec

/// ATT PDUs (HaraldATT): any PDU by its opcode. A PDU that decodes must encode again, and the
/// encoding must decode to the same PDU. Equal values, not equal bytes: the spec lets the last
/// tuple of a Read Multiple Variable Response be cut at ATT_MTU − 1 bytes, even inside its length
/// field (`21 40` decodes to no entries and re-encodes as `21`), so bytes are not canonical.
let attTargets: [FuzzTarget] = [
    FuzzTarget("ATTPDU", checkATTPDU)
]

@Sendable func checkATTPDU(_ bytes: [UInt8]) {
    touch { () throws(ByteDecodingError) in
        let pdu = try ATTPDU(decoding: bytes)
        blackHole(pdu.opcode.description)
        let encoded: [UInt8]
        do {
            encoded = try pdu.encodedBytes()
        } catch {
            fatalError("ATTPDU \(bytes.hexString) decodes (\(pdu.opcode.name)) but does not encode: \(error)")
        }
        let again: ATTPDU
        do {
            again = try ATTPDU(decoding: encoded)
        } catch {
            fatalError("ATTPDU \(bytes.hexString) re-encodes as \(encoded.hexString), which does not decode: \(error)")
        }
        require(again == pdu, "ATTPDU \(bytes.hexString) re-encodes as \(encoded.hexString), which decodes differently")
    }
}
