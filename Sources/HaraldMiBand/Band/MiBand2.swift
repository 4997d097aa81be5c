import Foundation
import Harald
import HaraldCodec
import HaraldProfiles

/// A Xiaomi Mi Band 2 (or a Huami band speaking the same protocol) over a connection: the auth
/// handshake, steps, battery, heart rate and the activity history.
///
/// ```swift
/// let band = try await MiBand2.connect(central, to: peripheral)
/// try await band.authenticate(key: .default)
/// let today = try await band.steps()          // steps, metres, kcal
/// let bpm = try await band.heartRate()        // one measurement
/// ```
///
/// Every wait for the band has a deadline (``replyTimeout`` for protocol replies,
/// ``measurementTimeout`` for heart-rate measurements); wrong replies throw ``MiBandError``,
/// link failures `BluetoothError`.
public struct MiBand2: Sendable {
    /// The connection to the band.
    public let connection: PeripheralConnection
    /// The clock deadlines run on: the connection's, so a band on a simulator connection runs in
    /// virtual time.
    public var clock: any Clock<Duration> { connection.clock }
    /// How long to wait for a reply to a command (auth steps, fetch control).
    public var replyTimeout: Duration = .seconds(10)
    /// How long to wait for a heart-rate measurement (a single one takes the band 10–20 s).
    public var measurementTimeout: Duration = .seconds(40)

    /// Wraps an open connection; deadlines run on the connection's clock.
    public init(connection: PeripheralConnection) {
        self.connection = connection
    }

    /// Connects to the band, declaring the kit's services. With no `timeout` the connect is
    /// pending: it waits for the band without limit, until the calling task is cancelled.
    public static func connect(_ central: Central, to peripheral: PeripheralIdentifier, timeout: Duration? = nil) async throws -> MiBand2 {
        let connection = try await central.connect(to: peripheral, services: services, timeout: timeout)
        return MiBand2(connection: connection)
    }

    // MARK: Authentication

    /// When ``authenticate(key:keySetup:)`` installs the key on the band.
    public enum KeySetup: Hashable, Sendable {
        /// Never: a band that asks for a key fails with ``MiBandError/keySetupRequired``.
        case never
        /// When the band refuses the challenge request (it has no key yet), then retry.
        case whenAsked
        /// First, unconditionally (the first pairing with a new band).
        case always
    }

    /// How an authentication went.
    public enum Authentication: Hashable, Sendable {
        /// The band accepted the answer to its challenge.
        case authenticated
        /// The band took the key, then accepted the answer to its challenge.
        case authenticatedAfterKeySetup
    }

    /// Whether the band exposes the auth characteristic (0x0009 in service 0xFEE1).
    public func hasAuthCharacteristic() async throws -> Bool {
        do {
            _ = try await connection.characteristic(MiBandUUID.auth, service: MiBandUUID.authService)
            return true
        } catch BluetoothError.notFound {
            return false
        }
    }

    /// Runs the auth handshake on 0x0009: asks for a challenge (`02 08`), answers it with
    /// AES-128-ECB(key, challenge) (`03 08 …`) and waits for `10 03 01`. Installs the key first
    /// (`01 08 <key>`) as `keySetup` says. Throws ``MiBandError/authenticationRefused(step:status:)``
    /// when the band refuses (a wrong key refuses step 3), ``MiBandError/noReply(_:after:)`` when it
    /// stays silent.
    @discardableResult
    public func authenticate(key: MiBandKey = .default, keySetup: KeySetup = .whenAsked) async throws -> Authentication {
        let subscription = try await connection.subscribe(Characteristics.auth, buffering: .oldest(8), timeout: replyTimeout)
        return try await connection.ending(subscription) {
            try await handshake(key: key, keySetup: keySetup, inbox: ReplyInbox(subscription, on: connection))
        }
    }

    private func handshake(key: MiBandKey, keySetup: KeySetup, inbox: ReplyInbox<[UInt8]>) async throws -> Authentication {
        var installed = false
        if keySetup == .always {
            try await setKey(key, inbox)
            installed = true
        }
        var challenge = try await requestChallenge(inbox)
        if challenge == nil {
            guard keySetup == .whenAsked, !installed else {
                throw installed ? MiBandError.authenticationRefused(step: 2, status: MiBandReplyStatus.failure.rawValue) : MiBandError.keySetupRequired
            }
            try await setKey(key, inbox)
            installed = true
            challenge = try await requestChallenge(inbox)
        }
        guard let challenge else { throw MiBandError.authenticationRefused(step: 2, status: MiBandReplyStatus.failure.rawValue) }
        let answer = try key.encrypt(block: challenge)
        let reply = try await send(.answer(answer), inbox, step: "auth answer")
        guard reply.status == .success else { throw MiBandError.authenticationRefused(step: 3, status: reply.status.rawValue) }
        return installed ? .authenticatedAfterKeySetup : .authenticated
    }

    private func setKey(_ key: MiBandKey, _ inbox: ReplyInbox<[UInt8]>) async throws {
        let reply = try await send(.setKey(key.bytes), inbox, step: "auth key setup")
        guard reply.status == .success else { throw MiBandError.authenticationRefused(step: 1, status: reply.status.rawValue) }
    }

    /// The challenge, or nil when the band refused to give one (it wants a key first).
    private func requestChallenge(_ inbox: ReplyInbox<[UInt8]>) async throws -> [UInt8]? {
        let reply = try await send(.requestChallenge(), inbox, step: "auth challenge request")
        switch reply.status {
        case .success: return reply.challenge
        case .failure: return nil
        case let .other(status): throw MiBandError.authenticationRefused(step: 2, status: status)
        }
    }

    private func send(_ command: MiBandAuthCommand, _ inbox: ReplyInbox<[UInt8]>, step: String) async throws -> MiBandAuthReply {
        try await connection.write(try command.encodedBytes(), to: Characteristics.auth, timeout: replyTimeout)
        let bytes = try await inbox.next(within: replyTimeout, clock: clock, operation: step)
        let reply = try MiBandAuthReply.miBandDecoding(bytes)
        guard reply.command == command.code else {
            throw MiBandError.unexpectedReply(expected: "a reply to auth command \(command.code)", received: bytes)
        }
        return reply
    }

    // MARK: Steps and battery

    /// Today's steps, distance (m) and energy (kcal), read from 0x0007.
    public func steps() async throws -> MiBandRealtimeSteps {
        try await MiBandRealtimeSteps.miBandDecoding(connection.readRaw(Characteristics.realtimeSteps, timeout: replyTimeout))
    }

    /// Today's steps as the band notifies them (about once a second while they change). End the
    /// loop, or call `PeripheralConnection.unsubscribe(_:timeout:)`, to stop.
    public func stepUpdates(buffering: UpdateBuffering = .newest(16)) async throws -> Subscription<MiBandRealtimeSteps> {
        try await connection.subscribe(Characteristics.realtimeSteps, buffering: buffering, timeout: replyTimeout)
    }

    /// Battery level, charging state and last charge, read from 0x0006.
    public func battery() async throws -> MiBandBatteryInfo {
        try await MiBandBatteryInfo.miBandDecoding(connection.readRaw(Characteristics.batteryInfo, timeout: replyTimeout))
    }
}
