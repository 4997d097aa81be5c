import HaraldCodec
import HaraldCore
import HaraldSMP
import HaraldTestSupport
import Testing

/// The spec's sample data (Core Vol 3 Part H Appendix D; smp.md §8), spec order.
private enum Sample {
    static let privateB = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    static let na = "d5cb8454 d177733e ffffb2ec 712baeab"
    static let nb = "a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"
    static let ltk = "69867911 69d7cd23 980522b5 94750a38"
}

private func request(
    io: IOCapability = .noInputNoOutput, authReq: AuthReq = [.bonding, .secureConnections], maxKeySize: Int = 16,
    initiatorKeys: KeyDistribution = [.idKey], responderKeys: KeyDistribution = [.encKey, .idKey]
) -> SMPPairingRequest {
    SMPPairingRequest(
        PairingFeatures(
            ioCapability: io, authReq: authReq, maxEncryptionKeySize: maxKeySize, initiatorKeyDistribution: initiatorKeys,
            responderKeyDistribution: responderKeys))
}

private let initiatorIRK = IdentityResolvingKey(key: ResponderUnderTest.key(0x70))
private let initiatorIdentity = BluetoothAddress("00:1B:DC:07:32:EF", kind: .public)!

extension ScriptedInitiator {
    /// Receives the responder's Identity Information + Identity Address Information, then sends
    /// the initiator's.
    func exchangeIdentities() async throws -> (IdentityResolvingKey, BluetoothAddress) {
        let irk = try await expect(SMPIdentityInformation.self).identityResolvingKey
        let address = try await expect(SMPIdentityAddressInformation.self).identityAddress
        try send(SMPIdentityInformation(identityResolvingKey: initiatorIRK))
        try send(SMPIdentityAddressInformation(identityAddress: initiatorIdentity))
        return (irk, address)
    }
}

