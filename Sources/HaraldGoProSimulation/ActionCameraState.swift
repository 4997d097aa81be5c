import Harald
import HaraldCodec
import HaraldCore
import HaraldSimulator

/// The camera's state — statuses, settings, recording, each connection's registrations — and its
/// answers to requests. It lives behind a lock (`Locked<ActionCameraState>`), shared by the
/// write handlers and the connection scripts. Time-dependent statuses (13 video progress, 35
/// video time left, 70 battery) are derived from the camera's clock (time since it started),
/// so runs in virtual time repeat exactly.
struct ActionCameraState {
    private var statuses: [UInt8: [UInt8]]
    private var settings: [UInt8: [UInt8]] = [
        CameraSettingID.videoResolution: [9], CameraSettingID.framesPerSecond: [0], CameraSettingID.autoPowerDown: [4],
        CameraSettingID.led: [3], CameraSettingID.lens: [0],
    ]
    private var recording: (since: Duration, videoLeft: UInt32, battery: UInt8)?
    private var connections: [CentralIdentifier: ConnectionState] = [:]
    private let faults: [ActionCameraFault.Request: ActionCameraFault]
    /// How many more answers each limited fault spoils.
    private var remainingFaults: [ActionCameraFault.Request: Int]
    private let bootTime: Duration
    let identity: CameraIdentity

    /// What the camera keeps per connection.
    private struct ConnectionState {
        var connectedAt: Duration
        var statuses: Set<UInt8> = []
        var settings: Set<UInt8> = []
        var capabilities: Set<UInt8> = []
        /// The last values pushed of the statuses that change with time.
        var pushed: [UInt8: [UInt8]] = [:]
        let outbox: AsyncStream<CameraMessage>
        let sink: AsyncStream<CameraMessage>.Continuation
    }

    /// Allowed values of the settings the camera has (anything else is an invalid parameter).
    static let allowedSettings: [UInt8: [UInt8]] = [
        CameraSettingID.videoResolution: [1, 4, 6, 7, 9, 18, 24, 25, 26, 27, 28, 100, 107, 108, 109, 110, 111],
        CameraSettingID.framesPerSecond: [0, 1, 2, 5, 6, 8, 9, 10, 13],
        CameraSettingID.autoPowerDown: [0, 1, 4, 6, 7, 11, 12],
        CameraSettingID.led: [0, 2, 3, 4, CameraSettingID.keepAliveValue],
        CameraSettingID.lens: [0, 2, 3, 4, 7, 8, 9, 10],
    ]
    /// Frame rates the camera allows at 5K: 60, 30, 24 fps.
    static let framesPerSecondAt5K: [UInt8] = [5, 8, 10]
    /// Statuses that follow the clock while recording.
    static let timeDependent: Set<UInt8> = [CameraStatusID.videoProgress, CameraStatusID.videoTimeLeft, CameraStatusID.internalBatteryPercentage]

    init(identity: CameraIdentity, bootTime: Duration, faults: [ActionCameraFault]) {
        var table = CameraValueTable.capturedStatuses
        table[30] = Array(identity.accessPointSSID.utf8)
        statuses = table
        self.identity = identity
        self.bootTime = bootTime
        self.faults = Dictionary(faults.map { ($0.request, $0) }, uniquingKeysWith: { _, last in last })
        remainingFaults = self.faults.compactMapValues(\.times)
    }

    /// The values `setting` allows now: at 5K the frame rate is limited.
    private func allowed(_ setting: UInt8) -> [UInt8]? {
        if setting == CameraSettingID.framesPerSecond, settings[CameraSettingID.videoResolution] == [CameraSettingID.resolution5K] {
            return Self.framesPerSecondAt5K
        }
        return Self.allowedSettings[setting]
    }

    // MARK: Connections

    /// Starts keeping state for `connection` (idempotent); returns its outbox, which the
    /// connection's script drains.
    mutating func connected(_ connection: CentralIdentifier, at now: Duration) -> AsyncStream<CameraMessage> {
        state(of: connection, now: now).outbox
    }

