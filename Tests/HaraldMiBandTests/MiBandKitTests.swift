import Foundation
import Harald
import HaraldATT
import HaraldCore
import HaraldMiBand
import HaraldMiBandSimulation
import HaraldSimulator
import Testing

/// A simulated world with one band, and a central on the simulation's clock.
struct BandWorld {
    let simulation = Simulation()
    let band: VirtualPeripheral
    let simulator: Simulator
    let central: Central

    init(_ band: VirtualPeripheral = .fitnessBand()) throws {
        self.band = band
        simulator = try Simulator(clock: simulation.clock, devices: [band])
        central = Central(backend: simulator.backend, clock: simulation.clock)
    }

    /// Connects the kit to the band, and runs `body` in virtual time.
    func run<R: Sendable>(_ body: @escaping @Sendable (MiBand2) async throws -> R) async throws -> R {
        let central = self.central
        let identifier = band.identifier
        return try await simulation.run {
            let miBand = try await MiBand2.connect(central, to: identifier, timeout: .seconds(5))
            return try await body(miBand)
        }
    }
}

@Suite("Mi Band kit: authentication against the simulated band")
struct MiBandAuthenticationTests {
    @Test func theRightKeyAuthenticates() async throws {
        let outcome = try await BandWorld().run { try await $0.authenticate(key: .default) }
        #expect(outcome == .authenticated)
    }

    @Test func aBandWorldIsFreedOnceItsRunIsOver() async throws {
        weak var weakClock: VirtualClock?
        do {
            let world = try BandWorld()
            weakClock = world.simulation.clock
            #expect(try await world.run { try await $0.authenticate(key: .default) } == .authenticated)
        }
        // The band's handlers live in its server, which its serving backend holds: they must
        // not hold that backend in turn.
        let limit = ContinuousClock.now.advanced(by: .seconds(10))
        while weakClock != nil && ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(1)) }
        #expect(weakClock == nil)
    }

    @Test func aWrongKeyIsRefusedAtTheAnswerStep() async throws {
        let wrong = try #require(MiBandKey(Array(repeating: 0x55, count: 16)))
        await #expect(throws: MiBandError.authenticationRefused(step: 3, status: 0x04)) {
            try await BandWorld().run { try await $0.authenticate(key: wrong, keySetup: .never) }
        }
    }

    @Test func aBandWithoutAKeyGetsOneAndThenAuthenticates() async throws {
        let key = try #require(MiBandKey(hex: "00112233445566778899aabbccddeeff"))
        let (first, second) = try await BandWorld(.fitnessBand(key: nil)).run { band in
            (try await band.authenticate(key: key), try await band.authenticate(key: key))
        }
        #expect(first == .authenticatedAfterKeySetup)
        #expect(second == .authenticated)
    }

    @Test func aBandWithoutAKeyFailsWhenKeySetupIsNotAllowed() async throws {
        await #expect(throws: MiBandError.keySetupRequired) {
            try await BandWorld(.fitnessBand(key: nil)).run { try await $0.authenticate(keySetup: .never) }
        }
    }

    @Test func keySetupFirstReplacesTheBandsKey() async throws {
        let key = try #require(MiBandKey(hex: "ffeeddccbbaa99887766554433221100"))
        let (outcome, oldKeyRefused) = try await BandWorld().run { band in
            let outcome = try await band.authenticate(key: key, keySetup: .always)
            do {
                try await band.authenticate(key: .default, keySetup: .never)
                return (outcome, false)
            } catch MiBandError.authenticationRefused {
                return (outcome, true)
            }
        }
        #expect(outcome == .authenticatedAfterKeySetup)
        #expect(oldKeyRefused)
    }

    @Test func aBandThatNeverSendsItsChallengeTimesOut() async throws {
        let world = try BandWorld()
        let address = world.band.address
        let simulator = world.simulator
        await #expect(throws: MiBandError.noReply("auth challenge request", after: .seconds(10))) {
            try await world.run { band in
                try await warmUp(band, MiBand2.Characteristics.auth)
                let link = try #require(simulator.connection(to: address))
                // After the CCCD write's response, the band's next PDU is the challenge: lose it.
                let sent = await link.statistics.pdusSent[.peripheral] ?? 0
                await link.inject(LinkFault(from: .peripheral, pduNumber: sent + 2, action: .drop))
                try await band.authenticate()
            }
        }
    }
}