@Suite("SMPResponder: LE Secure Connections")
struct SMPResponderSecureConnectionsTests {
    /// The spec's sample initiator key is private key A, which is also the debug key: the
    /// responder takes it only with debug keys accepted, and then never bonds.
    @Test func justWorksWithTheSpecSampleDataDerivesTheSpecLTKAndEncryptsWithIt() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(acceptsDebugKeys: true),
            keyPair: try P256KeyPair(privateKeyBigEndianBytes: wireOrder(Sample.privateB).reversed()),
            random: ScriptedRandom([wireOrder(Sample.nb)]))
        let pairing = harness.start(request())
        let initiator = harness.initiator

        let response = try await initiator.expectResponse()
        #expect(response.features.ioCapability == .noInputNoOutput)
        #expect(response.features.responderKeyDistribution == [.encKey, .idKey])
        let state = try await initiator.exchangePublicKeys(.debug)
        let (na, nb) = try await initiator.justWorksNonces(state, na: Value128(littleEndianBytes: wireOrder(Sample.na))!)
        #expect(nb.littleEndianBytes == wireOrder(Sample.nb))
        let ltk = try await initiator.checkDHKey(state, na: na, nb: nb, r: .zero)
        #expect(keyOctets(ltk) == wireOrder(Sample.ltk))

        let (irk, address) = try await initiator.exchangeIdentities()
        #expect(irk == ResponderUnderTest.responderIdentity.identityResolvingKey)
        #expect(address == ResponderUnderTest.responderIdentity.address)

        let outcome = try await pairing.value
        #expect(harness.log.encryptionKeys.map(keyOctets) == [wireOrder(Sample.ltk)])
        #expect(outcome.longTermKey?.key == ltk)
        #expect(outcome.longTermKey?.ediv == 0 && outcome.longTermKey?.rand == 0)
        #expect(outcome.longTermKey?.isSecureConnections == true)
        #expect(outcome.longTermKey?.isAuthenticated == false)
        #expect(outcome.localLongTermKey == nil)
        #expect(outcome.shortTermKey == nil)
        #expect(outcome.method == PairingMethod(isSecureConnections: true, model: .justWorks))
        #expect(outcome.peerIdentityResolvingKey == initiatorIRK)
        #expect(outcome.peerIdentityAddress == initiatorIdentity)
        #expect(outcome.usedDebugKey)
        #expect(!outcome.isBonding)
        #expect(outcome.keySize == 16)
    }

    @Test func keysAreDistributedOnlyAfterEncryptionAndWithoutEncryptionInformation() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        let (na, nb) = try await initiator.justWorksNonces(state, na: .random())
        _ = try await initiator.checkDHKey(state, na: na, nb: nb, r: .zero)
        _ = try await initiator.exchangeIdentities()
        _ = try await pairing.value
        #expect(
            harness.log.all == [
                .sent(.pairingResponse), .sent(.pairingPublicKey), .sent(.pairingConfirm), .sent(.pairingRandom),
                .sent(.pairingDHKeyCheck), .encrypted, .sent(.identityInformation), .sent(.identityAddressInformation),
            ])
    }

    /// A central whose distributed identity is refused (the bond rules' verdict) hears one
    /// Pairing Failed with the verdict's reason, and nothing after it.
    @Test func refusedKeysEndThePairingWithOnePairingFailed() async throws {
        let refusal = BondRefusal.identityNotProven(connectedFrom: ResponderUnderTest.initiatorAddress, claimed: initiatorIdentity)
        let harness = ResponderUnderTest(checkPeerKeys: { _ in .refuse(.invalidParameters, refusal) })
        let pairing = harness.start(request())
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        let (na, nb) = try await initiator.justWorksNonces(state, na: .random())
        _ = try await initiator.checkDHKey(state, na: na, nb: nb, r: .zero)
        _ = try await initiator.exchangeIdentities()
        #expect(try await initiator.expectFailure() == .invalidParameters)
        await #expect(throws: PairingError.keysRefused(.invalidParameters, refusal)) { try await pairing.value }
        #expect(harness.log.all.filter { $0 == .sent(.pairingFailed) }.count == 1, "\(harness.log.all)")
        #expect(harness.log.all.last == .sent(.pairingFailed))
    }

    @Test func numericComparisonShowsTheG2ValueAndCompletesWhenConfirmed() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]))
        let pairing = harness.start(request(io: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        let (na, nb) = try await initiator.justWorksNonces(state, na: .random())
        let ltk = try await initiator.checkDHKey(state, na: na, nb: nb, r: .zero)
        _ = try await initiator.exchangeIdentities()
        let outcome = try await pairing.value

        let shown = NumericComparisonValue(g2: SMPCrypto.g2(u: state.pkax, v: state.pkbx, x: na, y: nb))
        #expect(harness.agent.comparedValues == [shown])
        #expect(outcome.method == PairingMethod(isSecureConnections: true, model: .numericComparison))
        #expect(outcome.longTermKey?.key == ltk)
        #expect(outcome.longTermKey?.isAuthenticated == true)
    }

    @Test func numericComparisonRefusedByThePersonFailsWithNumericComparisonFailed() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]),
            agent: ScriptedPairingAgent(acceptsNumericComparison: false))
        let pairing = harness.start(request(io: .keyboardDisplay, authReq: [.bonding, .mitm, .secureConnections]))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        _ = try await initiator.justWorksNonces(state, na: .random())

        #expect(try await initiator.expectFailure() == .numericComparisonFailed)
        await #expect(throws: PairingError.failedHere(.numericComparisonFailed)) { try await pairing.value }
        #expect(harness.log.encryptionKeys.isEmpty)
    }

    @Test func passkeyWeDisplayIsTypedByTheInitiatorAndAllTwentyRoundsPass() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]))
        let pairing = harness.start(request(io: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        // Secure Connections shows the passkey once the public keys are exchanged.
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        var displayed = harness.agent.displayedPasskeys.makeAsyncIterator()
        let passkey = try #require(await displayed.next())
        #expect(passkey <= 999_999)
        var nonces: (na: Value128, nb: Value128)?
        for round in 0..<20 {
            let na = Value128.random()
            let nb = try #require(try await initiator.passkeyRound(state, passkey: passkey, round: round, nai: na))
            nonces = (na, nb)
        }
        let (na, nb) = try #require(nonces)
        let ltk = try await initiator.checkDHKey(state, na: na, nb: nb, r: SecretKey128(passkey: passkey)!)
        _ = try await initiator.exchangeIdentities()
        let outcome = try await pairing.value

        #expect(outcome.method == PairingMethod(isSecureConnections: true, model: .passkeyEntry(.responderDisplays)))
        #expect(outcome.longTermKey?.key == ltk)
        #expect(harness.log.encryptionKeys == [ltk])
    }

    @Test func passkeyTypedHereIsUsedForEveryRound() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
            agent: ScriptedPairingAgent(typedPasskey: 123_456))
        let pairing = harness.start(request(io: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        var nonces: (na: Value128, nb: Value128)?
        for round in 0..<20 {
            let na = Value128.random()
            nonces = (na, try #require(try await initiator.passkeyRound(state, passkey: 123_456, round: round, nai: na)))
        }
        let (na, nb) = try #require(nonces)
        let ltk = try await initiator.checkDHKey(state, na: na, nb: nb, r: SecretKey128(passkey: 123_456)!)
        _ = try await initiator.exchangeIdentities()
        #expect(try await pairing.value.longTermKey?.key == ltk)
    }

    @Test func aWrongPasskeyFailsWithConfirmValueFailedInTheFirstRoundWhoseBitDiffers() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]))
        let pairing = harness.start(request(io: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        var displayed = harness.agent.displayedPasskeys.makeAsyncIterator()
        let passkey = try #require(await displayed.next())
        let typed = passkey ^ 0b100  // differs in bit 2
        for round in 0..<2 {
            #expect(try await initiator.passkeyRound(state, passkey: typed, round: round, nai: .random()) != nil)
        }
        #expect(try await initiator.passkeyRound(state, passkey: typed, round: 2, nai: .random()) == nil)
        #expect(initiator.lastFailure == .confirmValueFailed)
        await #expect(throws: PairingError.failedHere(.confirmValueFailed)) { try await pairing.value }
    }

    @Test func aPublicKeyOffTheCurveFailsWithDHKeyCheckFailedBeforeOursIsSent() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let own = P256KeyPair().publicKey
        try initiator.send(SMPPairingPublicKey(x: own.x.littleEndianBytes, y: [UInt8](repeating: 0, count: 32)))

        #expect(try await initiator.expectFailure() == .dhKeyCheckFailed)
        await #expect(throws: PairingError.failedHere(.dhKeyCheckFailed)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingResponse), .sent(.pairingFailed)])
    }

    @Test func ourOwnPublicKeyReflectedBackFailsWithDHKeyCheckFailed() async throws {
        let keyPair = P256KeyPair()
        let harness = ResponderUnderTest(keyPair: keyPair)
        let pairing = harness.start(request())
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let own = keyPair.publicKey
        try initiator.send(SMPPairingPublicKey(x: own.x.littleEndianBytes, y: own.y.littleEndianBytes))

        #expect(try await initiator.expectFailure() == .dhKeyCheckFailed)
        await #expect(throws: PairingError.failedHere(.dhKeyCheckFailed)) { try await pairing.value }
    }

    @Test func aWrongDHKeyCheckFailsWithDHKeyCheckFailedAndNothingIsEncrypted() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        _ = try await initiator.justWorksNonces(state, na: .random())
        try initiator.send(SMPPairingDHKeyCheck(checkValue: [UInt8](repeating: 0x5A, count: 16)))

        #expect(try await initiator.expectFailure() == .dhKeyCheckFailed)
        await #expect(throws: PairingError.failedHere(.dhKeyCheckFailed)) { try await pairing.value }
        #expect(harness.log.encryptionKeys.isEmpty)
    }
}

