import Dispatch
import HaraldCodec
import HaraldCore
import HaraldSMP

/// Harald's `SMPInitiator` pairing with Harald's `SMPResponder` through a meddler the fuzz input
/// drives: each PDU either side sends is passed on, dropped, sent twice, has one octet changed, or
/// has a PDU from the input sent before it. Honest by default, so runs reach every phase (key
/// generation, encryption, key distribution) and the fuzzer only chooses where to deviate.
///
/// Input: byte 0 the initiator's configuration and byte 1 the responder's (as in
/// ``smpSequenceTargets``: IO capability, MITM, Secure Connections, SC Only, bonding), byte 2 the
/// key distribution both ask for (low nibble the initiator's keys, high nibble the responder's);
/// then one action per PDU sent, in the order they are sent: `action % 8` 0…3 pass, 4 drop, 5 send
/// twice, 6 change octet `next % length` to `next`, 7 first send the PDU in the next bytes (a length
/// octet, `length & 0x7F` octets). Once the input runs out every PDU passes.
///
/// The SMP timeout is 20 ms of real time (a dropped PDU ends a run in a timeout); a run that does
/// not end within the hang bound (`FuzzHangBound`) is a hang and traps. Both sides must obey the rules of
/// ``smpSequenceTargets`` for what they sent, and when both complete they must have encrypted
/// with the same key.
let smpMeddlerTargets: [FuzzTarget] = [
    FuzzTarget("SMP.MeddledPairing", runsTasks: true, runMeddledPairing)
]

private let meddlerKeyPairB = try! P256KeyPair(
    privateKeyBigEndianBytes: Hex.decode("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd"))
private let meddlerAddresses = PairingAddresses(
    initiator: BluetoothAddress(value: 0x56_12_37_37_BF_CE, kind: .public)!,
    responder: BluetoothAddress(value: 0xC0_13_70_2D_CF_C1, kind: .random)!)
private let meddlerIdentity = try! LocalIdentity(
    address: BluetoothAddress(value: 0xC0_11_22_33_44_55, kind: .random)!,
    identityResolvingKey: IdentityResolvingKey(key: SecretKey128(littleEndianBytes: (0..<16).map { UInt8($0) })!))

/// The meddler between the two sides: takes each sent PDU, applies the next action, and delivers.
private final class Meddler: Sendable {
    private struct State {
        var actions: ArraySlice<UInt8>
        var sent: [Side: [[UInt8]]] = [.initiator: [], .responder: []]
        var meddled = false
    }

    enum Side: Hashable, Sendable { case initiator, responder }

    private let state: Locked<State>
    let toInitiator: AsyncStream<[UInt8]>.Continuation
    let toResponder: AsyncStream<[UInt8]>.Continuation
    let initiatorIncoming: AsyncStream<[UInt8]>
    let responderIncoming: AsyncStream<[UInt8]>

    init(actions: ArraySlice<UInt8>) {
        state = Locked(State(actions: actions))
        (initiatorIncoming, toInitiator) = AsyncStream.makeStream(of: [UInt8].self)
        (responderIncoming, toResponder) = AsyncStream.makeStream(of: [UInt8].self)
    }

    func sent(by side: Side) -> [[UInt8]] { state.withLock { $0.sent[side] ?? [] } }
    var meddled: Bool { state.withLock { $0.meddled } }

    func send(_ pdu: [UInt8], from side: Side) {
        let deliveries: [[UInt8]] = state.withLock { state in
            state.sent[side, default: []].append(pdu)
            guard let action = state.actions.popFirst() else { return [pdu] }
            switch action % 8 {
            case 4:
                state.meddled = true
                return []
            case 5:
                state.meddled = true
                return [pdu, pdu]
            case 6:
                state.meddled = true
                guard !pdu.isEmpty, let position = state.actions.popFirst(), let value = state.actions.popFirst() else { return [pdu] }
                var changed = pdu
                changed[Int(position) % changed.count] = value
                return [changed]
            case 7:
                state.meddled = true
                guard let header = state.actions.popFirst() else { return [pdu] }
                let injected = Array(state.actions.prefix(Int(header & 0x7F)))
                state.actions = state.actions.dropFirst(injected.count)
                return [injected, pdu]
            default:
                return [pdu]
            }
        }
        let target = side == .initiator ? toResponder : toInitiator
        for delivery in deliveries { target.yield(delivery) }
    }