    /// Forgets `connection` (registrations end with the link); returns its outbox's sink, to
    /// finish once the lock is released.
    mutating func disconnected(_ connection: CentralIdentifier) -> AsyncStream<CameraMessage>.Continuation? {
        connections.removeValue(forKey: connection)?.sink
    }

    private mutating func state(of connection: CentralIdentifier, now: Duration) -> ConnectionState {
        if let known = connections[connection] { return known }
        // A camera answers one request after another; a client flooding it loses answers
        // beyond this many, as it would on the real device, instead of growing a queue.
        let (outbox, sink) = AsyncStream<CameraMessage>.makeStream(bufferingPolicy: .bufferingOldest(64))
        let created = ConnectionState(connectedAt: now, outbox: outbox, sink: sink)
        connections[connection] = created
        return created
    }

    /// Queues `message` for `connection`.
    private func send(_ message: CameraMessage, to connection: CentralIdentifier) {
        connections[connection]?.sink.yield(message)
    }

    // MARK: Requests

    /// Handles one complete request message arriving on the request characteristic `channel`
    /// from `connection`: queues the answer, and the pushes it causes for registered connections.
    mutating func handle(_ message: [UInt8], on channel: BluetoothUUID, from connection: CentralIdentifier, at now: Duration) {
        _ = state(of: connection, now: now)
        let id = message.first ?? 0
        let request: ActionCameraFault.Request
        var answer: [UInt8]
        let responseCharacteristic: BluetoothUUID
        switch channel {
        case VirtualPeripheral.OpenGoPro.command:
            request = .command(id)
            answer = command(message, from: connection, at: now)
            responseCharacteristic = VirtualPeripheral.OpenGoPro.commandResponse
        case VirtualPeripheral.OpenGoPro.settings:
            request = .setting(id)
            answer = setting(message)
            responseCharacteristic = VirtualPeripheral.OpenGoPro.settingsResponse
        case VirtualPeripheral.OpenGoPro.query:
            request = .query(id)
            answer = query(message, from: connection, at: now)
            responseCharacteristic = VirtualPeripheral.OpenGoPro.queryResponse
        default:
            return
        }
        let fault = takeFault(for: request)
        if fault == .neverAnswer { return }
        if fault == .malformedPayload { answer += [0xFF, 0x05, 0x01] }
        let delay = fault == nil ? .zero : faults[request]?.delay ?? .zero
        send(CameraMessage(characteristic: responseCharacteristic, bytes: answer, fault: fault, delay: delay), to: connection)
        if fault == .answerTwice { send(CameraMessage(characteristic: responseCharacteristic, bytes: answer, fault: nil), to: connection) }
    }

    /// The misbehaviour of this answer to `request`, if any; uses up one of a limited fault's
    /// answers.
    private mutating func takeFault(for request: ActionCameraFault.Request) -> ActionCameraFault.Action? {
        guard let fault = faults[request] else { return nil }
        guard let left = remainingFaults[request] else { return fault.action }
        guard left > 0 else { return nil }
        remainingFaults[request] = left - 1
        return fault.action
    }

    /// A command (`[id][length][value]…`) and its answer (`[id][status]…`).
    private mutating func command(_ message: [UInt8], from connection: CentralIdentifier, at now: Duration) -> [UInt8] {
        guard let id = message.first else { return [0x00, CameraResponseStatus.error] }
        let parameters = Array(message.dropFirst())
        switch id {
        case CameraCommandID.setShutter:
            guard parameters == [1, 0] || parameters == [1, 1] else { return [id, CameraResponseStatus.invalidParameter] }
            setRecording(parameters[1] == 1, at: now)
            return [id, CameraResponseStatus.success]
        case CameraCommandID.getHardwareInfo:
            let booted = connections[connection].map { (now - $0.connectedAt) >= bootTime } ?? true
            return booted ? identity.hardwareInfo : [id, CameraResponseStatus.error]
        case CameraCommandID.getOpenGoProVersion:
            // Version 2.0: major and minor as length-value fields.
            return [id, CameraResponseStatus.success, 0x01, 0x02, 0x01, 0x00]
        case CameraCommandID.sleep, CameraCommandID.setAccessPointControl, CameraCommandID.hilightMoment, CameraCommandID.loadPresetGroup:
            return [id, CameraResponseStatus.success]
        default:
            return [id, CameraResponseStatus.error]
        }
    }