@Suite("Mi Band kit: deadlines on the connection's clock")
struct MiBandClockTests {
    @Test func aBandMadeFromASimulatorConnectionWaitsForRepliesInVirtualTime() async throws {
        let world = try BandWorld()
        let (central, identifier, address) = (world.central, world.band.identifier, world.band.address)
        let (simulator, clock) = (world.simulator, world.simulation.clock)
        let (error, waited) = try await world.simulation.run {
            let connection = try await central.connect(to: identifier, services: MiBand2.services, timeout: .seconds(5))
            var band = MiBand2(connection: connection)
            band.replyTimeout = .seconds(30)
            try await warmUp(band, MiBand2.Characteristics.auth)
            let link = try #require(simulator.connection(to: address))
            // After the CCCD write's response, the band's next PDU is the challenge: lose it.
            let sent = await link.statistics.pdusSent[.peripheral] ?? 0
            await link.inject(LinkFault(from: .peripheral, pduNumber: sent + 2, action: .drop))
            let start = clock.now
            var error: MiBandError?
            do { try await band.authenticate() } catch let failure as MiBandError { error = failure }
            return (error, start.duration(to: clock.now))
        }
        #expect(error == .noReply("auth challenge request", after: .seconds(30)))
        #expect(waited >= .seconds(30))
    }
}

@Suite("Mi Band kit: steps and battery from the simulated band")
struct MiBandStepsAndBatteryTests {
    @Test func stepsAreReadWithDistanceAndCalories() async throws {
        let steps = try await BandWorld().run { try await $0.steps() }
        #expect(steps.steps >= 409)
        #expect(steps.meters == steps.steps * 62 / 100)
        #expect(steps.calories == steps.steps / 50)
    }

    @Test func stepUpdatesArriveAndGrow() async throws {
        let seen = try await BandWorld().run { band in
            var seen: [UInt32] = []
            for try await value in try await band.stepUpdates() {
                seen.append(value.steps)
                if seen.count == 4 { break }
            }
            return seen
        }
        #expect(seen.count == 4)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func batteryInfoCarriesLevelChargingStateAndLastCharge() async throws {
        let battery = FitnessBandBattery(
            level: 12, isCharging: true, lastOff: DateComponents(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5), chargeCount: 9,
            lastCharge: DateComponents(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0), lastChargeLevel: 98)
        let expected = MiBandBatteryInfo(
            level: 12, chargingState: .charging, lastOff: MiBandDateTime(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5),
            chargeCount: 9, lastCharge: MiBandDateTime(year: 2026, month: 1, day: 1), lastChargeLevel: 98)
        let info = try await BandWorld(.fitnessBand(battery: battery)).run { try await $0.battery() }
        #expect(info == expected)
        #expect(info.isCharging)
    }
}

@Suite("Mi Band kit: heart rate from the simulated band")
struct MiBandHeartRateTests {
    @Test func aSingleMeasurementReturnsTheBandsValue() async throws {
        let bpm = try await BandWorld().run { try await $0.heartRate() }
        #expect((40...200).contains(bpm))
    }

