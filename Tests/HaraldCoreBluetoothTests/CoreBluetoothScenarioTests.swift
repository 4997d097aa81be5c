import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import HaraldSimulator
import Testing

/// The fake CoreBluetooth world a test drives: the central, one peripheral serving
/// `ScenarioProfile`, and the backend over them.
struct FakeWorld: Sendable {
    let central: FakeCentral
    let peripheral: FakePeripheral
    let backend: CoreBluetoothBackend<FakeCentral>
    let clock: VirtualClock

    static var profileGATT: FakeGATT {
        FakeGATT(services: [
            .init(uuid: BluetoothUUID(0x180F), characteristics: [.init(uuid: BluetoothUUID(0x2A19), properties: .read | .notify, value: [88])]),
            .init(
                uuid: ScenarioProfile.service,
                characteristics: [
                    .init(
                        uuid: ScenarioProfile.status, properties: .read | .notify, value: ScenarioProfile.statusInitial,
                        descriptors: [
                            .init(uuid: BluetoothUUID(0x2902), value: NSNumber(value: 0)),
                            .init(uuid: BluetoothUUID(0x2901), value: "Status"),
                        ]),
                    .init(uuid: ScenarioProfile.setting, properties: .read | .write, value: ScenarioProfile.settingInitial),
                    .init(uuid: ScenarioProfile.stream, properties: .writeWithoutResponse),
                    .init(uuid: ScenarioProfile.command, properties: .write),
                    .init(uuid: ScenarioProfile.response, properties: .notify),
                ]),
        ])
    }

    /// A world whose radio is on (unless told), with a peripheral serving `gatt` (the profile
    /// unless told) known to the system. The backend makes its central on first use, as in an
    /// app; the radio's state reaches it then. Under ``CoreBluetoothRules`` (every suite here), the
    /// test fails if the backend misuses the fake.
    static func make(poweredOn: Bool = true, gatt: FakeGATT = profileGATT) -> FakeWorld {
        let clock = VirtualClock()
        let central = FakeCentral()
        if poweredOn { central.setRadio(.poweredOn) }
        let backend = CoreBluetoothBackend<FakeCentral>(queue: central.queue, clock: clock) { backend in
            central.made(by: backend)
            return central
        }
        let peripheral = central.makePeripheral(name: "Scenario", gatt: gatt)
        let answer: @Sendable ([UInt8]) -> [UInt8] = { ScenarioProfile.answer(to: $0) }
        peripheral.respond[ScenarioProfile.command] = (ScenarioProfile.response, answer)
        peripheral.refuse[ScenarioProfile.command] = { $0.first == ScenarioProfile.refusedCommand ? attError(Int(ScenarioProfile.refusalCode)) : nil }
        CoreBluetoothRules.watch(central)
        return FakeWorld(central: central, peripheral: peripheral, backend: backend, clock: clock)
    }

    var identifier: PeripheralIdentifier { PeripheralIdentifier(rawValue: peripheral.identifier.uuidString) }

    /// Returns once CoreBluetooth's queue has run what was dispatched onto it so far (the
    /// backend's calls, the central's first reports).
    func settle() async { await central.system.settle() }

    /// Makes the central (as an app's first use does) and waits until it has reported its state.
    func start() async {
        var states = backend.radioStates().makeAsyncIterator()
        _ = await states.next()
        await settle()
    }

    /// Starts a scan and waits until CoreBluetooth scans for it.
    func scan(_ request: ScanRequest = ScanRequest()) async -> ScanReports {
        let reports = backend.scan(request)
        await settle()
        return reports
    }
}

/// `ScenarioPeer` over the fake peripheral.
struct FakeScenarioPeer: ScenarioPeer {
    let world: FakeWorld

