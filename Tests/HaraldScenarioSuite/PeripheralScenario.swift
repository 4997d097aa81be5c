import Harald
import HaraldCodec
import HaraldCore

/// A peripheral backend under test, and a central on another backend that talks to it across
/// the backend's link (the simulator's virtual radio; two controllers of one Bumble link).
public struct PeripheralScenarioHarness: Sendable {
    /// Serves the scenario device: a fresh one for every scenario.
    public let backend: any PeripheralBackend
    /// The other side.
    public let central: Central
    /// The name the device advertises (unique per run, where other devices may be heard).
    public let name: String
    /// Timeout for what must succeed.
    public let timeout: Duration
    /// Sleeps on the clock both sides run on.
    public let sleep: @Sendable (Duration) async -> Void

    public init(
        backend: any PeripheralBackend, central: Central, name: String, timeout: Duration,
        sleep: @escaping @Sendable (Duration) async -> Void
    ) {
        self.backend = backend
        self.central = central
        self.name = name
        self.timeout = timeout
        self.sleep = sleep
    }
}

/// The peripheral side of the public API, written once and run against every peripheral
/// backend: each case serves ``PeripheralScenarioDevice`` through ``ServedPeripheral`` and
/// checks what a central sees and what the device's handlers and events saw.
public enum PeripheralScenario: String, CaseIterable, Sendable, CustomStringConvertible {
    case theAdvertisedNameAndServiceAreFound
    case theCentralDiscoversEveryDefinedCharacteristic
    case descriptorsAreDiscoveredAndRead
    case aReadHandlerAnswersEachRead
    case aWriteReachesItsHandlerDecodedIsStoredAndReported
    case aRefusingWriteHandlerSendsItsATTError
    case bytesThatDoNotDecodeAreRefusedWithValueNotAllowed
    case aLongValueIsReadWhole
    case setValueChangesWhatReadsReturn
    case writesWithoutResponseReachTheHandlerInOrder
    case subscribingIsReportedAndNotificationsArriveInOrder
    case notifyingWithoutASubscriberReachesNobody
    case aNotificationLongerThanTheLinkCarriesIsRefusedNotCut
    case endingASubscriptionIsReported
    case anIndicationReturnsOnceTheCentralConfirmed
    case connectionAndDisconnectionAreReported
    case aCentralThatDisappearsMidNotificationLeavesTheDeviceServing
    case theAuthorizationRuleRefusesUntilItAllows
    case theDatabaseHashIsServed

    public var description: String { rawValue }

    /// Runs the scenario: serves a fresh device, runs the case, stops serving however it ended.
    public func run(_ harness: PeripheralScenarioHarness) async throws {
        let device = try PeripheralScenarioDevice(name: harness.name)
        let served = try await ServedPeripheral.start(device.definition, on: harness.backend)
        let events = PeripheralEventLog(served.events())
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await events.record() }
                defer { group.cancelAll() }
                let context = PeripheralScenarioContext(harness: harness, device: device, served: served, events: events)
                try await run(context)
            }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    private func run(_ context: PeripheralScenarioContext) async throws {
        switch self {
        case .theAdvertisedNameAndServiceAreFound: try await Self.advertisement(context)
        case .theCentralDiscoversEveryDefinedCharacteristic: try await Self.discovery(context)
        case .descriptorsAreDiscoveredAndRead: try await Self.descriptors(context)
        case .aReadHandlerAnswersEachRead: try await Self.readHandler(context)
        case .aWriteReachesItsHandlerDecodedIsStoredAndReported: try await Self.write(context)
        case .aRefusingWriteHandlerSendsItsATTError: try await Self.refusedWrite(context)
        case .bytesThatDoNotDecodeAreRefusedWithValueNotAllowed: try await Self.undecodableWrite(context)
        case .aLongValueIsReadWhole: try await Self.longRead(context)
        case .setValueChangesWhatReadsReturn: try await Self.setValue(context)
        case .writesWithoutResponseReachTheHandlerInOrder: try await Self.writesWithoutResponse(context)
        case .subscribingIsReportedAndNotificationsArriveInOrder: try await Self.notifications(context)
        case .notifyingWithoutASubscriberReachesNobody: try await Self.notifyingNobody(context)
        case .aNotificationLongerThanTheLinkCarriesIsRefusedNotCut: try await Self.tooLongNotification(context)
        case .endingASubscriptionIsReported: try await Self.unsubscribe(context)
        case .anIndicationReturnsOnceTheCentralConfirmed: try await Self.indication(context)
        case .connectionAndDisconnectionAreReported: try await Self.connectionEvents(context)
        case .aCentralThatDisappearsMidNotificationLeavesTheDeviceServing: try await Self.centralDisappears(context)
        case .theAuthorizationRuleRefusesUntilItAllows: try await Self.authorization(context)
        case .theDatabaseHashIsServed: try await Self.databaseHash(context)
        }
    }
}

