import HaraldATT
import HaraldCodec

/// ATT PDUs (HaraldATT): any PDU by its opcode. A PDU that decodes must encode again, and the
/// encoding must decode to the same PDU (value equality: a few PDUs, such as an unknown opcode's,
/// keep their bytes as received, so byte equality is also checked when the type says it holds).
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
        require(encoded == bytes, "ATTPDU \(bytes.hexString) (\(pdu.opcode.name)) re-encodes as \(encoded.hexString)")
    }
}
