import Dispatch
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSMP
import HaraldTestSupport

/// The pairing state machines (HaraldSMP's `SMPResponder` and `SMPInitiator`) fed a random
/// sequence of PDUs from the peer, each with a configuration taken from the input.
///
/// Input: byte 0 is this device's configuration (bits 0-2 IO capability mod 5, bit 3 MITM, bit 4
/// Secure Connections, bit 5 Secure Connections Only, bit 6 bonding, bit 7 encryption fails);
/// byte 1 the key distribution (bits 0-2 the initiator's keys, bits 4-6 the responder's), bit 3
/// accepting the debug key, bit 7 a minimum key size of 7 octets instead of the default 16;
/// byte 2 the largest key size (7 + byte mod 10), and with bit 7 the bond rules (`BondAdmission`)
/// judge the peer's distributed keys, over a store that with bit 6 already holds an authenticated
/// Secure Connections bond of the peer's address; with bit 5 the responder's Repeated Attempts
/// limiter still makes the central wait after a failure. The responder target then takes 6 bytes: the
/// central's Pairing Request fields (an input whose request does not decode ends there). The rest
/// is the peer's PDUs: a header byte, then `header & 0x7F` bytes (cut short at the end of the
/// input); header 0xFF instead stands for a valid Pairing Public Key of the peer (another key
/// than ours, not the debug key), so runs get past the public-key check into confirm, random and
/// DHKey check; 0xFE for the debug public key; 0xFD for our own key negated, (x, p − y), the
/// reflection CVE-2020-26558 uses.
///
/// All the peer's PDUs are queued up front, then the channel closes, so a run never waits for the
/// SMP timeout; one that does not end within the hang bound (`FuzzHangBound`) is a hang and traps. What must hold for
/// every run (the spec's answers to bad PDUs, Vol 3 Part H §3.5.5 and §3.4):
/// - every PDU the device sends decodes, within the SMP MTU;
/// - the initiator's first PDU is its Pairing Request, the responder's a Pairing Response or
///   Pairing Failed;
/// - it sends at most one Pairing Failed, and nothing after it;
/// - a failure it detected itself (`failedHere(reason)`, or a key size below its minimum) was
///   sent as Pairing Failed with that reason; any other ending (the peer's Pairing Failed, a lost
///   link, a failed encryption) sent no Pairing Failed;
/// - a successful pairing sent no Pairing Failed, has a key of at least the required size, never
///   used the debug key unless accepted and is never a bond when it did, and is authenticated
///   only with a 16-octet key;
/// - under the bond rules, a successful pairing's claimed identity is proven by the connection
///   and it never replaced the stored bond with a weaker one; a refusal sent its reason;
/// - a responder whose limiter makes the central wait sends Pairing Failed, Repeated Attempts,
///   and nothing else;
/// - after the run the device refuses to pair again and sends nothing more.
let smpSequenceTargets: [FuzzTarget] = [
    FuzzTarget("SMP.ResponderSequence", runsTasks: true, runResponderSequence),
    FuzzTarget("SMP.InitiatorSequence", runsTasks: true, runInitiatorSequence),
]

/// The spec's P-256 sample keys (notes/smp.md §8.12): private key A is the SMP debug key, so
/// honest peers use B (the responder) and C, a fixed scalar of our own (the initiator).
private let keyPairA = P256KeyPair.debug
private let keyPairB = try! P256KeyPair(
    privateKeyBigEndianBytes: Hex.decode("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd"))
let fuzzKeyPairC = try! P256KeyPair(
    privateKeyBigEndianBytes: Hex.decode("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"))

private let fuzzAddresses = PairingAddresses(
    initiator: BluetoothAddress(value: 0x56_12_37_37_BF_CE, kind: .public)!,
    responder: BluetoothAddress(value: 0xC0_13_70_2D_CF_C1, kind: .random)!)
private let fuzzIdentity = try! LocalIdentity(
    address: BluetoothAddress(value: 0xC0_11_22_33_44_55, kind: .random)!,
    identityResolvingKey: IdentityResolvingKey(key: SecretKey128(littleEndianBytes: (0..<16).map { UInt8($0) })!))
private let fuzzSignatureKey = ConnectionSignatureResolvingKey(
    key: SecretKey128(littleEndianBytes: (0..<16).map { UInt8(0x40 + $0) })!)