@Suite("SMPResponder: LE legacy pairing")
struct SMPResponderLegacyTests {
    private static let legacyRequest = request(
        authReq: [.bonding], initiatorKeys: [.encKey, .idKey, .signKey], responderKeys: [.encKey, .idKey, .signKey])
    private static let allKeys = PairingConfiguration(
        initiatorKeys: [.encKey, .idKey, .signKey], responderKeys: [.encKey, .idKey, .signKey])

    @Test func justWorksEncryptsWithS1OfZeroTKAndDistributesLTKEDIVRandIRKAddressAndCSRKInOrder() async throws {
        let harness = ResponderUnderTest(
            configuration: Self.allKeys,
            localKeys: SMPResponderLocalKeys(
                identity: ResponderUnderTest.responderIdentity, signatureKey: ResponderUnderTest.responderSignatureKey))
        let pairing = harness.start(Self.legacyRequest)
        let initiator = harness.initiator
        let response = try await initiator.expectResponse()
        #expect(response.features.initiatorKeyDistribution == [.encKey, .idKey, .signKey])
        #expect(response.features.responderKeyDistribution == [.encKey, .idKey, .signKey])
        let stk = try #require(try await initiator.legacyExchange(tk: .zero, mrand: .random()))

        let ltk = try await initiator.expect(SMPEncryptionInformation.self).longTermKey
        let identification = try await initiator.expect(SMPCentralIdentification.self)
        let irk = try await initiator.expect(SMPIdentityInformation.self).identityResolvingKey
        let address = try await initiator.expect(SMPIdentityAddressInformation.self).identityAddress
        let csrk = try await initiator.expect(SMPSigningInformation.self).signatureKey
        let centralLTK = ResponderUnderTest.key(0x90)
        try initiator.send(SMPEncryptionInformation(longTermKey: centralLTK))
        try initiator.send(SMPCentralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708))
        try initiator.send(SMPIdentityInformation(identityResolvingKey: initiatorIRK))
        try initiator.send(SMPIdentityAddressInformation(identityAddress: initiatorIdentity))
        let centralCSRK = ConnectionSignatureResolvingKey(key: ResponderUnderTest.key(0xA0))
        try initiator.send(SMPSigningInformation(signatureKey: centralCSRK))
        let outcome = try await pairing.value