    @Test func aControlPointWriteThatIsNeverAnsweredTimesOut() async throws {
        let world = try BandWorld()
        world.simulator.injectOnNextConnection(to: world.band.address, peer: [PeerFault(answering: .writeRequest, .neverAnswer)])
        await #expect(throws: BluetoothError.self) {
            try await world.run { band in
                var quick = band
                quick.replyTimeout = .seconds(2)
                return try await quick.heartRate()
            }
        }
    }

    @Test func continuousModeRunsPastTheBandsTimeoutWhileKeptAlive() async throws {
        // The band stops after 15 s without a keep-alive; 40 values take about 40 s.
        let values = try await BandWorld().run { band in
            var values: [UInt16] = []
            for try await bpm in band.heartRateUpdates(keepAliveInterval: .seconds(10)) {
                values.append(bpm)
                if values.count == 40 { break }
            }
            return values
        }
        #expect(values.count == 40)
    }

    @Test func continuousModeLapsesWithoutKeepAlives() async throws {
        let world = try BandWorld()
        let clock = world.simulation.clock
        await #expect(throws: MiBandError.noReply("continuous heart rate", after: .seconds(20))) {
            try await world.run { band in
                var band = band
                band.measurementTimeout = .seconds(20)
                var count = 0
                for try await _ in band.heartRateUpdates(keepAliveInterval: .seconds(3600)) {
                    count += 1
                    #expect(clock.now.sinceStart < .seconds(60), "values kept coming without keep-alives")
                }
                return count
            }
        }
    }

    @Test func leavingTheLoopStopsContinuousMode() async throws {
        let world = try BandWorld()
        let clock = world.simulation.clock
        let afterStop = try await world.run { band in
            for try await _ in band.heartRateUpdates() { break }
            // Give the stop command time to reach the band, then listen for 5 s.
            try await clock.sleep(for: .seconds(1))
            let raw = try await band.connection.subscribe(MiBand2.Characteristics.heartRateMeasurement)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    var count = 0
                    for try await _ in raw { count += 1 }
                    return count
                }
                try await clock.sleep(for: .seconds(5))
                await band.connection.unsubscribe(raw)
                return try await group.next() ?? -1
            }
        }
        #expect(afterStop == 0)
    }
}

@Suite("Mi Band kit: activity fetch from the simulated band")
struct MiBandActivityTests {
    static let end = FitnessBandState.defaultHistoryEnd

    @Test func fetchesEveryMinuteSinceTheGivenTimeWithTimestamps() async throws {
        let since = Self.end.addingTimeInterval(-90 * 60)
        let records = try await BandWorld().run { band in
            try await band.authenticate()
            return try await band.fetchActivity(since: since)
        }
        #expect(records.count == 90)
        #expect(records.first?.timestamp == since)
        #expect(zip(records, records.dropFirst()).allSatisfy { $1.timestamp.timeIntervalSince($0.timestamp) == 60 })
        // The band's history starts 6 h before its end: minute 270 is the first fetched.
        #expect(try records.map(\.sample) == bandHistory(270..<360))
    }

    @Test func progressAnnouncesTheTotalCountsUpAndFinishes() async throws {
        let log = ProgressLog()
        let records = try await BandWorld().run { band in
            try await band.fetchActivity(since: Self.end.addingTimeInterval(-30 * 60)) { log.add($0) }
        }
        let events = log.events
        #expect(events.first == "connected 0")
        #expect(events.contains("expecting 30"))
        #expect(events.filter { $0.hasPrefix("received") } == (1...30).map { "received \($0)/30" })
        #expect(events.last == "finished 30")
        #expect(records.count == 30)
    }

    @Test func aFetchFromBeforeTheHistoryStartsAtItsFirstMinute() async throws {
        let records = try await BandWorld(.fitnessBand(historyMinutes: 20)).run { band in
            try await band.fetchActivity(since: Self.end.addingTimeInterval(-86_400))
        }
        #expect(records.count == 20)
        #expect(records.first?.timestamp == Self.end.addingTimeInterval(-20 * 60))
    }

    @Test func theSynchronizationFlowConnectsAuthenticatesAndFetches() async throws {
        let world = try BandWorld()
        let central = world.central
        let identifier = world.band.identifier
        let log = ProgressLog()
        let records = try await world.simulation.run {
            try await MiBand2.activitySynchronization(central: central, peripheral: identifier, since: Self.end.addingTimeInterval(-45 * 60))
                .run { log.add($0) }
        }
        #expect(records.count == 45)
        #expect(try records.map(\.sample) == bandHistory(315..<360))
        #expect(log.events.last == "finished 45")
    }

