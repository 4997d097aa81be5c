import HaraldCore

/// What phase 1 settled between the two devices.
struct PairingFeatureExchange: Sendable {
    /// Our Pairing Request's features, and the PDU as sent (code first).
    var request: PairingFeatures
    var requestBytes: [UInt8]
    /// The responder's Pairing Response, and the PDU as received.
    var response: PairingFeatures
    var responseBytes: [UInt8]
    /// LE Secure Connections or legacy, and the association model.
    var method: PairingMethod
    /// The key size both accept, in octets.
    var keySize: Int

    /// Whether the key counts as authenticated: an authenticated association model and a full
    /// 16-octet key (a shorter one can be searched offline, so it never does).
    var countsAsAuthenticated: Bool { method.isAuthenticated && keySize >= Int(PairingConfiguration.fullKeySize) }

    /// The keys the responder distributes: the response's Responder Key Distribution, without
    /// EncKey under LE Secure Connections (both derived the LTK) and without LinkKey (no
    /// cross-transport derivation here).
    var responderKeys: KeyDistribution { distributed(response.responderKeyDistribution) }
    /// The keys we distribute, likewise from the response's Initiator Key Distribution.
    var initiatorKeys: KeyDistribution { distributed(response.initiatorKeyDistribution) }

    private func distributed(_ keys: KeyDistribution) -> KeyDistribution {
        var keys = keys.intersection([.encKey, .idKey, .signKey])
        if method.isSecureConnections { keys.remove(.encKey) }
        return keys
    }
}

extension SMPInitiator {
    /// Phase 1, the Pairing Feature Exchange (Core spec Vol 3 Part H §2.3): sends Pairing Request,
    /// takes the Pairing Response, checks it and chooses the method.
    func exchangeFeatures() async throws(PairingError) -> PairingFeatureExchange {
        let request = requestedFeatures
        let requestBytes = try await send(SMPPairingRequest(request))
        let response: PairingFeatures
        let responseBytes: [UInt8]
        switch try await receive() {
        case (.pairingResponse(let pdu), let bytes):
            response = pdu.features
            responseBytes = bytes
        default:
            throw await fail(.unspecifiedReason)
        }

        // The responder may only drop keys we asked for, never add any.
        guard request.initiatorKeyDistribution.isSuperset(of: response.initiatorKeyDistribution),
            request.responderKeyDistribution.isSuperset(of: response.responderKeyDistribution)
        else { throw await fail(.invalidParameters) }

        // KNOB: the peer (or a man in the middle editing the cleartext response) may offer a
        // short key; below what we require, Pairing Failed, Encryption Key Size.
        let keySize = min(request.maxEncryptionKeySize, response.maxEncryptionKeySize)
        guard keySize >= configuration.requiredKeySize else {
            throw await fail(with: .encryptionKeySize(offered: keySize, required: configuration.requiredKeySize))
        }

        let method = PairingMethod(initiator: request, responder: response)
        if configuration.secureConnectionsOnly && !method.isSecureConnections {
            throw await fail(.authenticationRequirements)
        }
        if method.model == .outOfBand { throw await fail(.oobNotAvailable) }
        if let reason = method.failureReason(requiringMITM: request.authReq.contains(.mitm)) {
            throw await fail(reason)
        }
        if method.model == .justWorks {
            guard try await ask({ await $0.confirmJustWorks() }) else { throw await fail(.pairingNotSupported) }
        }
        return PairingFeatureExchange(
            request: request, requestBytes: requestBytes, response: response, responseBytes: responseBytes,
            method: method, keySize: keySize)
    }

    /// Our Pairing Request: the configuration, offering only keys we have to distribute (no
    /// IdKey without our identity, no SignKey without a CSRK) and no LinkKey, and never OOB data.
    /// In Secure Connections Only mode the SC bit is always set.
    private var requestedFeatures: PairingFeatures {
        var offered = configuration.initiatorKeys.intersection([.encKey, .idKey, .signKey])
        if localKeys == nil { offered.remove(.idKey) }
        if localKeys?.signatureKey == nil { offered.remove(.signKey) }
        var authReq = configuration.authReq
        if configuration.secureConnectionsOnly { authReq.insert(.secureConnections) }
        return PairingFeatures(
            ioCapability: configuration.ioCapability, oobDataPresent: false, authReq: authReq,
            maxEncryptionKeySize: Int(configuration.maxEncryptionKeySize), initiatorKeyDistribution: offered,
            responderKeyDistribution: configuration.responderKeys.intersection([.encKey, .idKey, .signKey]))
    }
}
