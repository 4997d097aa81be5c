import Harald
import HaraldCodec

extension GoProCamera {
    // MARK: Readiness

    /// The readiness flow the Open GoPro docs prescribe for every connection: subscribe to every
    /// notifiable characteristic (the camera does not remember subscriptions), then poll Get
    /// Hardware Info every `pollInterval` until it succeeds. Returns the hardware info.
    ///
    /// Answers with status error (still booting) and request timeouts count as "not ready yet";
    /// after `timeout` the flow throws ``GoProError/timeout(request:after:)``. Other failures
    /// (disconnection, a malformed answer) end it at once.
    public func waitUntilReady(timeout: Duration = .seconds(10), pollInterval: Duration = .milliseconds(500)) async throws(GoProError)
        -> GoProHardwareInfo
    {
        let outcome: GoProHardwareInfo?
        do {
            outcome = try await withDeadline(timeout, clock: clock) { [self] () async throws -> GoProHardwareInfo in
                try await subscribeToEveryNotifiableCharacteristic(timeout: timeout)
                while true {
                    do {
                        return try await hardwareInfo()
                    } catch GoProError.rejected(_, status: .error), GoProError.timeout {
                        try await clock.sleep(for: pollInterval)
                    }
                }
            }
        } catch {
            throw GoProError.from(error)
        }
        guard let outcome else { throw .timeout(request: "readiness (Get Hardware Info)", after: timeout) }
        return outcome
    }

    /// The readiness flow from nothing: waits for the radio, scans for a camera (service 0xFEA6)
    /// unless `peripheral` names one, connects, then runs ``waitUntilReady(timeout:pollInterval:)``.
    /// The connection stays open (the caller owns it: `camera.connection.disconnect()`); if
    /// readiness fails, it is closed. `progress` hears each step. The whole flow shares `timeout`.
    public static func connectWhenReady(
        on central: Central, to peripheral: PeripheralIdentifier? = nil, timeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(5), progress: @escaping @Sendable (GoProReadinessStep) -> Void = { _ in }
    ) async throws -> (camera: GoProCamera, hardwareInfo: GoProHardwareInfo) {
        let ready = try await withDeadline(timeout, clock: central.clock) { () async throws -> ReadyCamera in
            do {
                try await central.waitUntilPoweredOn(timeout: timeout)
                let target: PeripheralIdentifier
                if let peripheral {
                    target = peripheral
                } else {
                    progress(.scanning)
                    target = try await central.scan(ScanRequest(services: [GoProCharacteristic.controlAndQueryService])).first(timeout: timeout).peripheral
                }
                progress(.connecting(target))
                let connection = try await central.connect(to: target, timeout: timeout)
                progress(.waitingForReadiness)
                let camera = GoProCamera(connection: connection, requestTimeout: requestTimeout)
                do {
                    let info = try await camera.waitUntilReady(timeout: timeout)
                    progress(.ready(info))
                    return ReadyCamera(camera: camera, hardwareInfo: info)
                } catch {
                    await connection.disconnect()
                    throw error
                }
            } catch let error as BluetoothError {
                throw GoProError.bluetooth(error)
            }
        }
        guard let ready else { throw GoProError.timeout(request: "connect and wait for readiness", after: timeout) }
        return (ready.camera, ready.hardwareInfo)
    }

    // MARK: Status registration

    /// Registers for 0x93 pushes of `statuses` and returns their current values with the stream
    /// of their changes (the push stream is opened before registering, so no change is missed).
    /// The stream ends with the connection; call ``unregisterFromStatusUpdates(_:timeout:)`` to
    /// stop the pushes.
    public func watchStatuses(_ statuses: [GoProStatusID], timeout: Duration? = nil) async throws(GoProError) -> GoProStatusWatch {
        try await start(timeout: timeout)
        let pushes = pushes()
        let current = try await registerForStatusUpdates(statuses, timeout: timeout)
        return GoProStatusWatch(current: current, pushes: pushes)
    }