        #expect(harness.log.encryptionKeys == [stk])
        #expect(outcome.shortTermKey == stk)
        #expect(
            harness.log.all == [
                .sent(.pairingResponse), .sent(.pairingConfirm), .sent(.pairingRandom), .encrypted,
                .sent(.encryptionInformation), .sent(.centralIdentification), .sent(.identityInformation),
                .sent(.identityAddressInformation), .sent(.signingInformation),
            ])
        let local = try #require(outcome.localLongTermKey)
        #expect(local.key == ltk && local.ediv == identification.ediv && local.rand == identification.rand)
        #expect(local.isSecureConnections == false && local.isAuthenticated == false)
        #expect(irk == ResponderUnderTest.responderIdentity.identityResolvingKey)
        #expect(address == ResponderUnderTest.responderIdentity.address)
        #expect(csrk == ResponderUnderTest.responderSignatureKey)
        #expect(outcome.longTermKey?.key == centralLTK)
        #expect(outcome.longTermKey?.ediv == 0x1234 && outcome.longTermKey?.rand == 0x0102_0304_0506_0708)
        #expect(outcome.peerIdentityResolvingKey == initiatorIRK)
        #expect(outcome.peerIdentityAddress == initiatorIdentity)
        #expect(outcome.peerSignatureKey == centralCSRK)
        #expect(outcome.method == PairingMethod(isSecureConnections: false, model: .justWorks))
    }

    @Test func passkeyWeDisplayBecomesTheTKOfTheSTK() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm]))
        let pairing = harness.start(request(io: .keyboardOnly, authReq: [.bonding, .mitm], initiatorKeys: []))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        var displayed = harness.agent.displayedPasskeys.makeAsyncIterator()
        let passkey = try #require(await displayed.next())
        let tk = try #require(SecretKey128(passkey: passkey))
        let stk = try #require(try await initiator.legacyExchange(tk: tk, mrand: .random()))
        _ = try await initiator.expect(SMPEncryptionInformation.self)
        _ = try await initiator.expect(SMPCentralIdentification.self)
        _ = try await initiator.expect(SMPIdentityInformation.self)
        _ = try await initiator.expect(SMPIdentityAddressInformation.self)
        let outcome = try await pairing.value

        #expect(outcome.shortTermKey == stk)
        #expect(harness.log.encryptionKeys == [stk])
        #expect(outcome.localLongTermKey?.isAuthenticated == true)
        #expect(outcome.method == PairingMethod(isSecureConnections: false, model: .passkeyEntry(.responderDisplays)))
    }

    @Test func aWrongLegacyPasskeyFailsWithConfirmValueFailed() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm]))
        let pairing = harness.start(request(io: .keyboardOnly, authReq: [.bonding, .mitm]))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        var displayed = harness.agent.displayedPasskeys.makeAsyncIterator()
        let passkey = try #require(await displayed.next())
        let wrong = try #require(SecretKey128(passkey: (passkey + 1) % 1_000_000))

        #expect(try await initiator.legacyExchange(tk: wrong, mrand: .random()) == nil)
        #expect(initiator.lastFailure == .confirmValueFailed)
        await #expect(throws: PairingError.failedHere(.confirmValueFailed)) { try await pairing.value }
    }

    @Test func secureConnectionsOnlyRefusesLegacyWithAuthenticationRequirements() async throws {
        let harness = ResponderUnderTest(configuration: PairingConfiguration(secureConnectionsOnly: true))
        let pairing = harness.start(request(authReq: [.bonding]))

        #expect(try await harness.initiator.expectFailure() == .authenticationRequirements)
        await #expect(throws: PairingError.failedHere(.authenticationRequirements)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingFailed)])
    }
}

