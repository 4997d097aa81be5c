import HaraldCore

extension SMPInitiator {
    /// Phase 2 by LE legacy pairing (Core spec Vol 3 Part H §2.3.5.2–2.3.5.5): TK from the
    /// association model, Mconfirm and Sconfirm by `c1`, Mrand and Srand revealed and checked, and
    /// STK = s1(TK, Srand, Mrand), cut to the negotiated key size.
    func generateShortTermKey(_ exchange: PairingFeatureExchange) async throws(PairingError) -> SecretKey128 {
        let tk: SecretKey128
        switch exchange.method.model {
        case .passkeyEntry(let roles):
            // A passkey obtained is at most 999999, which always makes a key.
            tk = SecretKey128(passkey: try await obtainPasskey(roles))!
        case .justWorks, .numericComparison, .outOfBand:
            tk = .zero
        }

        let confirm = { (random: Value128) -> Value128? in
            SMPCrypto.c1(
                tk, random, pairingRequest: exchange.requestBytes, pairingResponse: exchange.responseBytes,
                initiator: self.addresses.initiator, responder: self.addresses.responder)
        }
        let mrand = randomness.nonce()
        guard let mconfirm = confirm(mrand) else { throw await fail(.unspecifiedReason) }
        try await send(SMPPairingConfirm(confirmValue: mconfirm.littleEndianBytes))
        let sconfirm = try await expectValue(SMPPairingConfirm.self, \.confirmValue)
        try await send(SMPPairingRandom(randomValue: mrand.littleEndianBytes))
        let srand = try await expectValue(SMPPairingRandom.self, \.randomValue)
        guard let expected = confirm(srand), ConstantTime.equal(expected, sconfirm) else { throw await fail(.confirmValueFailed) }
        return SMPCrypto.s1(tk, srand, mrand).masked(toSize: exchange.keySize)
    }
}
