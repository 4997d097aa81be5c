import Harald
import HaraldCodec
import HaraldSimulator
import Testing

// Backend-agnostic scenarios: each runs against any `CentralBackend` whose peer — a device
// serving `ScenarioProfile` — a test can steer through `ScenarioPeer`. The CoreBluetooth fake runs
// them in CoreBluetoothScenarioTests.swift; another backend joins by providing a harness.

/// The GATT layout every scenario peer serves.
enum ScenarioProfile {
    static let service: BluetoothUUID = "5CE40001-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Read and notify; starts as `statusInitial`.
    static let status: BluetoothUUID = "5CE40002-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Read and write.
    static let setting: BluetoothUUID = "5CE40003-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Write without response.
    static let stream: BluetoothUUID = "5CE40004-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Write: every write is answered by a notification on `response` carrying `answer(to:)`.
    static let command: BluetoothUUID = "5CE40005-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    /// Notify: the answers to `command`.
    static let response: BluetoothUUID = "5CE40006-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
    static let statusInitial: [UInt8] = [0x2A]
    static let settingInitial: [UInt8] = [0x01, 0x02]

    static func answer(to command: [UInt8]) -> [UInt8] { [0x80] + command }
}

/// The device at the other end of a scenario, as a test controls it.
protocol ScenarioPeer: Sendable {
    /// Whom to connect to.
    var identifier: PeripheralIdentifier { get }
    /// Keep requests unanswered until `resumeAnswering()`.
    func holdAnswers()
    /// Answer the held requests, in order, and every later one at once.
    func resumeAnswering()
    /// Returns once `count` requests are held.
    func waitForHeldRequests(_ count: Int) async
    /// Notifies `value` on characteristic `uuid` (delivered only if the central subscribed).
    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async
    /// The peer's current value of `uuid`.
    func value(of uuid: BluetoothUUID) -> [UInt8]
    /// Values written without response to `uuid`, in arrival order.
    func writesWithoutResponse(to uuid: BluetoothUUID) -> [[UInt8]]
    /// The peer closes the link.
    func disconnectFromPeer() async
}

/// A backend, its peer and the virtual clock its timeouts run on.
struct ScenarioHarness: Sendable {
    let backend: any CentralBackend
    let peer: any ScenarioPeer
    let clock: VirtualClock
    /// Operations the backend still waits on (0 when nothing leaked), if it can tell.
    let pendingOperations: @Sendable () -> Int?
}