    /// A setting write (`[id][length][value]`) and its answer; a changed value is pushed to the
    /// connections registered for it.
    private mutating func setting(_ message: [UInt8]) -> [UInt8] {
        guard message.count >= 2 else { return [message.first ?? 0, CameraResponseStatus.error] }
        let id = message[0]
        let value = Array(message.dropFirst(2))
        guard Int(message[1]) == value.count, let allowed = allowed(id) else { return [id, CameraResponseStatus.error] }
        guard value.count == 1, allowed.contains(value[0]) else { return [id, CameraResponseStatus.invalidParameter] }
        let keepAlive = id == CameraSettingID.led && value == [CameraSettingID.keepAliveValue]
        if !keepAlive, settings[id] != value {
            let framesPerSecond = CameraSettingID.framesPerSecond
            let ratesBefore = self.allowed(framesPerSecond)
            settings[id] = value
            push(CameraQueryID.settingValuePush, [(id, value)], registered: \.settings)
            if let rates = self.allowed(framesPerSecond), rates != ratesBefore {
                push(CameraQueryID.settingCapabilityPush, rates.map { (framesPerSecond, [$0]) }, registered: \.capabilities)
            }
        }
        return [id, CameraResponseStatus.success]
    }

    /// A query (`[query id][element ids…]`, no IDs meaning all) and its answer.
    private mutating func query(_ message: [UInt8], from connection: CentralIdentifier, at now: Duration) -> [UInt8] {
        guard let id = message.first else { return [0x00, CameraResponseStatus.error] }
        let ids = Array(message.dropFirst())
        let success = CameraResponseStatus.success
        switch id {
        case CameraQueryID.getSettingValues, CameraQueryID.registerSettingValues:
            let asked = ids.isEmpty ? settings.keys.sorted() : ids
            if id == CameraQueryID.registerSettingValues { connections[connection]?.settings.formUnion(asked) }
            return [id, success] + CameraValueTable.encode(asked.map { ($0, settings[$0] ?? []) })
        case CameraQueryID.getStatusValues, CameraQueryID.registerStatusValues:
            let current = currentStatuses(at: now)
            let asked = ids.isEmpty ? current.keys.sorted() : ids
            if id == CameraQueryID.registerStatusValues {
                connections[connection]?.statuses.formUnion(asked)
                for status in asked where Self.timeDependent.contains(status) { connections[connection]?.pushed[status] = current[status] }
            }
            return [id, success] + CameraValueTable.encode(asked.map { ($0, current[$0] ?? []) })
        case CameraQueryID.unregisterSettingValues:
            if ids.isEmpty { connections[connection]?.settings = [] } else { connections[connection]?.settings.subtract(ids) }
            return [id, success]
        case CameraQueryID.unregisterStatusValues:
            if ids.isEmpty { connections[connection]?.statuses = [] } else { connections[connection]?.statuses.subtract(ids) }
            return [id, success]
        case CameraQueryID.getSettingCapabilities, CameraQueryID.registerSettingCapabilities:
            let asked = ids.isEmpty ? Self.allowedSettings.keys.sorted() : ids
            if id == CameraQueryID.registerSettingCapabilities { connections[connection]?.capabilities.formUnion(asked) }
            return [id, success] + CameraValueTable.encode(asked.flatMap { setting in (allowed(setting) ?? []).map { (setting, [$0]) } })
        case CameraQueryID.unregisterSettingCapabilities:
            if ids.isEmpty { connections[connection]?.capabilities = [] } else { connections[connection]?.capabilities.subtract(ids) }
            return [id, success]
        default:
            return [id, CameraResponseStatus.error]
        }
    }

