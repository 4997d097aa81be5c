import Harald

extension GoProCamera {
    // MARK: Commands (GP-0072 → GP-0073)

    /// Sends a command and returns its successful response (ID, status, payload). Throws
    /// ``GoProError/rejected(request:status:)`` when the status is not success.
    @discardableResult
    public func send(_ command: GoProCommand, timeout: Duration? = nil) async throws(GoProError) -> GoProResponse {
        let message: [UInt8]
        do { message = try command.encoded() } catch { throw .bluetooth(.encoding(error)) }
        let name = command.id.description
        let response = try Self.response(try await exchange(message, on: .command, name: name, timeout: timeout), name: name)
        guard response.status.isSuccess else { throw .rejected(request: name, status: response.status) }
        return response
    }

    /// Starts (`on`) or stops recording with the shutter command; see ``startRecording(timeout:)``
    /// for the flow that also checks the camera's encoding status.
    public func setShutter(on: Bool, timeout: Duration? = nil) async throws(GoProError) {
        try await send(.setShutter(on: on), timeout: timeout)
    }

    /// Puts the camera to sleep.
    public func sleep(timeout: Duration? = nil) async throws(GoProError) {
        try await send(.sleep, timeout: timeout)
    }

    /// Get Hardware Info (command 0x3C): model, firmware, serial number, access point. Success
    /// also means the camera is ready for BLE requests; a camera still booting answers
    /// ``GoProError/rejected(request:status:)`` with status error.
    public func hardwareInfo(timeout: Duration? = nil) async throws(GoProError) -> GoProHardwareInfo {
        let response = try await send(.getHardwareInfo, timeout: timeout)
        do { return try GoProHardwareInfo(payload: response.payload) } catch {
            throw .malformedResponse(request: GoProCommandID.getHardwareInfo.description, detail: error.description)
        }
    }

    /// The Open GoPro API version the camera speaks (command 0x51), such as 2.0.
    public func openGoProVersion(timeout: Duration? = nil) async throws(GoProError) -> GoProOpenGoProVersion {
        let response = try await send(.getOpenGoProVersion, timeout: timeout)
        do { return try GoProOpenGoProVersion(payload: response.payload) } catch {
            throw .malformedResponse(request: GoProCommandID.getOpenGoProVersion.description, detail: error.description)
        }
    }

    // MARK: Settings (GP-0074 → GP-0075)

    /// Sets a setting (most take one byte; see the Open GoPro setting tables). Throws
    /// ``GoProError/rejected(request:status:)`` with `invalidParameter` for a value the camera
    /// does not allow, `error` when it cannot change it now.
    public func set(_ setting: GoProSettingID, to value: [UInt8], timeout: Duration? = nil) async throws(GoProError) {
        let message: [UInt8]
        do { message = try GoProSettingRequest(setting, value: value).encoded() } catch { throw .bluetooth(.encoding(error)) }
        let name = "set \(setting)"
        let response = try Self.response(try await exchange(message, on: .settings, name: name, timeout: timeout), name: name)
        guard response.status.isSuccess else { throw .rejected(request: name, status: response.status) }
    }

    /// Sets a one-byte setting.
    public func set(_ setting: GoProSettingID, to value: UInt8, timeout: Duration? = nil) async throws(GoProError) {
        try await set(setting, to: [value], timeout: timeout)
    }

    /// The keep-alive (setting 91 = 0x42 on GP-0074): the camera stays awake while it comes at
    /// least every few seconds (the SDK sends it every 3 s; see ``keepAlive(every:)``).
    public func sendKeepAlive(timeout: Duration? = nil) async throws(GoProError) {
        try await set(GoProSettingRequest.keepAlive.setting, to: GoProSettingRequest.keepAlive.value, timeout: timeout)
    }