    func close() {
        toInitiator.finish()
        toResponder.finish()
    }
}

private struct MeddledBearer: SMPBearer {
    let meddler: Meddler
    let side: Meddler.Side
    let incoming: AsyncStream<[UInt8]>

    func send(_ pdu: [UInt8]) async throws { meddler.send(pdu, from: side) }
}

/// LE Enable Encryption between the two: the initiator's key meets the key the responder
/// answers the LTK request with; equal keys encrypt, different keys drop the link (MIC failure).
/// Whoever comes first waits for the other (within its SMP timeout); ``finish()`` releases a side
/// still waiting when the run ends.
private actor EncryptionRendezvous {
    private var waiting: (key: SecretKey128, continuation: CheckedContinuation<Bool, Never>)?
    private var isFinished = false
    private(set) var encryptedKeys: [SecretKey128] = []

    /// True when both sides used the same key.
    func meet(with key: SecretKey128) async -> Bool {
        if isFinished { return false }
        if let other = waiting {
            waiting = nil
            let same = other.key == key
            if same { encryptedKeys.append(key) }
            other.continuation.resume(returning: same)
            return same
        }
        return await withCheckedContinuation { waiting = (key, $0) }
    }

    func finish() {
        isFinished = true
        waiting?.continuation.resume(returning: false)
        waiting = nil
    }
}

private func meddlerConfiguration(_ flags: UInt8, keys: UInt8) -> PairingConfiguration {
    var authReq: AuthReq = []
    if flags & 0x08 != 0 { authReq.insert(.mitm) }
    if flags & 0x10 != 0 { authReq.insert(.secureConnections) }
    if flags & 0x40 != 0 { authReq.insert(.bonding) }
    return PairingConfiguration(
        ioCapability: IOCapability(rawValue: (flags & 0x07) % 5) ?? .noInputNoOutput, authReq: authReq,
        initiatorKeys: KeyDistribution(rawValue: keys & 0x07), responderKeys: KeyDistribution(rawValue: keys >> 4 & 0x07),
        secureConnectionsOnly: flags & 0x20 != 0, timeout: .milliseconds(20))
}

/// Outcomes of one meddled run, handed from the pool to libFuzzer's thread.
///
/// `@unchecked Sendable` is safe: written before `done.signal()`, read after `done.wait`.
private final class MeddledRun: @unchecked Sendable {
    var initiator: Result<PairingOutcome, PairingError>?
    var responder: Result<PairingOutcome, PairingError>?
    var encryptedKeys: [SecretKey128] = []
}

