import Foundation
import HaraldATT
import HaraldCodec
import HaraldGoPro

/// A misbehaviour of the simulated action camera, for tests of the camera kit's error paths.
public struct ActionCameraFault: Hashable, Sendable {
    /// The request whose answers are affected (every time it is asked, unless `times` limits it).
    public enum Request: Hashable, Sendable {
        /// A command (GP-0072) with this ID.
        case command(UInt8)
        /// A setting (GP-0074) with this ID.
        case setting(UInt8)
        /// A query (GP-0076) with this ID.
        case query(UInt8)
    }

    /// What the camera does instead of answering normally.
    public enum Action: Hashable, Sendable {
        /// The answer is never sent.
        case neverAnswer
        /// The answer's start packet is lost: only its continuation packets arrive (an answer
        /// that fits one packet is sent as a lone continuation packet).
        case loseStartPacket
        /// The answer's last packet is lost: the message never completes (an answer that fits
        /// one packet is not sent at all).
        case loseLastPacket
        /// The answer is well packetized, but its payload ends in a TLV entry announcing more
        /// bytes than follow.
        case malformedPayload
        /// The answer's second packet arrives with a damaged header: a reserved start header
        /// (0x60) where its continuation header belongs, so the message breaks mid-way and the
        /// continuation packets after it belong to no message (an answer that fits one packet is
        /// sent unchanged).
        case corruptHeaderMidMessage
        /// The answer is sent twice; the copy reaches the client when no request waits for it.
        case answerTwice
    }

    public var request: Request
    public var action: Action
    /// How many answers to `request` misbehave, counting from the first; nil: all of them.
    public var times: Int?
    /// How long the camera holds a misbehaving answer before sending it (its write is
    /// acknowledged at once), so that the answer arrives while the client already waits.
    public var delay: Duration

    public init(_ request: Request, _ action: Action, times: Int? = nil, delay: Duration = .zero) {
        self.request = request
        self.action = action
        self.times = times
        self.delay = delay
    }
}

/// A message the camera notifies on one of its response characteristics.
struct CameraMessage: Sendable {
    var characteristic: GoProCharacteristic
    var bytes: [UInt8]
    var fault: ActionCameraFault.Action?
    /// How long the sender waits before the first packet.
    var delay: Duration = .zero

    /// The packets that carry it, as the camera cuts them: a General header when the whole
    /// message fits one 20-byte packet, the kit's fragmenter (Extended 13-bit header,
    /// continuation packets) otherwise.
    var packets: [[UInt8]] {
        var packets: [[UInt8]]
        if bytes.count < GoProFragmenter.defaultPacketSize {
            packets = [[UInt8(bytes.count)] + bytes]
        } else {
            packets = (try? GoProFragmenter.fragment(bytes)) ?? []
        }
        switch fault {
        case .loseStartPacket?: packets = packets.count > 1 ? Array(packets.dropFirst()) : packets.map { [0x80] + $0.dropFirst() }
        case .loseLastPacket?: packets.removeLast()
        case .corruptHeaderMidMessage? where packets.count > 1: packets[1][0] = 0x60
        default: break
        }
        return packets
    }
}

/// The camera's state — statuses, settings, recording, each connection's registrations — and its
/// answers to requests. Time-dependent statuses (13 video progress, 35 video time left, 70
/// battery) are derived from the simulation clock, so runs repeat exactly.
final class ActionCameraState: @unchecked Sendable {
    // @unchecked Sendable: every stored `var` is only touched with `lock` held; `faults`,
    // `bootTime` and `hardwareInfo` are immutable.
    private let lock = NSLock()
    private var statuses: [UInt8: [UInt8]]
    private var settings: [UInt8: [UInt8]] = [2: [9], 3: [0], 59: [4], 91: [3], 121: [0]]
    private var recording: (since: VirtualInstant, videoLeft: UInt32, battery: UInt8)?
    private var connections: [GATTConnectionID: ConnectionState] = [:]
    private let faults: [ActionCameraFault.Request: ActionCameraFault]
    /// How many more answers each limited fault spoils.
    private var remainingFaults: [ActionCameraFault.Request: Int]
    private let bootTime: Duration
    let hardwareInfo: [UInt8]

    /// What the camera keeps per connection.
    private struct ConnectionState {
        var connectedAt: VirtualInstant
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
        2: [1, 4, 6, 7, 9, 18, 24, 25, 26, 27, 28, 100, 107, 108, 109, 110, 111],
        3: [0, 1, 2, 5, 6, 8, 9, 10, 13],
        59: [0, 1, 4, 6, 7, 11, 12],
        91: [0, 2, 3, 4, 0x42],
        121: [0, 2, 3, 4, 7, 8, 9, 10],
    ]
    static let keepAliveSetting: UInt8 = 0x5B
    /// Frame rates the camera allows at 5K (resolution 24): 60, 30, 24 fps.
    static let framesPerSecondAt5K: [UInt8] = [5, 8, 10]