/// The device's configuration and the peer's PDUs, read from a fuzz input.
private struct SMPScript {
    var configuration: PairingConfiguration
    var encryptionFails: Bool
    /// The bond rules judge the peer's keys.
    var bondRules: Bool
    /// The store holds an authenticated Secure Connections bond of the peer's address.
    var peerAlreadyBonded: Bool
    /// The responder's limiter has a failure of the central on record (it must wait).
    var centralMustWait: Bool
    var rest: ArraySlice<UInt8>

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 3 else { return nil }
        let flags = bytes[0]
        var authReq: AuthReq = []
        if flags & 0x08 != 0 { authReq.insert(.mitm) }
        if flags & 0x10 != 0 { authReq.insert(.secureConnections) }
        if flags & 0x40 != 0 { authReq.insert(.bonding) }
        configuration = PairingConfiguration(
            ioCapability: IOCapability(rawValue: (flags & 0x07) % 5) ?? .noInputNoOutput, authReq: authReq,
            maxEncryptionKeySize: 7 + bytes[2] % 10, minEncryptionKeySize: bytes[1] & 0x80 != 0 ? 7 : 16,
            initiatorKeys: KeyDistribution(rawValue: bytes[1] & 0x07), responderKeys: KeyDistribution(rawValue: bytes[1] >> 4 & 0x07),
            secureConnectionsOnly: flags & 0x20 != 0, acceptsDebugKeys: bytes[1] & 0x08 != 0)
        encryptionFails = flags & 0x80 != 0
        bondRules = bytes[2] & 0x80 != 0
        peerAlreadyBonded = bytes[2] & 0x40 != 0
        centralMustWait = bytes[2] & 0x20 != 0
        rest = bytes[3...]
    }

    /// The peer's PDUs in the rest of the input; `peerKey` is what header 0xFF stands for, the
    /// debug key 0xFE, and `ownKey` negated 0xFD.
    static func pdus(_ input: ArraySlice<UInt8>, peerKey: P256PublicKey, ownKey: P256PublicKey) -> [[UInt8]] {
        var pdus: [[UInt8]] = []
        var index = input.startIndex
        while index < input.endIndex {
            let header = input[index]
            index += 1
            let special: P256PublicKey? =
                switch header {
                case 0xFF: peerKey
                case 0xFE: keyPairA.publicKey
                case 0xFD: negatedPublicKey(ownKey)
                default: nil
                }
            if let special {
                pdus.append([SMPCode.pairingPublicKey.rawValue] + special.littleEndianBytes)
                continue
            }
            let end = min(input.endIndex, index + Int(header & 0x7F))
            pdus.append(Array(input[index..<end]))
            index = end
        }
        return pdus
    }
}

/// The device's end of the channel: the peer's PDUs queued up front, and what the device sent.
private final class ScriptedSMPBearer: SMPBearer {
    let incoming: AsyncStream<[UInt8]>
    private let sentPDUs = Locked<[[UInt8]]>([])

    init(_ pdus: [[UInt8]]) {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        for pdu in pdus { continuation.yield(pdu) }
        continuation.finish()
        incoming = stream
    }

    func send(_ pdu: [UInt8]) async throws { sentPDUs.withLock { $0.append(pdu) } }

    var sent: [[UInt8]] { sentPDUs.value }
}

/// Counting bytes: fixed, so a finding replays the same way.
private func countingBytes(_ count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: Int(seed) &* 37 &+ $0 &* 11) }
}

@Sendable func runResponderSequence(_ bytes: [UInt8]) {
    guard let script = SMPScript(bytes), script.rest.count >= 6 else { return }
    let requestBytes = [SMPCode.pairingRequest.rawValue] + script.rest.prefix(6)
    guard case .pairingRequest(let request)? = try? SMPPDU(decoding: requestBytes) else { return }
    let pdus = SMPScript.pdus(script.rest.dropFirst(6), peerKey: fuzzKeyPairC.publicKey, ownKey: keyPairB.publicKey)
    runToEnd("SMP.ResponderSequence", bytes) {
        let bearer = ScriptedSMPBearer(pdus)
        let counter = Locked<UInt8>(0)
        let random = SMPResponder.RandomSource { count in
            countingBytes(
                count,
                seed: counter.withLock {
                    $0 &+= 1; return $0
                })
        }
        let encryptionFails = script.encryptionFails
        let rules = await BondRulesUnderFuzz(script, peer: fuzzAddresses.initiator)
        let limiter = script.centralMustWait ? PairingAttemptLimiter(clock: ManualClock()) : nil
        if let limiter { await limiter.recordFailure(of: fuzzAddresses.initiator) }
        let responder = SMPResponder(
            bearer: bearer, configuration: script.configuration, addresses: fuzzAddresses,
            agent: AutomaticPairingAgent(passkey: 123_456),
            localKeys: SMPResponderLocalKeys(identity: fuzzIdentity, signatureKey: fuzzSignatureKey), keyPair: keyPairB,
            random: random, attempts: limiter, checkPeerKeys: rules?.check
        ) { _ in
            if encryptionFails { throw PairingError.encryptionFailed(0x06) }
        }
        let result: Result<PairingOutcome, PairingError>
        do throws(PairingError) { result = .success(try await responder.respond(to: request)) } catch { result = .failure(error) }
        if limiter != nil {
            let refusal = try? SMPPairingFailed(reason: .repeatedAttempts).encodedBytes()
            require(bearer.sent.count == 1 && bearer.sent.first == refusal, "SMPResponder paired a central that must wait; input \(bytes.hexString)")
        }
        await rules?.checkOutcome(result, who: "SMPResponder", input: bytes)
        let sentBefore = bearer.sent.count
        let again: PairingError?
        do throws(PairingError) { _ = try await responder.respond(to: request); again = nil } catch { again = error }
        require(again != nil, "SMPResponder paired twice")
        require(bearer.sent.count == sentBefore, "SMPResponder sent after its attempt ended")
        checkSent(bearer.sent, result: result, first: [.pairingResponse, .pairingFailed], who: "SMPResponder", input: bytes)
        checkOutcome(result, configuration: script.configuration, who: "SMPResponder", input: bytes)
    }
}