@Sendable func runMeddledPairing(_ bytes: [UInt8]) {
    guard bytes.count >= 3 else { return }
    let initiatorConfiguration = meddlerConfiguration(bytes[0], keys: bytes[2])
    let responderConfiguration = meddlerConfiguration(bytes[1], keys: bytes[2])
    let meddler = Meddler(actions: bytes[3...])
    let run = MeddledRun()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let rendezvous = EncryptionRendezvous()
        let counter = Locked<UInt8>(0)
        let next: @Sendable () -> [UInt8] = {
            let seed = counter.withLock {
                $0 &+= 1; return $0
            }
            return (0..<16).map { UInt8(truncatingIfNeeded: Int(seed) &* 29 &+ $0 &* 13) }
        }
        let initiator = SMPInitiator(
            bearer: MeddledBearer(meddler: meddler, side: .initiator, incoming: meddler.initiatorIncoming),
            configuration: initiatorConfiguration, addresses: meddlerAddresses, agent: AutomaticPairingAgent(passkey: 123_456),
            localKeys: LocalPairingKeys(identityResolvingKey: meddlerIdentity.identityResolvingKey, identityAddress: meddlerAddresses.initiator),
            randomness: PairingRandomness(
                nonce: { Value128(littleEndianBytes: next())! }, keyPair: { fuzzKeyPairC }, passkey: { 123_456 },
                key: { SecretKey128(littleEndianBytes: next())! }, word: { 0x1122_3344_5566_7788 })
        ) { key, _, _ in
            guard await rendezvous.meet(with: key) else { throw PairingError.encryptionFailed(0x3D) }
        }
        let responder = SMPResponder(
            bearer: MeddledBearer(meddler: meddler, side: .responder, incoming: meddler.responderIncoming),
            configuration: responderConfiguration, addresses: meddlerAddresses, agent: AutomaticPairingAgent(passkey: 123_456),
            localKeys: SMPResponderLocalKeys(identity: meddlerIdentity), keyPair: meddlerKeyPairB,
            random: SMPResponder.RandomSource { count in Array((next() + next()).prefix(count)) }
        ) { key in
            guard await rendezvous.meet(with: key) else { throw PairingError.encryptionFailed(0x3D) }
        }
        // The responder starts on the first PDU that reaches it, as a dispatcher would: a
        // Pairing Request starts it; anything else ends the run (nobody answers it).
        let responding = Task { () -> Result<PairingOutcome, PairingError>? in
            var pdus = meddler.responderIncoming.makeAsyncIterator()
            guard let first = await pdus.next(), case .pairingRequest(let request)? = try? SMPPDU(decoding: first) else {
                return nil
            }
            do throws(PairingError) { return .success(try await responder.respond(to: request)) } catch { return .failure(error) }
        }
        let initiated: Result<PairingOutcome, PairingError>
        do throws(PairingError) { initiated = .success(try await initiator.pair()) } catch { initiated = .failure(error) }
        // The initiator is done: what it would still send goes nowhere, and the responder's
        // channel closes, as the link would after a failure or once both are done.
        if case .failure = initiated { meddler.close() }
        let responded = await withTaskGroup(of: Void.self) { group -> Result<PairingOutcome, PairingError>? in
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                meddler.close()
            }
            let value = await responding.value
            group.cancelAll()
            return value
        }
        meddler.close()
        await rendezvous.finish()
        run.initiator = initiated
        run.responder = responded
        run.encryptedKeys = await rendezvous.encryptedKeys
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(FuzzHangBound.seconds)) == .timedOut {
        fatalError("SMP pairing through a meddler: no end after \(FuzzHangBound.seconds) s for input \(bytes.hexString)")
    }
    guard let initiated = run.initiator else { return }
    checkSent(meddler.sent(by: .initiator), result: initiated, first: [.pairingRequest], who: "SMPInitiator", input: bytes, mustSend: false)
    checkOutcome(initiated, configuration: initiatorConfiguration, who: "SMPInitiator", input: bytes)
    if let responded = run.responder { checkOutcome(responded, configuration: responderConfiguration, who: "SMPResponder", input: bytes) }
    if let responded = run.responder {
        checkSent(
            meddler.sent(by: .responder), result: responded, first: [.pairingResponse, .pairingFailed], who: "SMPResponder", input: bytes,
            mustSend: false)
        if case .success(let ours) = initiated, case .success(let theirs) = responded, ours.method.isSecureConnections {
            require(
                ours.longTermKey?.key == theirs.longTermKey?.key && ours.longTermKey.map({ run.encryptedKeys.contains($0.key) }) == true,
                "the two sides completed Secure Connections with different LTKs; input \(bytes.hexString)")
        }
    }
}
