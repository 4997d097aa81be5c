import HaraldCore

extension SMPCrypto {
    /// The confirm value generation function `c1` of LE legacy pairing (Core spec Vol 3 Part H
    /// §2.2.3): Mconfirm or Sconfirm from TK and Mrand or Srand.
    ///
    /// `pairingRequest` and `pairingResponse` are the two 7-octet PDUs exactly as sent, code
    /// octet first (wire order); the address kinds give `iat'` and `rat'`. Nil unless both PDUs
    /// are 7 octets.
    public static func c1(
        _ k: SecretKey128, _ r: Value128, pairingRequest: [UInt8], pairingResponse: [UInt8],
        initiator ia: BluetoothAddress, responder ra: BluetoothAddress
    ) -> Value128? {
        guard pairingRequest.count == 7, pairingResponse.count == 7 else { return nil }
        // p1 = pres || preq || rat' || iat', most significant first, so each PDU reversed.
        let p1 = pairingResponse.reversed() + pairingRequest.reversed() + [ra.kind.rawValue, ia.kind.rawValue]
        // p2 = padding || ia || ra.
        let p2 = [UInt8](repeating: 0, count: 4) + ia.bytes + ra.bytes
        let key = k.bigEndianOctets
        let inner = encryptBlock(key: key, plaintext: xor(r.bigEndianBytes, p1))
        return Value128(unchecked: encryptBlock(key: key, plaintext: xor(inner, p2)))
    }

    /// The key generation function `s1` of LE legacy pairing (Core spec Vol 3 Part H §2.2.4):
    /// the STK from TK, Srand (`r1`) and Mrand (`r2`), using the low 64 bits of each.
    public static func s1(_ k: SecretKey128, _ r1: Value128, _ r2: Value128) -> SecretKey128 {
        let rPrime = Array(r1.bigEndianBytes[8..<16] + r2.bigEndianBytes[8..<16])
        return SecretKey128(bigEndianOctets: encryptBlock(key: k.bigEndianOctets, plaintext: rPrime))
    }
}