    @Test func theSynchronizationResumesAfterTheLinkDropsMidTransfer() async throws {
        let since = Self.end.addingTimeInterval(-45 * 60)
        // A clean run first, to learn how many PDUs the band sends: the last data packet is the
        // third from the end (then the end reply and two CCCD responses).
        let clean = try BandWorld()
        let cleanSimulator = clean.simulator
        let cleanAddress = clean.band.address
        let total = try await clean.run { band in
            try await band.authenticate()
            let link = try #require(cleanSimulator.connection(to: cleanAddress))
            _ = try await band.fetchActivity(since: since)
            return await link.statistics.pdusSent[.peripheral] ?? 0
        }
        // 45 minutes are 12 packets; the link drops instead of delivering the 6th.
        let world = try BandWorld()
        world.simulator.injectOnNextConnection(
            to: world.band.address, link: [LinkFault(from: .peripheral, pduNumber: total - 3 - 6, action: .dropLink)])
        let central = world.central
        let identifier = world.band.identifier
        let log = ProgressLog()
        let records = try await world.simulation.run {
            try await MiBand2.activitySynchronization(central: central, peripheral: identifier, since: since).run { log.add($0) }
        }
        #expect(log.events.contains("reconnecting 1"))
        #expect(log.events.contains("connected 1"))
        // The second connection asks only for what the first did not deliver.
        let expecting = log.events.filter { $0.hasPrefix("expecting ") }.compactMap { Int($0.dropFirst(10)) }
        #expect(expecting.count == 2 && expecting[0] == 45 && (1..<45).contains(expecting[1]))
        #expect(try records.map(\.sample) == bandHistory(315..<360))
        #expect(records.map(\.timestamp) == (0..<45).map { since.addingTimeInterval(TimeInterval($0) * 60) })
    }

    /// Fetches 10 minutes (3 packets) with the band's `lost`-th data packet lost on the link.
    static func fetchLosingPacket(_ lost: Int) async throws -> Int {
        let world = try BandWorld()
        let address = world.band.address
        let simulator = world.simulator
        return try await world.run { band in
            try await warmUp(band, MiBand2.Characteristics.activityControl)
            try await warmUp(band, MiBand2.Characteristics.activityData)
            let link = try #require(simulator.connection(to: address))
            // Start: CCCD on, reply, write response, CCCD off; transfer: two CCCDs on, then data.
            let sent = await link.statistics.pdusSent[.peripheral] ?? 0
            await link.inject(LinkFault(from: .peripheral, pduNumber: sent + 7 + lost, action: .drop))
            return try await band.fetchActivity(since: Self.end.addingTimeInterval(-10 * 60)).count
        }
    }

    @Test func aLostLastPacketEndsInATimeout() async throws {
        await #expect(throws: MiBandError.noReply("activity data", after: .seconds(10))) { try await Self.fetchLosingPacket(3) }
    }

    @Test func aLostPacketInTheMiddleIsAnOutOfOrderError() async throws {
        await #expect(throws: MiBandError.packetOutOfOrder(expected: 1, received: 2)) { try await Self.fetchLosingPacket(2) }
    }
}

/// The simulated band's history minutes in `minutes`, as the kit decodes the bytes the band sends.
func bandHistory(_ minutes: Range<Int>) throws -> [MiBandActivitySample] {
    try minutes.map { try MiBandActivitySample(decoding: FitnessBandState.sample($0).bytes) }
}

/// Subscribes and unsubscribes once, so the descriptors are discovered and later operations
/// cost a known number of PDUs.
func warmUp<V, A: SubscribeAccess>(_ band: MiBand2, _ characteristic: Characteristic<V, A>) async throws {
    let subscription = try await band.connection.subscribe(characteristic.withValue([UInt8].self))
    await band.connection.unsubscribe(subscription)
}