/// What one running scenario works with.
struct PeripheralScenarioContext: Sendable {
    let harness: PeripheralScenarioHarness
    let device: PeripheralScenarioDevice
    let served: ServedPeripheral
    let events: PeripheralEventLog

    /// Finds the device by its advertised name and connects to it.
    func connect() async throws -> PeripheralConnection {
        let found = try await harness.central.scan(ScanRequest(namePrefix: harness.name)).first(timeout: harness.timeout)
        let connection = try await harness.central.connect(to: found, timeout: harness.timeout)
        await connection.setDefaultTimeout(harness.timeout)
        return connection
    }

    /// The served device's name for the central that connected last.
    func connectedCentral() async throws -> CentralIdentifier {
        let event = try await events.first(within: harness.timeout, sleep: harness.sleep) {
            if case .connected = $0 { return true } else { return false }
        }
        guard case .connected(let central) = event else { throw ScenarioFailure("no connection event") }
        return central
    }
}

/// Every event a served device reported, as they came.
final class PeripheralEventLog: Sendable {
    private let stream: AsyncStream<PeripheralEvent>
    private let seen = Locked<[PeripheralEvent]>([])

    init(_ stream: AsyncStream<PeripheralEvent>) { self.stream = stream }

    /// Collects until the stream ends or the task is cancelled.
    func record() async {
        for await event in stream { seen.withLock { $0.append(event) } }
    }

    var all: [PeripheralEvent] { seen.withLock { $0 } }

    /// Waits (polling on the scenario's clock) for an event `matches` accepts, seen before or after the call.
    func first(
        within timeout: Duration, sleep: @Sendable (Duration) async -> Void, where matches: (PeripheralEvent) -> Bool
    ) async throws -> PeripheralEvent {
        var waited = Duration.zero
        while true {
            if let event = all.first(where: matches) { return event }
            guard waited < timeout else { throw ScenarioFailure("no such event within \(timeout); saw \(all)") }
            await sleep(.milliseconds(20))
            waited += .milliseconds(20)
        }
    }

    /// Waits for `event` itself.
    func wait(for event: PeripheralEvent, within timeout: Duration, sleep: @Sendable (Duration) async -> Void) async throws {
        _ = try await first(within: timeout, sleep: sleep) { $0 == event }
    }
}

/// Takes `count` values from `subscription`, failing after `timeout` on the scenario's clock.
func collect<Value: ByteDecodable & Sendable>(
    _ count: Int, from subscription: Subscription<Value>, within timeout: Duration, sleep: @escaping @Sendable (Duration) async -> Void
) async throws -> [Value] {
    try await withThrowingTaskGroup(of: [Value]?.self) { group in
        group.addTask {
            var values: [Value] = []
            for try await value in subscription {
                values.append(value)
                if values.count == count { break }
            }
            return values
        }
        group.addTask {
            await sleep(timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let values = first else {
            throw ScenarioFailure("\(count) values did not arrive within \(timeout)")
        }
        return values
    }
}