    /// The values `setting` allows now: at 5K the frame rate is limited.
    private func allowed(_ setting: UInt8) -> [UInt8]? {
        if setting == GoProSettingID.framesPerSecond.rawValue, settings[GoProSettingID.videoResolution.rawValue] == [24] {
            return Self.framesPerSecondAt5K
        }
        return Self.allowedSettings[setting]
    }

    init(serial: String, accessPointSSID: String, bootTime: Duration, faults: [ActionCameraFault]) {
        var table = Self.initialStatuses
        table[30] = Array(accessPointSSID.utf8)
        statuses = table
        self.bootTime = bootTime
        self.faults = Dictionary(faults.map { ($0.request, $0) }, uniquingKeysWith: { _, last in last })
        remainingFaults = self.faults.compactMapValues(\.times)
        func field(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        hardwareInfo = [0x3C, 0x00, 0x04, 0x00, 0x00, 0x00, 0x3E] + field("HERO12 Black") + field("0x05")
            + field("H23.01.01.10.00") + field(serial) + field(accessPointSSID) + field("0441693db024")
            + [0x01, 0x00, 0x01, 0x01, 0x01, 0x00, 0x02, 0x5B, 0x5D, 0x01, 0x01]
    }

    // MARK: Connections

    /// Starts keeping state for `connection` (idempotent); returns its outbox, which the
    /// connection's script drains.
    func connected(_ connection: GATTConnectionID, at now: VirtualInstant) -> AsyncStream<CameraMessage> {
        lock.withLock { state(of: connection, now: now).outbox }
    }

    /// Forgets `connection`: registrations end with the link.
    func disconnected(_ connection: GATTConnectionID) {
        let sink = lock.withLock { connections.removeValue(forKey: connection)?.sink }
        sink?.finish()
    }

    private func state(of connection: GATTConnectionID, now: VirtualInstant) -> ConnectionState {
        if let known = connections[connection] { return known }
        // A camera answers one request after another; a client flooding it loses answers
        // beyond this many, as it would on the real device, instead of growing a queue.
        let (outbox, sink) = AsyncStream<CameraMessage>.makeStream(bufferingPolicy: .bufferingOldest(64))
        let created = ConnectionState(connectedAt: now, outbox: outbox, sink: sink)
        connections[connection] = created
        return created
    }

    /// Queues `message` for `connection`.
    private func send(_ message: CameraMessage, to connection: GATTConnectionID) {
        connections[connection]?.sink.yield(message)
    }

    // MARK: Requests

    /// Handles one complete request message arriving on `characteristic` from `connection`:
    /// queues the answer, and the pushes it causes for registered connections.
    func handle(_ message: [UInt8], on characteristic: GoProCharacteristic, from connection: GATTConnectionID, at now: VirtualInstant) {
        lock.withLock {
            _ = state(of: connection, now: now)
            let id = message.first ?? 0
            let request: ActionCameraFault.Request
            var answer: [UInt8]
            let responseCharacteristic: GoProCharacteristic
            switch characteristic {
            case .command:
                request = .command(id)
                answer = command(message, from: connection, at: now)
                responseCharacteristic = .commandResponse
            case .settings:
                request = .setting(id)
                answer = setting(message, at: now)
                responseCharacteristic = .settingsResponse
            case .query:
                request = .query(id)
                answer = query(message, from: connection, at: now)
                responseCharacteristic = .queryResponse
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
    }

    /// The misbehaviour of this answer to `request`, if any; uses up one of a limited fault's
    /// answers. Called with `lock` held.
    private func takeFault(for request: ActionCameraFault.Request) -> ActionCameraFault.Action? {
        guard let fault = faults[request] else { return nil }
        guard let left = remainingFaults[request] else { return fault.action }
        guard left > 0 else { return nil }
        remainingFaults[request] = left - 1
        return fault.action
    }

    private func command(_ message: [UInt8], from connection: GATTConnectionID, at now: VirtualInstant) -> [UInt8] {
        guard let id = message.first else { return [0x00, GoProStatusCode.error.rawValue] }
        let parameters = Array(message.dropFirst())
        switch id {
        case GoProCommandID.setShutter.rawValue:
            guard parameters == [1, 0] || parameters == [1, 1] else { return [id, GoProStatusCode.invalidParameter.rawValue] }
            setRecording(parameters[1] == 1, at: now)
            return [id, GoProStatusCode.success.rawValue]
        case GoProCommandID.getHardwareInfo.rawValue:
            let booted = connections[connection].map { $0.connectedAt.duration(to: now) >= bootTime } ?? true
            return booted ? hardwareInfo : [id, GoProStatusCode.error.rawValue]
        case GoProCommandID.getOpenGoProVersion.rawValue:
            return [id, GoProStatusCode.success.rawValue, 0x01, 0x02, 0x01, 0x00]
        case GoProCommandID.sleep.rawValue, GoProCommandID.setAccessPointControl.rawValue,
            GoProCommandID.hilightMoment.rawValue, GoProCommandID.loadPresetGroup.rawValue:
            return [id, GoProStatusCode.success.rawValue]
        default:
            return [id, GoProStatusCode.error.rawValue]
        }
    }

    private func setting(_ message: [UInt8], at now: VirtualInstant) -> [UInt8] {
        guard message.count >= 2 else { return [message.first ?? 0, GoProStatusCode.error.rawValue] }
        let id = message[0]
        let value = Array(message.dropFirst(2))
        guard Int(message[1]) == value.count, let allowed = allowed(id) else { return [id, GoProStatusCode.error.rawValue] }
        guard value.count == 1, allowed.contains(value[0]) else { return [id, GoProStatusCode.invalidParameter.rawValue] }
        if id != Self.keepAliveSetting, settings[id] != value {
            let framesPerSecond = GoProSettingID.framesPerSecond.rawValue
            let ratesBefore = self.allowed(framesPerSecond)
            settings[id] = value
            push(GoProQueryID.settingValuePush.rawValue, [(id, value)], registered: \.settings)
            if let rates = self.allowed(framesPerSecond), rates != ratesBefore {
                push(GoProQueryID.settingCapabilityPush.rawValue, rates.map { (framesPerSecond, [$0]) }, registered: \.capabilities)
            }
        }
        return [id, GoProStatusCode.success.rawValue]
    }

    private func query(_ message: [UInt8], from connection: GATTConnectionID, at now: VirtualInstant) -> [UInt8] {
        guard let id = message.first else { return [0x00, GoProStatusCode.error.rawValue] }
        let ids = Array(message.dropFirst())
        let success = GoProStatusCode.success.rawValue
        switch GoProQueryID(id) {
        case .getSettingValues, .registerSettingValueUpdates:
            let asked = ids.isEmpty ? settings.keys.sorted() : ids
            if id == GoProQueryID.registerSettingValueUpdates.rawValue { connections[connection]?.settings.formUnion(asked) }
            return [id, success] + Self.table(asked.map { ($0, settings[$0] ?? []) })
        case .getStatusValues, .registerStatusValueUpdates:
            let current = currentStatuses(at: now)
            let asked = ids.isEmpty ? current.keys.sorted() : ids
            if id == GoProQueryID.registerStatusValueUpdates.rawValue {
                connections[connection]?.statuses.formUnion(asked)
                for status in asked where Self.timeDependent.contains(status) { connections[connection]?.pushed[status] = current[status] }
            }
            return [id, success] + Self.table(asked.map { ($0, current[$0] ?? []) })
        case .unregisterSettingValueUpdates:
            if ids.isEmpty { connections[connection]?.settings = [] } else { connections[connection]?.settings.subtract(ids) }
            return [id, success]
        case .unregisterStatusValueUpdates:
            if ids.isEmpty { connections[connection]?.statuses = [] } else { connections[connection]?.statuses.subtract(ids) }
            return [id, success]
        case .getSettingCapabilities, .registerSettingCapabilityUpdates:
            let asked = ids.isEmpty ? Self.allowedSettings.keys.sorted() : ids
            if id == GoProQueryID.registerSettingCapabilityUpdates.rawValue { connections[connection]?.capabilities.formUnion(asked) }
            return [id, success] + Self.table(asked.flatMap { setting in (allowed(setting) ?? []).map { (setting, [$0]) } })
        case .unregisterSettingCapabilityUpdates:
            if ids.isEmpty { connections[connection]?.capabilities = [] } else { connections[connection]?.capabilities.subtract(ids) }
            return [id, success]
        default:
            return [id, GoProStatusCode.error.rawValue]
        }
    }

    // MARK: Recording

    /// Statuses that follow the clock while recording: video progress (13), video time left
    /// (35), internal battery percentage (70).
    static let timeDependent: Set<UInt8> = [13, 35, 70]

    private func setRecording(_ on: Bool, at now: VirtualInstant) {
        guard on != (recording != nil) else { return }
        var changes: [(UInt8, [UInt8])]
        if on {
            statuses[13] = Self.uint32(0)
            recording = (now, Self.readUInt32(statuses[35]), statuses[70]?.first ?? 100)
            changes = [(8, [1]), (10, [1]), (13, Self.uint32(0))]
        } else {
            statuses = currentStatuses(at: now)
            recording = nil
            changes = [(8, [0]), (10, [0])]
        }
        statuses[8] = [on ? 1 : 0]
        statuses[10] = [on ? 1 : 0]
        push(GoProQueryID.statusValuePush.rawValue, changes, registered: \.statuses)
        // The time-dependent statuses just pushed (or reset) are what registered connections know.
        for key in connections.keys where connections[key]?.statuses.contains(13) == true {
            connections[key]?.pushed[13] = statuses[13]
        }
    }

    /// The statuses at `now`: while recording, the video grows by a second each second, the
    /// time left shrinks as much, and the battery loses 1 % a minute.
    private func currentStatuses(at now: VirtualInstant) -> [UInt8: [UInt8]] {
        guard let recording else { return statuses }
        let elapsed = recording.since.duration(to: now).components.seconds
        var current = statuses
        current[13] = Self.uint32(UInt32(clamping: elapsed))
        current[35] = Self.uint32(recording.videoLeft - min(recording.videoLeft, UInt32(clamping: elapsed)))
        current[70] = [recording.battery - min(recording.battery, UInt8(clamping: elapsed / 60))]
        return current
    }

    /// One second of the camera's clock for `connection`: pushes the time-dependent statuses it
    /// registered for that changed since it last heard of them.
    func tick(_ connection: GATTConnectionID, at now: VirtualInstant) {
        lock.withLock {
            guard let state = connections[connection] else { return }
            let current = currentStatuses(at: now)
            let changed = Self.timeDependent.sorted().filter { state.statuses.contains($0) && state.pushed[$0] != current[$0] }
            guard !changed.isEmpty else { return }
            for status in changed { connections[connection]?.pushed[status] = current[status] }
            send(CameraMessage(
                characteristic: .queryResponse,
                bytes: [GoProQueryID.statusValuePush.rawValue, GoProStatusCode.success.rawValue] + Self.table(changed.map { ($0, current[$0] ?? []) }),
                fault: nil), to: connection)
        }
    }

    /// Queues a push of `changes` to every connection registered (`registered` picks the set)
    /// for at least one of them, carrying only those it registered for.
    private func push(_ pushID: UInt8, _ changes: [(UInt8, [UInt8])], registered: KeyPath<ConnectionState, Set<UInt8>>) {
        for (connection, state) in connections.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let wanted = changes.filter { state[keyPath: registered].contains($0.0) }
            guard !wanted.isEmpty else { continue }
            send(CameraMessage(characteristic: .queryResponse, bytes: [pushID, GoProStatusCode.success.rawValue] + Self.table(wanted), fault: nil), to: connection)
        }
    }

    // MARK: Tables

    static func table(_ entries: [(UInt8, [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (id, value) in entries { bytes += [id, UInt8(value.count)] + value }
        return bytes
    }

    static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func readUInt32(_ bytes: [UInt8]?) -> UInt32 {
        (bytes ?? []).suffix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The statuses of a real camera (Open GoPro SDK `test_complex_write_command`): 88 entries.
    static let initialStatuses: [UInt8: [UInt8]] = {
        let hex = "0101010201040301000401ff0601000801000901000a01000b01000d04000000000e0400000000110101130103140101"
            + "150400003ea41601001701001801001a01001b01001c01521d001e0a475032343530303435361f010020010121010022"
            + "0400000873230400000fd624040000004025040000003526040000004027040000003528122531422530342530362530"
            + "372533312530442901002a01002d0100310400000000360800000000019582603701013801013904006e2f813a01003b"
            + "04000000003c04000001f43d01023e04000000003f01004004000004394101004201644301644401004501014601354a"
            + "01004b01004c01014d01014e01004f010051010152010153010155010056010058010059010c5a01015b01005d040000"
            + "00025e04000100005f04000200006004000003e861040000000262040100000263040000054764040000000065010066"
            + "01006701006801016901006a01006b04ffffffff6c01006d01006e0100710100"
        let bytes = (try? Hex.decode(hex)) ?? []
        var table: [UInt8: [UInt8]] = [:]
        var index = 0
        while index + 2 <= bytes.count {
            let length = Int(bytes[index + 1])
            table[bytes[index]] = Array(bytes[(index + 2)..<min(bytes.count, index + 2 + length)])
            index += 2 + length
        }
        return table
    }()
}