    var identifier: PeripheralIdentifier { world.identifier }
    func holdAnswers() async throws { world.peripheral.lock.withLock { world.peripheral.holding = true } }
    func resumeAnswering() async throws { world.peripheral.resumeAnswering() }
    func waitForHeldRequests(_ count: Int) async throws { await world.peripheral.waitForHeld(count) }
    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async throws { world.peripheral.notify(value, on: uuid) }
    func value(of uuid: BluetoothUUID) async throws -> [UInt8] { world.peripheral.value(of: uuid) }
    func writesWithoutResponse(to uuid: BluetoothUUID, count: Int) async throws -> [[UInt8]] {
        // The fake takes writes without response synchronously: they are all there already.
        writesWithoutResponse(to: uuid)
    }
    /// Values written without response to `uuid` so far, in arrival order.
    func writesWithoutResponse(to uuid: BluetoothUUID) -> [[UInt8]] {
        world.peripheral.received.compactMap { request in
            if case let .write(target, bytes, withResponse: false) = request, target == uuid { return bytes }
            return nil
        }
    }
    func disconnectFromPeer() async throws { world.central.dropConnection(world.peripheral) }
    func notificationsEnabled(on uuid: BluetoothUUID) async throws -> Bool {
        // The peer's own record (not the CBCharacteristic property, which belongs to the queue).
        world.peripheral.lock.withLock { world.peripheral.characteristic(uuid)?.notifying ?? false }
    }
    /// CoreBluetooth has no handles: the fake reports the scenario service invalidated.
    func changeServices() async throws { world.peripheral.invalidate([ScenarioProfile.service]) }
}

@Suite("Public API scenarios on the CoreBluetooth fake", CoreBluetoothRules())
struct CoreBluetoothScenarioTests {
    // The time limit only guards against a hang (the fake's virtual clock never fires a timer
    // by itself): a passing scenario takes milliseconds.
    @Test(.timeLimit(.minutes(2)), arguments: Scenario.allCases)
    func scenario(_ scenario: Scenario) async throws {
        let world = FakeWorld.make()
        try await scenario.run(Self.harness(world))
        #expect(world.peripheral.dropped == 0, "no write without response was sent without room for it")
    }

    /// CoreBluetooth answers `setNotifyValue` itself, so (unlike ATT peers, whose servers answer
    /// CCCD writes on their own) the fake can hold that answer past the subscribe's deadline.
    @Test(.timeLimit(.minutes(2)))
    func aSubscribeThatTimesOutLeavesNotificationsOff() async throws {
        let world = FakeWorld.make()
        let harness = Self.harness(world)
        let connection = try await harness.central.connect(to: harness.peer.identifier, timeout: harness.timeout)
        _ = try await connection.characteristic(ScenarioProfile.status, service: ScenarioProfile.service)
        try await harness.peer.holdAnswers()
        let short = harness.shortTimeout
        async let outcome: (any Error)? = {
            do {
                _ = try await connection.subscribe(ScenarioSpecs.status, timeout: short)
                return nil
            } catch { return error }
        }()
        try await harness.peer.waitForHeldRequests(1)
        await harness.elapse(short)
        let error = await outcome
        guard case BluetoothError.timeout? = error as? BluetoothError else {
            Issue.record("expected the subscribe to time out, got \(String(describing: error))")
            return
        }
        // The late change lands; the subscription that wanted it is gone, so the central turns
        // notifications off again.
        try await harness.peer.resumeAnswering()
        await connection.settle()
        #expect(try await harness.peer.notificationsEnabled(on: ScenarioProfile.status) == false)
        #expect(connection.cleanUpFailures == 0)
        await connection.disconnect()
    }

    /// The scenario harness over `world`, whose peer advertises all along (every scan hears it at
    /// once).
    static func harness(_ world: FakeWorld) -> ScenarioHarness {
        // The scenario suite's echo channel; an unserved PSM is answered as iOS answers a refused
        // one (an error, no result code).
        world.peripheral.channelAnswers[ScenarioProfile.echoPSM] = .echo
        world.peripheral.channelAnswers[ScenarioProfile.unservedPSM] = .fail(
            NSError(domain: "CBErrorDomain", code: 0, userInfo: [NSLocalizedDescriptionKey: "The L2CAP channel was refused"]))
        world.central.advertisingOnScan = [
            (
                world.peripheral,
                [
                    fakeKeys.localName: ScenarioProfile.name, fakeKeys.serviceUUIDs: [FakeUUID(ScenarioProfile.service)],
                    fakeKeys.isConnectable: NSNumber(value: true),
                ], -55
            )
        ]
        let backend = world.backend
        let clock = world.clock
        return ScenarioHarness(
            central: Central(backend: backend, clock: clock, defaultTimeout: .seconds(5)),
            peer: FakeScenarioPeer(world: world), timeout: .seconds(5), shortTimeout: .seconds(3),
            elapse: { duration in
                await waitForSleepers(clock)
                clock.advance(by: duration)
            },
            pendingOperations: { backend.pendingOperationCount })
    }
}
