import HaraldCore

/// What phase 3 exchanged.
struct DistributedKeys: Sendable {
    /// The responder's legacy LTK with its EDIV and Rand (EncKey).
    var peerLongTermKey: LongTermKey?
    /// The responder's IRK and identity address (IdKey).
    var peerIdentityResolvingKey: IdentityResolvingKey?
    var peerIdentityAddress: BluetoothAddress?
    /// The responder's CSRK (SignKey).
    var peerSignatureKey: ConnectionSignatureResolvingKey?
    /// The legacy LTK we distributed (EncKey).
    var localLongTermKey: LongTermKey?
}

extension SMPInitiator {
    /// Phase 3, on the encrypted link (Core spec Vol 3 Part H §3.6): the responder's keys first,
    /// then ours, each side in the spec's order: Encryption Information and Central
    /// Identification (legacy EncKey), Identity Information and Identity Address Information
    /// (IdKey), Signing Information (SignKey). A PDU out of that order fails the procedure.
    func distributeKeys(_ exchange: PairingFeatureExchange) async throws(PairingError) -> DistributedKeys {
        var keys = DistributedKeys()
        let authenticated = exchange.countsAsAuthenticated
        let theirs = exchange.responderKeys
        if theirs.contains(.encKey) {
            let information = try await expect(SMPEncryptionInformation.self)
            let identification = try await expect(SMPCentralIdentification.self)
            keys.peerLongTermKey = LongTermKey(
                key: information.longTermKey, ediv: identification.ediv, rand: identification.rand,
                keySize: exchange.keySize, isAuthenticated: authenticated, isSecureConnections: false)
        }
        if theirs.contains(.idKey) {
            keys.peerIdentityResolvingKey = try await expect(SMPIdentityInformation.self).identityResolvingKey
            keys.peerIdentityAddress = try await expect(SMPIdentityAddressInformation.self).identityAddress
        }
        if theirs.contains(.signKey) {
            keys.peerSignatureKey = try await expect(SMPSigningInformation.self).signatureKey
        }

        // The responder's keys are judged before ours go out: an impostor gets nothing of ours.
        if let checkPeerKeys {
            let keys = PeerPairingKeys(
                connectedFrom: addresses.responder, identityAddress: keys.peerIdentityAddress,
                identityResolvingKey: keys.peerIdentityResolvingKey, method: exchange.method, keySize: exchange.keySize,
                isBonding: exchange.request.authReq.isBonding && exchange.response.authReq.isBonding)
            if case .refuse(let reason, let refusal) = try await ask({ _ in await checkPeerKeys(keys) }) {
                _ = await fail(reason)
                throw .keysRefused(reason, refusal)
            }
        }

        let ours = exchange.initiatorKeys
        if ours.contains(.encKey) {
            let ltk = LongTermKey(
                key: randomness.key().masked(toSize: exchange.keySize), ediv: UInt16(truncatingIfNeeded: randomness.word()),
                rand: randomness.word(), keySize: exchange.keySize, isAuthenticated: authenticated,
                isSecureConnections: false)
            try await send(SMPEncryptionInformation(longTermKey: ltk.key))
            try await send(SMPCentralIdentification(ediv: ltk.ediv, rand: ltk.rand))
            keys.localLongTermKey = ltk
        }
        // Our request offered IdKey and SignKey only when we have those keys.
        if ours.contains(.idKey), let localKeys {
            try await send(SMPIdentityInformation(identityResolvingKey: localKeys.identityResolvingKey))
            try await send(SMPIdentityAddressInformation(identityAddress: localKeys.identityAddress))
        }
        if ours.contains(.signKey), let signatureKey = localKeys?.signatureKey {
            try await send(SMPSigningInformation(signatureKey: signatureKey))
        }
        return keys
    }
}