@Suite("SMPResponder: phase 1 and failures")
struct SMPResponderFailureTests {
    @Test func aKeySizeBelowOurMinimumFailsWithEncryptionKeySize() async throws {
        let harness = ResponderUnderTest(configuration: PairingConfiguration(minEncryptionKeySize: 16))
        let pairing = harness.start(request(maxKeySize: 7))

        #expect(try await harness.initiator.expectFailure() == .encryptionKeySize)
        await #expect(throws: PairingError.encryptionKeySize(offered: 7, required: 16)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingFailed)])
    }

    @Test func theResponseOnlyKeepsKeysBothSidesWantAndWeHave() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(initiatorKeys: [.idKey, .signKey], responderKeys: [.encKey, .idKey, .signKey]),
            localKeys: SMPResponderLocalKeys(identity: nil))
        _ = harness.start(
            request(initiatorKeys: [.encKey, .idKey, .linkKey], responderKeys: [.idKey, .signKey, .linkKey]))
        let response = try await harness.initiator.expectResponse()
        #expect(response.features.initiatorKeyDistribution == [.idKey])
        #expect(response.features.responderKeyDistribution == [])
        harness.initiator.closeLink()
    }

    @Test func aSmallerKeySizeShortensTheKeyTheCentralEncryptsWith() async throws {
        // Shorter keys only with the explicit, weakened minimum.
        let harness = ResponderUnderTest(configuration: PairingConfiguration(minEncryptionKeySize: 7))
        let pairing = harness.start(request(maxKeySize: 10, initiatorKeys: [], responderKeys: []))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        let (na, nb) = try await initiator.justWorksNonces(state, na: .random())
        let ltk = try await initiator.checkDHKey(state, na: na, nb: nb, r: .zero)
        let outcome = try await pairing.value

        #expect(outcome.keySize == 10)
        let used = try #require(harness.log.encryptionKeys.first)
        #expect(keyOctets(used) == Array(keyOctets(ltk).prefix(10)) + [UInt8](repeating: 0, count: 6))
    }

    @Test func thePeersPairingFailedEndsPairingAsFailedByPeerWithoutAnswer() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        try harness.initiator.send(SMPPairingFailed(reason: .pairingNotSupported))

        await #expect(throws: PairingError.failedByPeer(.pairingNotSupported)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingResponse)])
    }

    @Test func aMalformedPDUFailsWithInvalidParameters() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        harness.initiator.send(raw: [0x0C] + [UInt8](repeating: 1, count: 10))  // a truncated Pairing Public Key

        #expect(try await harness.initiator.expectFailure() == .invalidParameters)
        await #expect(throws: PairingError.failedHere(.invalidParameters)) { try await pairing.value }
    }

    @Test func anUnexpectedPDUFailsWithUnspecifiedReason() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        try harness.initiator.send(SMPPairingRandom(randomValue: [UInt8](repeating: 1, count: 16)))

        #expect(try await harness.initiator.expectFailure() == .unspecifiedReason)
        await #expect(throws: PairingError.failedHere(.unspecifiedReason)) { try await pairing.value }
    }

    @Test func theLinkEndingMidwayIsLinkLost() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        harness.initiator.closeLink()

        await #expect {
            try await pairing.value
        } throws: { error in
            if case .linkLost = error as? PairingError { true } else { false }
        }
    }

    @Test func silenceForTheSMPTimeoutFailsAsTimedOutAndNothingMoreIsSent() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        await harness.clock.waitForSleepers(atLeast: 1)
        harness.clock.advance(by: .seconds(29))
        #expect(harness.clock.sleeperCount == 1)
        harness.clock.advance(by: .seconds(1))

        await #expect(throws: PairingError.timedOut) { try await pairing.value }
        await #expect(throws: PairingError.timedOut) {
            try await harness.responder.sendSecurityRequest(authReq: [.bonding])
        }
        #expect(harness.log.all == [.sent(.pairingResponse)])
    }

    @Test func afterATimeoutPDUsFromTheCentralGetNoAnswerAndNoPairingStarts() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        await harness.clock.waitForSleepers(atLeast: 1)
        harness.clock.advance(by: .seconds(30))
        await #expect(throws: PairingError.timedOut) { try await pairing.value }

        // A late Pairing Public Key, a malformed PDU, an unknown code, then a new Pairing Request.
        harness.initiator.send(raw: [0x0C] + [UInt8](repeating: 1, count: 64))
        harness.initiator.send(raw: [0x04, 0x01])
        harness.initiator.send(raw: [0x7F])
        await #expect(throws: PairingError.timedOut) { try await harness.responder.respond(to: request()) }
        #expect(harness.log.all == [.sent(.pairingResponse)])
    }

    @Test func aSecurityRequestCarriesTheAuthReq() async throws {
        let harness = ResponderUnderTest()
        try await harness.responder.sendSecurityRequest(authReq: [.bonding, .mitm, .secureConnections])
        let pdu = try await harness.initiator.expect(SMPSecurityRequest.self)
        #expect(pdu.authReq == [.bonding, .mitm, .secureConnections])
    }

    @Test func aResponderServesOneAttempt() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(request())
        try await harness.initiator.expectResponse()
        try harness.initiator.send(SMPPairingFailed(reason: .unspecifiedReason))
        _ = await pairing.result
        await #expect(throws: PairingError.failedByPeer(.unspecifiedReason)) {
            try await harness.responder.respond(to: request())
        }
    }
}