    // MARK: Recording

    private mutating func setRecording(_ on: Bool, at now: Duration) {
        guard on != (recording != nil) else { return }
        let changes: [(UInt8, [UInt8])]
        if on {
            statuses[CameraStatusID.videoProgress] = CameraValueTable.uint32(0)
            recording = (
                now, CameraValueTable.readUInt32(statuses[CameraStatusID.videoTimeLeft]),
                statuses[CameraStatusID.internalBatteryPercentage]?.first ?? 100
            )
            changes = [(CameraStatusID.busy, [1]), (CameraStatusID.encoding, [1]), (CameraStatusID.videoProgress, CameraValueTable.uint32(0))]
        } else {
            statuses = currentStatuses(at: now)
            recording = nil
            changes = [(CameraStatusID.busy, [0]), (CameraStatusID.encoding, [0])]
        }
        statuses[CameraStatusID.busy] = [on ? 1 : 0]
        statuses[CameraStatusID.encoding] = [on ? 1 : 0]
        push(CameraQueryID.statusValuePush, changes, registered: \.statuses)
        // The time-dependent statuses just pushed (or reset) are what registered connections know.
        for key in connections.keys where connections[key]?.statuses.contains(CameraStatusID.videoProgress) == true {
            connections[key]?.pushed[CameraStatusID.videoProgress] = statuses[CameraStatusID.videoProgress]
        }
    }

    /// The statuses at `now`: while recording, the video grows by a second each second, the
    /// time left shrinks as much, and the battery loses 1 % a minute.
    private func currentStatuses(at now: Duration) -> [UInt8: [UInt8]] {
        guard let recording else { return statuses }
        let elapsed = (now - recording.since).components.seconds
        var current = statuses
        current[CameraStatusID.videoProgress] = CameraValueTable.uint32(UInt32(clamping: elapsed))
        current[CameraStatusID.videoTimeLeft] = CameraValueTable.uint32(recording.videoLeft - min(recording.videoLeft, UInt32(clamping: elapsed)))
        current[CameraStatusID.internalBatteryPercentage] = [recording.battery - min(recording.battery, UInt8(clamping: elapsed / 60))]
        return current
    }

    /// One second of the camera's clock for `connection`: pushes the time-dependent statuses it
    /// registered for that changed since it last heard of them.
    mutating func tick(_ connection: CentralIdentifier, at now: Duration) {
        guard let state = connections[connection] else { return }
        let current = currentStatuses(at: now)
        let changed = Self.timeDependent.sorted().filter { state.statuses.contains($0) && state.pushed[$0] != current[$0] }
        guard !changed.isEmpty else { return }
        for status in changed { connections[connection]?.pushed[status] = current[status] }
        let table = CameraValueTable.encode(changed.map { ($0, current[$0] ?? []) })
        send(
            CameraMessage(
                characteristic: VirtualPeripheral.OpenGoPro.queryResponse, bytes: [CameraQueryID.statusValuePush, CameraResponseStatus.success] + table,
                fault: nil), to: connection)
    }

    /// Queues a push of `changes` to every connection registered (`registered` picks the set)
    /// for at least one of them, carrying only those it registered for.
    private func push(_ pushID: UInt8, _ changes: [(UInt8, [UInt8])], registered: KeyPath<ConnectionState, Set<UInt8>>) {
        for (connection, state) in connections.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let wanted = changes.filter { state[keyPath: registered].contains($0.0) }
            guard !wanted.isEmpty else { continue }
            send(
                CameraMessage(
                    characteristic: VirtualPeripheral.OpenGoPro.queryResponse,
                    bytes: [pushID, CameraResponseStatus.success] + CameraValueTable.encode(wanted.map { (id: $0.0, value: $0.1) }), fault: nil),
                to: connection)
        }
    }
}