@Sendable func runInitiatorSequence(_ bytes: [UInt8]) {
    guard let script = SMPScript(bytes) else { return }
    let pdus = SMPScript.pdus(script.rest, peerKey: keyPairB.publicKey, ownKey: fuzzKeyPairC.publicKey)
    runToEnd("SMP.InitiatorSequence", bytes) {
        let bearer = ScriptedSMPBearer(pdus)
        let counter = Locked<UInt8>(0)
        let next: @Sendable () -> [UInt8] = {
            countingBytes(
                16,
                seed: counter.withLock {
                    $0 &+= 1; return $0
                })
        }
        let randomness = PairingRandomness(
            nonce: { Value128(littleEndianBytes: next())! }, keyPair: { fuzzKeyPairC }, passkey: { 123_456 },
            key: { SecretKey128(littleEndianBytes: next())! }, word: { 0x0102_0304_0506_0708 })
        let encryptionFails = script.encryptionFails
        let rules = await BondRulesUnderFuzz(script, peer: fuzzAddresses.responder)
        let initiator = SMPInitiator(
            bearer: bearer, configuration: script.configuration, addresses: fuzzAddresses,
            agent: AutomaticPairingAgent(passkey: 123_456),
            localKeys: LocalPairingKeys(
                identityResolvingKey: fuzzIdentity.identityResolvingKey, identityAddress: fuzzIdentity.address,
                signatureKey: fuzzSignatureKey),
            randomness: randomness, checkPeerKeys: rules?.check
        ) { _, _, _ in
            if encryptionFails { throw PairingError.encryptionFailed(0x06) }
        }
        let result: Result<PairingOutcome, PairingError>
        do throws(PairingError) { result = .success(try await initiator.pair()) } catch { result = .failure(error) }
        await rules?.checkOutcome(result, who: "SMPInitiator", input: bytes)
        checkSent(bearer.sent, result: result, first: [.pairingRequest], who: "SMPInitiator", input: bytes)
        checkOutcome(result, configuration: script.configuration, who: "SMPInitiator", input: bytes)
    }
}

/// The bond rules as the backends apply them (`BondAdmission` over a bond store), for a peer at
/// `peer`; nil when the input leaves them off.
private struct BondRulesUnderFuzz {
    let peer: BluetoothAddress
    let stored: Bond?
    let check: PeerKeysCheck

    init?(_ script: SMPScript, peer: BluetoothAddress) async {
        guard script.bondRules else { return nil }
        let stored =
            script.peerAlreadyBonded
            ? try! Bond(
                identityAddress: peer,
                longTermKey: LongTermKey(key: fuzzSignatureKey.key, keySize: 16, isAuthenticated: true, isSecureConnections: true),
                isAuthenticated: true, isSecureConnections: true)
            : nil
        let store = InMemoryBondStore(bonds: stored.map { [$0] } ?? [])
        let admission = BondAdmission(bonds: store, agent: AutomaticPairingAgent())
        self.peer = peer
        self.stored = stored
        check = { keys in await admission.check(keys, knownIdentity: nil) }
    }

