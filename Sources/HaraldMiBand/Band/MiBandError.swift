import Harald
import HaraldCodec

/// Everything the Mi Band kit reports when the band answers wrongly or not at all.
///
/// Link failures (disconnection, ATT errors) arrive as `BluetoothError`; these cases are about
/// the band's own protocol.
public enum MiBandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The band refused a step of the auth handshake (`10 0x 04`): `step` 1 = key setup,
    /// 2 = challenge request, 3 = answer (a wrong key).
    case authenticationRefused(step: UInt8, status: UInt8)
    /// The band asked for a key to be installed, and key setup was not allowed.
    case keySetupRequired
    /// The band replied to a different command than the one just sent.
    case unexpectedReply(expected: String, received: [UInt8])
    /// A reply or value did not decode (too short, a wrong opcode, out-of-range fields).
    case malformed(ByteDecodingError)
    /// The band did not answer within the timeout.
    case noReply(String, after: Duration)
    /// A challenge or key of the wrong length.
    case invalidChallenge(Int)
    /// The band refused the activity fetch (`10 01 <status>`).
    case fetchRefused(status: UInt8)
    /// The band ended the transfer with a failure status (`10 02 <status>`).
    case fetchFailed(status: UInt8)
    /// An activity packet arrived out of order (a counter was skipped or repeated).
    case packetOutOfOrder(expected: UInt8, received: UInt8)
    /// The band sent more records than it announced, or announced more than a fetch takes
    /// (``MiBand2/maximumActivityRecords``).
    case tooManyRecords(announced: UInt32)
    /// The band stopped notifying before the operation finished.
    case notificationsEnded(String)

    /// What the band did wrong, with its status byte or the bytes it sent where the case carries them,
    /// e.g. `the band refused the authentication (wrong key?), status 0x04`.
    public var description: String {
        switch self {
        case let .authenticationRefused(step, status):
            step == 3
                ? "the band refused the authentication (wrong key?), status 0x\(Hex.byte(status))"
                : "the band refused auth step \(step), status 0x\(Hex.byte(status))"
        case .keySetupRequired: "the band asks for a new key and key setup was not allowed"
        case let .unexpectedReply(expected, received): "expected \(expected), the band sent \(received.hexString)"
        case let .malformed(error): "malformed reply: \(error)"
        case let .noReply(operation, after): "no reply to \(operation) within \(after)"
        case let .invalidChallenge(count): "a challenge must be 16 bytes, not \(count)"
        case let .fetchRefused(status): "the band refused the activity fetch, status 0x\(Hex.byte(status))"
        case let .fetchFailed(status): "the activity transfer failed, status 0x\(Hex.byte(status))"
        case let .packetOutOfOrder(expected, received): "activity packet \(received) arrived, expected \(expected)"
        case let .tooManyRecords(announced): "the band sent more than the \(announced) records it announced"
        case let .notificationsEnded(what): "the band stopped notifying during \(what)"
        }
    }
}