    /// Sends the keep-alive every `interval` until the calling task is cancelled or a keep-alive
    /// fails (then throws). Cancellation is the way to stop it: it returns normally, whether the
    /// cancellation finds it waiting for the next turn or in the middle of a keep-alive (which is
    /// then abandoned). Run it beside the app's work, in a task group.
    public func keepAlive(every interval: Duration = .seconds(3)) async throws(GoProError) {
        while !Task.isCancelled {
            do { try await sendKeepAlive() } catch {
                // Whatever the interrupted send reports, the caller asked the loop to stop.
                if Task.isCancelled { return }
                throw error
            }
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }

    // MARK: Queries (GP-0076 → GP-0077)

    /// Sends a query and returns its successful response with the values it carries.
    public func query(_ query: GoProQuery, timeout: Duration? = nil) async throws(GoProError) -> GoProQueryResponse {
        let name = query.id.description
        let message = try await exchange(query.encoded(), on: .query, name: name, timeout: timeout)
        let response: GoProQueryResponse
        do { response = try GoProQueryResponse(message: message) } catch {
            throw .malformedResponse(request: name, detail: error.description)
        }
        guard response.status.isSuccess else { throw .rejected(request: name, status: response.status) }
        return response
    }

    /// Current values of `statuses` (every status the camera has when empty: a response of
    /// several hundred bytes on a real camera, many packets).
    public func statuses(_ statuses: [GoProStatusID] = [], timeout: Duration? = nil) async throws(GoProError) -> GoProValues {
        try await query(.getStatusValues(statuses), timeout: timeout).values
    }

    /// Current values of `settings` (all of them when empty).
    public func settings(_ settings: [GoProSettingID] = [], timeout: Duration? = nil) async throws(GoProError) -> GoProValues {
        try await query(.getSettingValues(settings), timeout: timeout).values
    }

    /// The allowed values of `settings` (all when empty): one entry per allowed value.
    public func settingCapabilities(_ settings: [GoProSettingID] = [], timeout: Duration? = nil) async throws(GoProError) -> GoProValues {
        try await query(.getSettingCapabilities(settings), timeout: timeout).values
    }

    /// Asks for 0x93 pushes whenever one of `statuses` changes; returns their current values.
    /// The pushes arrive on ``pushes(buffering:)`` (open it first so none is missed, or use
    /// ``watchStatuses(_:timeout:)``).
    @discardableResult
    public func registerForStatusUpdates(_ statuses: [GoProStatusID], timeout: Duration? = nil) async throws(GoProError) -> GoProValues {
        try await query(.registerStatusValueUpdates(statuses), timeout: timeout).values
    }

    /// Stops the 0x93 pushes of `statuses`.
    public func unregisterFromStatusUpdates(_ statuses: [GoProStatusID], timeout: Duration? = nil) async throws(GoProError) {
        _ = try await query(.unregisterStatusValueUpdates(statuses), timeout: timeout)
    }

    /// Asks for 0x92 pushes whenever one of `settings` changes; returns their current values.
    @discardableResult
    public func registerForSettingUpdates(_ settings: [GoProSettingID], timeout: Duration? = nil) async throws(GoProError) -> GoProValues {
        try await query(.registerSettingValueUpdates(settings), timeout: timeout).values
    }

    /// Stops the 0x92 pushes of `settings`.
    public func unregisterFromSettingUpdates(_ settings: [GoProSettingID], timeout: Duration? = nil) async throws(GoProError) {
        _ = try await query(.unregisterSettingValueUpdates(settings), timeout: timeout)
    }

    /// Asks for 0xA2 pushes whenever the allowed values of one of `settings` change (a new
    /// resolution limiting the frame rates, say); returns the allowed values now.
    @discardableResult
    public func registerForSettingCapabilityUpdates(_ settings: [GoProSettingID], timeout: Duration? = nil) async throws(GoProError)
        -> GoProValues
    {
        try await query(.registerSettingCapabilityUpdates(settings), timeout: timeout).values
    }

    /// Stops the 0xA2 pushes of `settings`.
    public func unregisterFromSettingCapabilityUpdates(_ settings: [GoProSettingID], timeout: Duration? = nil) async throws(GoProError) {
        _ = try await query(.unregisterSettingCapabilityUpdates(settings), timeout: timeout)
    }

    // MARK: Internals

    static func response(_ message: [UInt8], name: String) throws(GoProError) -> GoProResponse {
        do { return try GoProResponse(message: message) } catch {
            throw .malformedResponse(request: name, detail: error.description)
        }
    }
}