    /// A pairing the rules let through claimed only a proven identity and, over a stored bond of
    /// the same identity, is at least as strong.
    func checkOutcome(_ result: Result<PairingOutcome, PairingError>, who: String, input: [UInt8]) async {
        guard case .success(let outcome) = result else { return }
        if outcome.peerIdentityAddress != nil {
            // The engine asked the rules and kept only what they accepted: the claim holds.
            let keys = PeerPairingKeys(
                connectedFrom: peer, identityAddress: outcome.peerIdentityAddress, identityResolvingKey: outcome.peerIdentityResolvingKey,
                method: outcome.method, keySize: outcome.keySize, isBonding: outcome.isBonding)
            require(BondAdmission.identityIsProven(keys), "\(who) kept an identity its connection does not prove; input \(input.hexString)")
        }
        guard outcome.isBonding, let stored else { return }
        let identity = outcome.peerIdentityAddress ?? stored.identityAddress
        guard identity == stored.identityAddress else { return }
        let replacement = BondStrength(identityAddress: identity, level: outcome.securityLevel, keySize: outcome.keySize)
        require(
            replacement.mayReplaceWithoutAsking(stored.strength),
            "\(who) kept a pairing (\(replacement)) weaker than the stored bond (\(stored.strength)); input \(input.hexString)")
    }
}

/// The security rules for what a pairing produced: a key of at least the size required, the
/// debug key only when accepted and then never a bond, and no authenticated key under 16 octets.
func checkOutcome(_ result: Result<PairingOutcome, PairingError>, configuration: PairingConfiguration, who: String, input: [UInt8]) {
    guard case .success(let outcome) = result else { return }
    require(outcome.keySize >= configuration.requiredKeySize, "\(who) paired with a \(outcome.keySize)-octet key; input \(input.hexString)")
    require(!outcome.usedDebugKey || configuration.acceptsDebugKeys, "\(who) paired with the debug key; input \(input.hexString)")
    require(!outcome.usedDebugKey || !outcome.isBonding, "\(who) would bond with the debug key; input \(input.hexString)")
    let keys = [outcome.longTermKey, outcome.localLongTermKey].compactMap(\.self)
    require(
        outcome.keySize >= 16 || (keys.allSatisfy { !$0.isAuthenticated } && outcome.securityLevel <= .encrypted),
        "\(who) counts a \(outcome.keySize)-octet key as authenticated; input \(input.hexString)")
}

/// Runs `body` on the concurrency pool and waits for it on this (libFuzzer's) thread: a run
/// that does not end within the hang bound (`FuzzHangBound`) is a hang.
private func runToEnd(_ name: String, _ input: [UInt8], _ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(FuzzHangBound.seconds)) == .timedOut {
        fatalError("\(name): no end after \(FuzzHangBound.seconds) s for input \(input.hexString)")
    }
}

/// The spec's rules for what a device sent in one run (see ``smpSequenceTargets``); with
/// `mustSend` false a side may also have sent nothing (a meddler may have swallowed its cue).
func checkSent(
    _ sent: [[UInt8]], result: Result<PairingOutcome, PairingError>, first: Set<SMPCode>, who: String, input: [UInt8],
    mustSend: Bool = true
) {
    var failures: [(index: Int, reason: PairingFailureReason)] = []
    for (index, bytes) in sent.enumerated() {
        let pdu: SMPPDU
        do {
            pdu = try SMPPDU(decoding: bytes, mtu: SecurityManager.secureConnectionsMTU)
        } catch {
            fatalError("\(who) sent \(bytes.hexString), which does not decode (\(error)); input \(input.hexString)")
        }
        if index == 0 { require(first.contains(pdu.code), "\(who) began with \(pdu.code); input \(input.hexString)") }
        if case .pairingFailed(let failed) = pdu { failures.append((index, failed.reason)) }
    }
    require(!mustSend || !sent.isEmpty, "\(who) sent nothing; input \(input.hexString)")
    require(failures.count <= 1, "\(who) sent \(failures.count) Pairing Failed; input \(input.hexString)")
    if let failure = failures.first {
        require(failure.index == sent.count - 1, "\(who) sent PDUs after Pairing Failed; input \(input.hexString)")
    }
    switch result {
    case .success:
        require(failures.isEmpty, "\(who) paired but sent Pairing Failed; input \(input.hexString)")
    case .failure(let error):
        if let reason = error.reasonSentHere {
            require(
                failures.first?.reason == reason,
                "\(who) failed with \(reason) but sent \(failures.first.map { "\($0.reason)" } ?? "no Pairing Failed"); input \(input.hexString)")
        } else {
            require(failures.isEmpty, "\(who) ended with \(error) yet sent Pairing Failed; input \(input.hexString)")
        }
    }
}