/// Progress events as text, in order.
final class ProgressLog: @unchecked Sendable {
    // @unchecked Sendable: `lines` is only touched with `lock` held.
    private let lock = NSLock()
    private var lines: [String] = []

    var events: [String] { lock.withLock { lines } }

    func add(_ progress: SynchronizationFlow<MiBandActivityTransfer>.Progress) {
        let line =
            switch progress {
            case let .connected(attempt): "connected \(attempt)"
            case let .expecting(total): "expecting \(total)"
            case let .received(count, total): "received \(count)/\(total.map(String.init) ?? "?")"
            case let .reconnecting(_, attempt): "reconnecting \(attempt)"
            case let .finished(count): "finished \(count)"
            }
        lock.withLock { lines.append(line) }
    }
}

@Suite("Mi Band kit: wrong replies from a misbehaving band")
struct MiBandWrongReplyTests {
    /// A band whose auth characteristic answers every write with `reply`.
    static func band(answeringAuthWith reply: [UInt8]) -> VirtualPeripheral {
        VirtualPeripheral(
            address: BluetoothAddress("C8:0F:10:00:00:99", kind: .public)!, advertisingData: .device(name: "odd band", services: [MiBandUUID.service])
        ) { runtime in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: MiBandUUID.authService,
                    characteristics: [
                        GATTCharacteristicDefinition(
                            uuid: MiBandUUID.auth, properties: [.write, .notify],
                            onWrite: { context, _ throws(ATTErrorCode) in
                                await runtime.notify(MiBandUUID.auth, reply, to: context.connection)
                            })
                    ])
            ])
        }
    }

    static func authenticate(against reply: [UInt8]) async throws {
        _ = try await BandWorld(band(answeringAuthWith: reply)).run { try await $0.authenticate() }
    }

    @Test func aReplyToAnotherCommandIsAnUnexpectedReply() async {
        await #expect(throws: MiBandError.unexpectedReply(expected: "a reply to auth command 2", received: [0x10, 0x03, 0x01])) {
            try await Self.authenticate(against: [0x10, 0x03, 0x01])
        }
    }

    @Test func aChallengeCutShortIsMalformed() async throws {
        let error = try await #require(throws: MiBandError.self) { try await Self.authenticate(against: [0x10, 0x02, 0x01, 0xAA, 0xBB]) }
        guard case let .malformed(decoding) = error else { Issue.record("expected malformed, got \(error)"); return }
        #expect(decoding.field == "challenge")
    }

    @Test func aReplyWithTheWrongResponseCodeIsMalformed() async throws {
        let error = try await #require(throws: MiBandError.self) { try await Self.authenticate(against: [0x20, 0x02, 0x01]) }
        guard case let .malformed(decoding) = error else { Issue.record("expected malformed, got \(error)"); return }
        #expect(decoding.field == "response")
    }

    @Test func anUnknownStatusIsARefusal() async {
        await #expect(throws: MiBandError.authenticationRefused(step: 2, status: 0x07)) { try await Self.authenticate(against: [0x10, 0x02, 0x07]) }
    }

    @Test func aBandWithoutTheAuthCharacteristicSaysSo() async throws {
        let has = try await BandWorld(VirtualPeripheral.heartRateStrap()).run { try await $0.hasAuthCharacteristic() }
        #expect(!has)
    }
}

@Suite("Mi Band kit: continuous heart rate and cancellation")
struct MiBandCancellationTests {
    @Test func cancellingTheLoopsTaskStopsContinuousMode() async throws {
        let world = try BandWorld()
        let clock = world.simulation.clock
        let afterStop = try await world.run { band in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        for try await _ in band.heartRateUpdates() {}
                    } catch {}
                }
                try? await clock.sleep(for: .seconds(5))
                group.cancelAll()
            }
            try await clock.sleep(for: .seconds(1))
            let raw = try await band.connection.subscribe(MiBand2.Characteristics.heartRateMeasurement)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    var count = 0
                    for try await _ in raw { count += 1 }
                    return count
                }
                try await clock.sleep(for: .seconds(5))
                await band.connection.unsubscribe(raw)
                return try await group.next() ?? -1
            }
        }
        #expect(afterStop == 0)
    }
}

