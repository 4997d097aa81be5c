import ArgumentParser
import Harald
import HaraldGoPro
import HaraldHeartRateMonitor
import HaraldMiBand

/// The exit statuses of `harald`, after BSD's sysexits.h, so scripts can tell a mistake on the
/// command line from an absent device, a refusal and a timeout.
enum ExitStatus {
    /// Everything worked.
    static let success: Int32 = 0
    /// A check did not pass (a section of `harald demo` failed).
    static let failure: Int32 = 1
    /// The command line was wrong: unknown option, malformed address, UUID, hex or passkey
    /// (EX_USAGE; ArgumentParser's validation errors exit with it too).
    static let usage: Int32 = 64
    /// Input data was malformed (`harald decode`, `harald gopro decode`: bad hex or bytes) (EX_DATAERR).
    static let data: Int32 = 65
    /// The adapter, the device or the attribute is not there: transport not reachable, device
    /// not advertising, characteristic not found, radio off (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
    /// Harald itself failed (EX_SOFTWARE).
    static let software: Int32 = 70
    /// An operation timed out, or must be retried later (EX_TEMPFAIL).
    static let timeout: Int32 = 75
    /// The device refused or broke the protocol: an ATT error, pairing failed (a wrong passkey),
    /// the link dropped (EX_PROTOCOL).
    static let protocolFailure: Int32 = 76

    /// The status a failed radio command exits with (the device kits' errors included).
    static func of(_ error: any Error) -> Int32 {
        if error is ValidationError { return usage }
        if let error = error as? MiBandError { return of(error) }
        if let error = error as? GoProError { return of(error) }
        if let error = error as? HeartRateMonitorError { return of(error) }
        guard let error = error as? BluetoothError else { return failure }
        return of(error)
    }

    static func of(_ error: BluetoothError) -> Int32 {
        switch error {
        case .timeout, .encryptionTimedOut, .pairingAttemptTooSoon: return timeout
        case .radioUnavailable, .notFound, .connectionFailed, .connectionLimitReached, .unsupported, .backend: return unavailable
        case .attribute, .protocolViolation, .decoding, .disconnected, .serviceChanged, .pairingFailed, .peerRemovedPairingInformation,
            .notPermitted, .bufferOverflow, .bondRefused, .securityNotRaised, .channelRefused, .channelClosed:
            return protocolFailure
        case .encoding, .misuse: return software
        case .cancelled: return failure
        }
    }

    /// The band: silence is a timeout; a refusal or a reply out of protocol is the device's doing.
    static func of(_ error: MiBandError) -> Int32 {
        switch error {
        case .noReply: timeout
        case .authenticationRefused, .keySetupRequired, .unexpectedReply, .malformed, .invalidChallenge, .fetchRefused, .fetchFailed,
            .packetOutOfOrder, .tooManyRecords, .notificationsEnded:
            protocolFailure
        }
    }

    static func of(_ error: GoProError) -> Int32 {
        switch error {
        case .timeout: timeout
        case .rejected, .malformedResponse, .disconnected: protocolFailure
        case .cancelled: failure
        case let .bluetooth(underlying): of(underlying)
        }
    }

    static func of(_ error: HeartRateMonitorError) -> Int32 {
        switch error {
        case .notSupported: unavailable
        case .timeout: timeout
        case .controlPointNotSupported, .disconnected, .malformedValue, .pairing: protocolFailure
        case .cancelled: failure
        case let .bluetooth(underlying): of(underlying)
        }
    }

    /// The table for `harald --help`.
    static let summary = """
        Exit status: 0 success; 1 a check failed; 64 usage error; 65 malformed input data; \
        69 adapter, device or attribute unavailable (transport unreachable, device not advertising, \
        characteristic not found); 70 internal error; 75 timed out; 76 the device refused or broke \
        the protocol (ATT error, pairing failed, link lost). Errors print one line on stderr.
        """
}