    // MARK: Shutter

    /// The shutter flow: sends Set Shutter on, then checks that the camera reports encoding
    /// (status 10), polling Get Status Values until it does or `timeout` passes.
    public func startRecording(timeout: Duration = .seconds(5)) async throws(GoProError) {
        try await shutter(on: true, timeout: timeout)
    }

    /// Sends Set Shutter off and checks that the camera stops encoding (status 10 false).
    public func stopRecording(timeout: Duration = .seconds(5)) async throws(GoProError) {
        try await shutter(on: false, timeout: timeout)
    }

    private func shutter(on: Bool, timeout: Duration) async throws(GoProError) {
        let name = on ? "start recording" : "stop recording"
        let confirmed: Bool?
        do {
            confirmed = try await withDeadline(timeout, clock: clock) { [self] () async throws -> Bool in
                try await setShutter(on: on)
                while try await statuses([.encoding]).bool(.encoding) != on {
                    try await clock.sleep(for: .milliseconds(100))
                }
                return true
            }
        } catch {
            throw GoProError.from(error)
        }
        guard confirmed != nil else { throw .timeout(request: name, after: timeout) }
    }

    // MARK: Settings with verification

    /// A `ConfigurationFlow` step that sets `setting` to `value`, verifies it by reading it back
    /// with Get Setting Values, and on rollback restores the value it replaced.
    public nonisolated func settingStep(_ setting: GoProSettingID, to value: [UInt8], name: String? = nil) -> ConfigurationFlow.Step {
        ConfigurationFlow.Step(
            name: name ?? "\(setting) = \(value.count == 1 ? String(value[0]) : "0x" + value.hexString)",
            apply: { [self] _ in
                let previous = try await settings([setting])[setting].map(Array.init)
                try await set(setting, to: value)
                guard let previous, !previous.isEmpty else { return nil }
                return { [self] _ in try await set(setting, to: previous) }
            },
            verify: { [self] _ in try await settings([setting])[setting].map(Array.init) == value })
    }

    /// Applies setting changes in order as a `ConfigurationFlow`: each is written, then read
    /// back; if one fails or does not read back, the ones applied are restored in reverse order.
    /// Returns the names of the applied steps; `progress` hears each step.
    @discardableResult
    public func configure(
        _ changes: [(GoProSettingID, UInt8)], progress: @escaping @Sendable (ConfigurationFlow.Progress) -> Void = { _ in }
    ) async throws(ConfigurationFlow.Failure) -> [String] {
        let flow = ConfigurationFlow(steps: changes.map { settingStep($0.0, to: [$0.1]) })
        return try await flow.run(on: connection, progress: progress)
    }
}

/// A step of ``GoProCamera/connectWhenReady(on:to:timeout:requestTimeout:progress:)``.
public enum GoProReadinessStep: Sendable {
    /// Scanning for service 0xFEA6.
    case scanning
    /// Connecting to this camera.
    case connecting(PeripheralIdentifier)
    /// Connected; subscribing and polling Get Hardware Info.
    case waitingForReadiness
    /// The camera answered Get Hardware Info with success.
    case ready(GoProHardwareInfo)
}

/// Registered statuses: their values at registration and the pushes that follow.
public struct GoProStatusWatch: Sendable {
    /// The values the Register query answered.
    public let current: GoProValues
    /// Every push from the camera (status pushes for the registered IDs, and any other push
    /// registered on this camera); ends when the connection ends.
    public let pushes: AsyncStream<GoProPush>

    /// Only the status pushes' values.
    public var statusUpdates: AsyncCompactMapSequence<AsyncStream<GoProPush>, GoProValues> {
        pushes.compactMap { push in
            if case let .statusValues(values) = push { return values }
            return nil
        }
    }
}

/// A camera that passed readiness, handed out of the flow.
struct ReadyCamera: Sendable {
    let camera: GoProCamera
    let hardwareInfo: GoProHardwareInfo
}
