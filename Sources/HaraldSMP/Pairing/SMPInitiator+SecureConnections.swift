import HaraldCore

extension SMPInitiator {
    /// Phase 2 by LE Secure Connections (Core spec Vol 3 Part H §2.3.5.6): public keys, then
    /// authentication stage 1 (Just Works / Numeric Comparison, or Passkey Entry), then stage 2
    /// (LTK by `f5`, DHKey Checks by `f6`). Returns the LTK, cut to the negotiated key size.
    func generateSecureConnectionsKey(_ exchange: PairingFeatureExchange) async throws(PairingError) -> SecretKey128 {
        // The initiator sends its public key first.
        let keyPair = randomness.keyPair()
        let ours = keyPair.publicKey
        try await send(SMPPairingPublicKey(x: ours.x.littleEndianBytes, y: ours.y.littleEndianBytes))
        let received = try await expect(SMPPairingPublicKey.self)
        // A point off the curve (the invalid-curve attack), our own X sent back (CVE-2020-26558,
        // with our Y or its negation) or the debug key: refused before it is used.
        let peer: P256PublicKey
        do { peer = try P256PublicKey(littleEndianBytes: received.x + received.y) } catch { throw await fail(.dhKeyCheckFailed) }
        if PeerPublicKeyCheck.refusal(of: peer, ours: ours, acceptsDebugKeys: configuration.acceptsDebugKeys) != nil {
            throw await fail(PeerPublicKeyCheck.failureReason)
        }
        let dhKey: DHKey
        do { dhKey = try keyPair.dhKey(with: peer) } catch { throw await fail(.dhKeyCheckFailed) }
        peerUsedDebugKey = peer.isDebugKey

        // Stage 1: the nonces, and r (the passkey, or 0).
        let (na, nb, r): (Value128, Value128, SecretKey128)
        switch exchange.method.model {
        case .passkeyEntry(let roles):
            (na, nb, r) = try await authenticateByPasskey(roles, ours: ours, peer: peer)
        case .numericComparison:
            (na, nb) = try await exchangeNonces(ours: ours, peer: peer)
            let value = NumericComparisonValue(g2: SMPCrypto.g2(u: ours.x, v: peer.x, x: na, y: nb))
            guard try await ask({ await $0.confirmNumericComparison(value) }) else {
                throw await fail(.numericComparisonFailed)
            }
            r = .zero
        case .justWorks, .outOfBand:
            (na, nb) = try await exchangeNonces(ours: ours, peer: peer)
            r = .zero
        }

        // Stage 2: MacKey and LTK, then Ea out and Eb checked.
        let a = addresses.initiator
        let b = addresses.responder
        let (macKey, ltk) = SMPCrypto.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
        let ea = SMPCrypto.f6(
            w: macKey, n1: na, n2: nb, r: r, ioCap: IOcap(exchange.request), a1: a, a2: b)
        try await send(SMPPairingDHKeyCheck(checkValue: ea.littleEndianBytes))
        let check = try await expect(SMPPairingDHKeyCheck.self)
        let eb = SMPCrypto.f6(
            w: macKey, n1: nb, n2: na, r: r, ioCap: IOcap(exchange.response), a1: b, a2: a)
        guard ConstantTime.equal(check.checkValue, eb.littleEndianBytes) else { throw await fail(.dhKeyCheckFailed) }
        return ltk.masked(toSize: exchange.keySize)
    }

    /// Just Works and Numeric Comparison: the responder commits to Nb (Cb = f4(PKbx, PKax, Nb, 0)),
    /// we reveal Na, it reveals Nb, and we check Cb.
    private func exchangeNonces(ours: P256PublicKey, peer: P256PublicKey) async throws(PairingError) -> (Value128, Value128) {
        let cb = try await expectValue(SMPPairingConfirm.self, \.confirmValue)
        let na = randomness.nonce()
        try await send(SMPPairingRandom(randomValue: na.littleEndianBytes))
        let nb = try await expectValue(SMPPairingRandom.self, \.randomValue)
        guard ConstantTime.equal(SMPCrypto.f4(u: peer.x, v: ours.x, x: nb, z: 0), cb) else { throw await fail(.confirmValueFailed) }
        return (na, nb)
    }

    /// Passkey Entry: the passkey shown or typed here, then one round per bit, least
    /// significant first, each committing both sides to that bit (ri = 0x80 | bit). A peer with
    /// another passkey fails the first round whose bit differs. Returns the last round's nonces
    /// and the passkey as `r`.
    private func authenticateByPasskey(
        _ roles: PasskeyEntryRoles, ours: P256PublicKey, peer: P256PublicKey
    ) async throws(PairingError) -> (Value128, Value128, SecretKey128) {
        let passkey = try await obtainPasskey(roles)
        acceptsKeypressNotifications = true
        defer { acceptsKeypressNotifications = false }
        var na = Value128.zero
        var nb = Value128.zero
        for round in 0..<20 {
            let ri = UInt8(0x80 | ((passkey >> UInt32(round)) & 1))
            na = randomness.nonce()
            try await send(SMPPairingConfirm(confirmValue: SMPCrypto.f4(u: ours.x, v: peer.x, x: na, z: ri).littleEndianBytes))
            let cb = try await expectValue(SMPPairingConfirm.self, \.confirmValue)
            try await send(SMPPairingRandom(randomValue: na.littleEndianBytes))
            nb = try await expectValue(SMPPairingRandom.self, \.randomValue)
            guard ConstantTime.equal(SMPCrypto.f4(u: peer.x, v: ours.x, x: nb, z: ri), cb) else { throw await fail(.confirmValueFailed) }
        }
        // A passkey obtained above is at most 999999, which always makes a key.
        return (na, nb, SecretKey128(passkey: passkey)!)
    }

    /// The passkey of Passkey Entry (both pairing kinds): a random one shown to the person when
    /// we display, or the one the person typed. No passkey, or one above 999999, fails with
    /// Passkey Entry Failed.
    func obtainPasskey(_ roles: PasskeyEntryRoles) async throws(PairingError) -> UInt32 {
        if roles.initiatorDisplays {
            let chosen = try await ask({ await $0.passkeyToDisplay() }).flatMap { $0 <= 999_999 ? $0 : nil }
            let passkey = chosen ?? randomness.passkey() % 1_000_000
            try await ask({ await $0.displayPasskey(passkey) })
            return passkey
        }
        guard let passkey = try await ask({ await $0.enterPasskey() }), passkey <= 999_999 else {
            throw await fail(.passkeyEntryFailed)
        }
        return passkey
    }

    /// The 128-bit value of the next PDU, which must be a `T`.
    func expectValue<T: SMPPDUCodable>(_ type: T.Type, _ field: KeyPath<T, [UInt8]>) async throws(PairingError) -> Value128 {
        let pdu = try await expect(T.self)
        guard let value = Value128(littleEndianBytes: pdu[keyPath: field]) else { throw await fail(.invalidParameters) }
        return value
    }
}

extension IOcap {
    /// The IOcap of a Pairing Request or Response: its AuthReq, OOB data flag and IO capability.
    init(_ features: PairingFeatures) {
        self.init(
            authReq: features.authReq.rawValue, oobDataFlag: features.oobDataPresent ? 0x01 : 0x00,
            ioCapability: features.ioCapability.rawValue)
    }
}