@Suite("Mi Band kit: a band announcing more history than a fetch takes")
struct MiBandActivityBoundTests {
    /// A band whose activity control answers the fetch start with `count` records from 1 Jan 2026,
    /// and the fetch itself with one data packet per element of `packets` (that many samples
    /// each), then the end of the transfer.
    static func band(announcing count: UInt32, sending packets: [Int] = []) -> VirtualPeripheral {
        VirtualPeripheral(
            address: BluetoothAddress("C8:0F:10:00:00:98", kind: .public)!, advertisingData: .device(name: "boastful band", services: [MiBandUUID.service])
        ) { runtime in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: MiBandUUID.service,
                    characteristics: [
                        GATTCharacteristicDefinition(
                            uuid: MiBandUUID.activityControl, properties: [.write, .notify],
                            onWrite: { context, value throws(ATTErrorCode) in
                                if value == (try? MiBandActivityFetchCommand.fetch.encodedBytes()) {
                                    let sample = MiBandActivitySample(category: 1, intensity: 20, steps: 5, rawHeartRate: 0xFF)
                                    for (index, samples) in packets.enumerated() {
                                        let packet = MiBandActivityPacket(
                                            counter: UInt8(truncatingIfNeeded: index), samples: Array(repeating: sample, count: samples))
                                        await runtime.notify(MiBandUUID.activityData, (try? packet.encodedBytes()) ?? [], to: context.connection)
                                    }
                                    let end = (try? MiBandActivityFetchReply.finished(.success).encodedBytes()) ?? []
                                    await runtime.notify(MiBandUUID.activityControl, end, to: context.connection)
                                    return
                                }
                                let start = MiBandTimestamp(Date(timeIntervalSince1970: 1_767_225_600))
                                let reply = (try? MiBandActivityFetchReply.started(count: count, from: start).encodedBytes()) ?? []
                                await runtime.notify(MiBandUUID.activityControl, reply, to: context.connection)
                            }),
                        GATTCharacteristicDefinition(uuid: MiBandUUID.activityData, properties: [.notify]),
                    ])
            ])
        }
    }

    @Test func aCountAboveAYearOfMinutesIsRefusedBeforeAnyRecordIsFetched() async throws {
        let count = MiBand2.maximumActivityRecords + 1
        await #expect(throws: MiBandError.tooManyRecords(announced: count)) {
            _ = try await BandWorld(Self.band(announcing: count)).run { try await $0.fetchActivity(since: Date(timeIntervalSince1970: 1_767_225_600)) }
        }
    }

    @Test func aFetchTakesAtMostAYearOfMinutes() {
        #expect(MiBand2.maximumActivityRecords == 527_040)
    }

    @Test func aBandThatSendsMoreRecordsThanItAnnouncedEndsTheFetchWithTooManyRecords() async throws {
        // 6 announced; the second packet of 4 would make 8.
        await #expect(throws: MiBandError.tooManyRecords(announced: 6)) {
            _ = try await BandWorld(Self.band(announcing: 6, sending: [4, 4])).run {
                try await $0.fetchActivity(since: Date(timeIntervalSince1970: 1_767_225_600))
            }
        }
    }

    @Test func aBandThatSendsWhatItAnnouncedIsFetchedWhole() async throws {
        let records = try await BandWorld(Self.band(announcing: 6, sending: [4, 2])).run {
            try await $0.fetchActivity(since: Date(timeIntervalSince1970: 1_767_225_600))
        }
        #expect(records.count == 6)
    }

    @Test func theLargestCountABandCanAnnounceIsRefused() async throws {
        await #expect(throws: MiBandError.tooManyRecords(announced: .max)) {
            _ = try await BandWorld(Self.band(announcing: .max)).run { try await $0.fetchActivity(since: Date(timeIntervalSince1970: 1_767_225_600)) }
        }
    }
}
