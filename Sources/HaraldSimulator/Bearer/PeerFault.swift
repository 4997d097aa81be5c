import HaraldATT
import HaraldCore

/// A misbehaviour of a virtual peripheral's ATT server, applied to the answer to one request.
///
/// Link-level faults (a PDU lost, late, corrupted or cut short, the link dropped) are
/// ``LinkFault``s; these are the protocol faults a buggy or hostile device commits. The client
/// must turn each into a typed error or a disconnection and leave nothing pending:
///
/// | action | what the GATT client does |
/// |---|---|
/// | ``Action/neverAnswer`` | the operation times out; after the ATT transaction timeout (30 s) the link is closed and everything pending fails with `disconnected` |
/// | ``Action/wrongOpcode(_:)`` | the operation fails with a protocol error (`unexpectedResponse`) |
/// | ``Action/unsolicitedResponse(_:)`` | the extra response is ignored and counted (`ATTCounters.ignoredPDUs`) |
/// | ``Action/floodNotifications(handle:value:count:)`` | values beyond a subscription's buffer are dropped and counted |
/// | ``Action/disconnect`` | everything pending fails with `disconnected` (peer terminated) |
/// | ``Action/answerAfter(_:)`` | an operation with a shorter timeout times out; the late answer then ends the transaction |
public struct PeerFault: Hashable, Sendable {
    /// What the server does instead of (or besides) answering normally.
    public enum Action: Hashable, Sendable {
        /// The response is never sent.
        case neverAnswer
        /// The response goes out with this opcode instead of its own.
        case wrongOpcode(ATTOpcode)
        /// After the response, this PDU follows although nothing asked for it.
        case unsolicitedResponse([UInt8])
        /// After the response, `count` Handle Value Notifications of `value` for `handle` follow
        /// back to back (as fast as the link's flow control lets them out).
        case floodNotifications(handle: UInt16, value: [UInt8], count: Int)
        /// Instead of answering, the peripheral terminates the connection.
        case disconnect
        /// The response goes out this long (virtual time) after the server had it ready, as
        /// from a slow device; the server answers nothing else meanwhile.
        case answerAfter(Duration)
    }

    /// The request whose answer is affected.
    public var request: ATTOpcode
    /// Which request of that opcode on the connection, counting from 1.
    public var occurrence: Int
    /// What the device does instead of answering normally.
    public var action: Action

    /// A fault applied to the `occurrence`-th request (from 1) with opcode `request`.
    public init(answering request: ATTOpcode, occurrence: Int = 1, _ action: Action) {
        self.request = request
        self.occurrence = occurrence
        self.action = action
    }
}

/// The peripheral-side layer of one connection, between the link and the GATT server: its peer
/// faults, what it needs to pair each outgoing response with the request it answers (a server
/// answers requests one at a time, in order), and the hook that starts simulated pairing when
/// the server first refuses a request for lack of security.
final class PeerFaultState: Sendable {
    private struct State {
        var faults: [PeerFault] = []
        var pendingRequests: [ATTOpcode] = []
        var requestCounts: [ATTOpcode: Int] = [:]
        /// Faults that have been applied, for tests and reports.
        var appliedFaults: [PeerFault] = []
        /// Called once, the first time the server refuses a request for lack of security.
        var securityRefusalHandler: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Sets what to do the first time the server refuses a request for lack of security
    /// (the simulator starts pairing).
    func onFirstSecurityRefusal(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.securityRefusalHandler = handler }
    }

    /// Notes an outgoing PDU; an Error Response asking for security runs the refusal handler once.
    func sending(_ pdu: [UInt8]) {
        guard pdu.count == 5, pdu[0] == ATTOpcode.errorResponse.rawValue, ATTErrorCode(pdu[4]).asksForSecurity else { return }
        let handler = state.withLock { state in
            defer { state.securityRefusalHandler = nil }
            return state.securityRefusalHandler
        }
        handler?()
    }

    func add(_ fault: PeerFault) { state.withLock { $0.faults.append(fault) } }

    /// Adds `action` for the next request of `request` the server receives.
    func addForNext(_ request: ATTOpcode, _ action: PeerFault.Action) {
        state.withLock { state in
            state.faults.append(PeerFault(answering: request, occurrence: (state.requestCounts[request] ?? 0) + 1, action))
        }
    }

    var applied: [PeerFault] { state.withLock { $0.appliedFaults } }

    /// Notes an inbound PDU; requests wait for their answer.
    func received(_ pdu: [UInt8]) {
        guard let first = pdu.first else { return }
        let opcode = ATTOpcode(first)
        guard opcode.kind == .request else { return }
        state.withLock { state in
            state.requestCounts[opcode, default: 0] += 1
            state.pendingRequests.append(opcode)
        }
    }

    /// The PDUs to send in place of `pdu`, whether to terminate the link instead, and how long to
    /// wait before sending them.
    func outgoing(_ pdu: [UInt8]) -> (pdus: [[UInt8]], disconnect: Bool, delay: Duration) {
        guard let first = pdu.first, ATTOpcode(first).kind == .response else { return ([pdu], false, .zero) }
        return state.withLock { state in
            guard !state.pendingRequests.isEmpty else { return ([pdu], false, .zero) }
            let request = state.pendingRequests.removeFirst()
            let occurrence = state.requestCounts[request] ?? 0
            var out = [pdu]
            var disconnect = false
            var delay = Duration.zero
            for fault in state.faults where fault.request == request && fault.occurrence == occurrence {
                state.appliedFaults.append(fault)
                switch fault.action {
                case .neverAnswer:
                    out.removeFirst()
                case .wrongOpcode(let opcode):
                    if !out.isEmpty { out[0][0] = opcode.rawValue }
                case .unsolicitedResponse(let extra):
                    out.append(extra)
                case let .floodNotifications(handle, value, count):
                    let notification = [ATTOpcode.handleValueNotification.rawValue, UInt8(handle & 0xFF), UInt8(handle >> 8)] + value
                    out += Array(repeating: notification, count: max(0, count))
                case .disconnect:
                    out = []
                    disconnect = true
                case .answerAfter(let wait):
                    delay = max(delay, wait)
                }
            }
            return (out, disconnect, delay)
        }
    }
}

extension ATTErrorCode {
    /// Insufficient Authentication, Insufficient Encryption or Encryption Key Size Too Short.
    fileprivate var asksForSecurity: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption || self == .encryptionKeySizeTooShort
    }
}