/// The scenario suite. `run(_:)` performs one against a harness and checks that nothing is left
/// pending afterwards.
enum BackendScenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case connectAndDiscover
    case read
    case writeWithResponse
    case writeWithoutResponseArrivesInOrder
    case subscribeDeliversNotificationsInOrder
    case readResponseIsNotANotification
    case requestResponse
    case disconnectMidOperationFailsPendingAtOnce
    case peerDisconnectEndsSubscriptions
    case readTimesOut
    case cancelledReadThrowsCancellation
    case localDisconnect
    case reconnectGivesAFreshConnection

    var testDescription: String { rawValue }

    static let timeout = Duration.seconds(5)

    func run(_ harness: ScenarioHarness) async throws {
        switch self {
        case .connectAndDiscover: try await Self.connectAndDiscover(harness)
        case .read: try await Self.read(harness)
        case .writeWithResponse: try await Self.writeWithResponse(harness)
        case .writeWithoutResponseArrivesInOrder: try await Self.writeWithoutResponse(harness)
        case .subscribeDeliversNotificationsInOrder: try await Self.subscribe(harness)
        case .readResponseIsNotANotification: try await Self.readResponseIsNotANotification(harness)
        case .requestResponse: try await Self.requestResponse(harness)
        case .disconnectMidOperationFailsPendingAtOnce: try await Self.disconnectMidOperation(harness)
        case .peerDisconnectEndsSubscriptions: try await Self.peerDisconnectEndsSubscriptions(harness)
        case .readTimesOut: try await Self.readTimesOut(harness)
        case .cancelledReadThrowsCancellation: try await Self.cancelledRead(harness)
        case .localDisconnect: try await Self.localDisconnect(harness)
        case .reconnectGivesAFreshConnection: try await Self.reconnect(harness)
        }
        if let pending = harness.pendingOperations() { #expect(pending == 0, "operations left pending") }
    }

    // MARK: Steps shared by the scenarios

    struct Profile {
        let connection: any ConnectionBackend
        let characteristics: [BluetoothUUID: DiscoveredCharacteristic]
        subscript(_ uuid: BluetoothUUID) -> DiscoveredCharacteristic { characteristics[uuid]! }
    }

    static func connect(_ harness: ScenarioHarness) async throws -> Profile {
        let connection = try await harness.backend.connect(to: harness.peer.identifier, timeout: timeout)
        let services = try await connection.discoverServices([ScenarioProfile.service], timeout: timeout)
        let service = try #require(services.first { $0.uuid == ScenarioProfile.service })
        let characteristics = try await connection.discoverCharacteristics(nil, of: service, timeout: timeout)
        return Profile(connection: connection, characteristics: Dictionary(characteristics.map { ($0.uuid, $0) }) { first, _ in first })
    }

    // MARK: Scenarios

    static func connectAndDiscover(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        #expect(profile.connection.peripheral == harness.peer.identifier)
        #expect(Set(profile.characteristics.keys) == [
            ScenarioProfile.status, ScenarioProfile.setting, ScenarioProfile.stream, ScenarioProfile.command, ScenarioProfile.response,
        ])
        #expect(profile[ScenarioProfile.status].properties.contains(.notify))
        #expect(profile[ScenarioProfile.stream].properties.contains(.writeWithoutResponse))
        #expect(Set(profile.characteristics.values.map(\.valueHandle)).count == 5, "value handles are unique")
        await profile.connection.disconnect()
    }

    static func read(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        #expect(try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout) == ScenarioProfile.settingInitial)
        await profile.connection.disconnect()
    }

    static func writeWithResponse(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        try await profile.connection.write([0x09, 0x08], to: profile[ScenarioProfile.setting], kind: .withResponse, timeout: timeout)
        #expect(harness.peer.value(of: ScenarioProfile.setting) == [0x09, 0x08])
        #expect(try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout) == [0x09, 0x08])
        await profile.connection.disconnect()
    }

    static func writeWithoutResponse(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        let chunks: [[UInt8]] = (0..<20).map { [UInt8($0), 0xEE] }
        for chunk in chunks {
            try await profile.connection.write(chunk, to: profile[ScenarioProfile.stream], kind: .withoutResponse, timeout: timeout)
        }
        #expect(harness.peer.writesWithoutResponse(to: ScenarioProfile.stream) == chunks)
        await profile.connection.disconnect()
    }

    static func subscribe(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        let status = profile[ScenarioProfile.status]
        let updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096)))
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        let sent: [[UInt8]] = (1...5).map { [UInt8($0)] }
        for value in sent { await harness.peer.notify(value, on: ScenarioProfile.status) }
        var received: [[UInt8]] = []
        for await value in updates {
            received.append(value)
            if received.count == sent.count { break }
        }
        #expect(received == sent)
        await profile.connection.disconnect()
    }

    static func readResponseIsNotANotification(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        let status = profile[ScenarioProfile.status]
        let updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096)))
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        #expect(try await profile.connection.read(status, timeout: timeout) == ScenarioProfile.statusInitial)
        await harness.peer.notify([0x77], on: ScenarioProfile.status)
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == [0x77], "the first value a subscriber sees is the notification, not the read response")
        await profile.connection.disconnect()
    }

    static func requestResponse(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        let response = profile[ScenarioProfile.response]
        let answers = (await profile.connection.valueUpdates(for: response, buffering: .oldest(4096)))
        try await profile.connection.setNotifications(true, for: response, timeout: timeout)
        try await profile.connection.write([0x01, 0x05], to: profile[ScenarioProfile.command], kind: .withResponse, timeout: timeout)
        var iterator = answers.makeAsyncIterator()
        #expect(await iterator.next() == ScenarioProfile.answer(to: [0x01, 0x05]))
        await profile.connection.disconnect()
    }

    static func disconnectMidOperation(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        harness.peer.holdAnswers()
        let connection = profile.connection
        let setting = profile[ScenarioProfile.setting]
        let read = Task { try await connection.read(setting, timeout: timeout) }
        let write = Task { try await connection.write([0x03], to: setting, kind: .withResponse, timeout: timeout) }
        await harness.peer.waitForHeldRequests(2)
        await harness.peer.disconnectFromPeer()
        await #expect(throws: BluetoothError.disconnected(.remoteRequest)) { try await read.value }
        await #expect(throws: BluetoothError.disconnected(.remoteRequest)) { try await write.value }
        #expect(await connection.disconnection() == .remoteRequest)
        await #expect(throws: BluetoothError.disconnected(.remoteRequest)) { try await connection.read(setting, timeout: timeout) }
        harness.peer.resumeAnswering()
    }

    static func peerDisconnectEndsSubscriptions(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        let status = profile[ScenarioProfile.status]
        let updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096)))
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        await harness.peer.notify([0x10], on: ScenarioProfile.status)
        await harness.peer.disconnectFromPeer()
        var received: [[UInt8]] = []
        for await value in updates { received.append(value) }  // ends with the connection
        #expect(received == [[0x10]])
    }

    static func readTimesOut(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        harness.peer.holdAnswers()
        let connection = profile.connection
        let setting = profile[ScenarioProfile.setting]
        let read = Task { try await connection.read(setting, timeout: .seconds(3)) }
        await harness.peer.waitForHeldRequests(1)
        await waitForSleepers(harness.clock)
        harness.clock.advance(by: .seconds(3))
        let result = await read.result
        #expect(throws: BluetoothError.self) { try result.get() }
        if case .failure(BluetoothError.timeout(_, let after)) = result { #expect(after == .seconds(3)) } else {
            Issue.record("expected a timeout, got \(result)")
        }
        harness.peer.resumeAnswering()
        await connection.disconnect()
    }

    static func cancelledRead(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        harness.peer.holdAnswers()
        let connection = profile.connection
        let setting = profile[ScenarioProfile.setting]
        let task = Task { try await connection.read(setting, timeout: timeout) }
        await harness.peer.waitForHeldRequests(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        harness.peer.resumeAnswering()
        // The connection is still usable.
        #expect(try await connection.read(setting, timeout: timeout) == ScenarioProfile.settingInitial)
        await connection.disconnect()
    }

    static func localDisconnect(_ harness: ScenarioHarness) async throws {
        let profile = try await connect(harness)
        await profile.connection.disconnect()
        #expect(await profile.connection.disconnection() == .localRequest)
        await #expect(throws: BluetoothError.disconnected(.localRequest)) {
            try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout)
        }
    }

    static func reconnect(_ harness: ScenarioHarness) async throws {
        let first = try await connect(harness)
        await first.connection.disconnect()
        let second = try await connect(harness)
        #expect(try await second.connection.read(second[ScenarioProfile.setting], timeout: timeout) == ScenarioProfile.settingInitial)
        await #expect(throws: BluetoothError.self) { try await first.connection.read(first[ScenarioProfile.setting], timeout: timeout) }
        await second.connection.disconnect()
    }

    /// Waits (without sleeping on real time) until an operation's timeout timer is asleep on the
    /// virtual clock, so that advancing it fires the timer.
    static func waitForSleepers(_ clock: VirtualClock, count: Int = 1) async {
        while clock.sleeperCount < count { await Task.yield() }
    }
}
