import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldMiBand
import HaraldProfiles

extension VirtualPeripheral {
    /// A Mi-Band-2-like fitness band speaking the protocol of ``MiBand2`` (HaraldMiBand), built on
    /// the same message types:
    ///
    /// - 0xFEE1 auth (0x0009): `02 08` → `10 02 01 <16-byte challenge>` (from a fixed-seed
    ///   generator), `03 08 <AES-128-ECB(key, challenge)>` → `10 03 01` or `10 03 04`;
    ///   `01 08 <key>` → `10 01 01` installs a key. A band without a key (`key: nil`) refuses the
    ///   challenge request (`10 02 04`) until one is installed.
    /// - 0xFEE0: realtime steps (0x0007, read/notify once a second, growing by 2 steps a second),
    ///   battery info (0x0006, ``MiBandBatteryInfo``), activity fetch control (0x0004) and data
    ///   (0x0005, a packet of four minutes every 10 ms) over a deterministic history of
    ///   `historyMinutes` minutes ending at `historyEnd`.
    /// - Heart Rate: control point `15 02 01` → one measurement `00 <bpm>` 2 s later;
    ///   `15 01 01` → one a second until `15 01 00`, or until no keep-alive (`16`) came for
    ///   `continuousTimeout`.
    /// - Device Information.
    ///
    /// Everything follows virtual time, so runs repeat exactly.
    public static func fitnessBand(
        address: BluetoothAddress = BluetoothAddress("C8:0F:10:00:00:03", kind: .public)!, name: String = "MI Band 2", rssi: RSSI? = -70,
        key: MiBandKey? = .default, battery: MiBandBatteryInfo = FitnessBandState.defaultBattery,
        historyEnd: Date = FitnessBandState.defaultHistoryEnd, historyMinutes: Int = 6 * 60,
        continuousTimeout: Duration = .seconds(15)
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address, advertisingData: .device(name: name, services: [MiBandUUID.service]), rssi: rssi,
            advertisingInterval: .milliseconds(250)
        ) { runtime in
            let band = FitnessBandState(
                key: key, battery: battery, historyEnd: historyEnd, historyMinutes: historyMinutes, continuousTimeout: continuousTimeout)
            return PeripheralBehaviour(services: FitnessBandState.services(band, runtime)) { session in
                var tick = 0
                while await session.sleep(for: .milliseconds(500)) {
                    tick += 1
                    let now = runtime.clock.now.sinceStart
                    if tick % 2 == 0 {
                        band.walk()
                        await session.notify(MiBandUUID.realtimeSteps, band.stepsValue())
                    }
                    for bpm in band.heartRates(for: session.connection, at: now, everySecond: tick % 2 == 0) {
                        await session.notify(MiBandUUID.heartRateMeasurement, wireBytes(HeartRateMeasurement(heartRate: UInt16(bpm))))
                    }
                }
                band.forget(session.connection)
            }
        }
    }
}

/// The band's state: key, step counter, challenges, heart-rate modes and activity history.
public final class FitnessBandState: @unchecked Sendable {
    // @unchecked Sendable: every mutable stored property is only touched with `lock` held.
    private let lock = NSLock()
    private var key: MiBandKey?
    private var stepCount: UInt32 = 409
    private var challenges: [GATTConnectionID: [UInt8]] = [:]
    private var seed: UInt64 = 0x2545_F491_4F6C_DD1D
    private var heartRate: [GATTConnectionID: HeartRateMode] = [:]
    private var pendingFetch: [GATTConnectionID: (first: Int, count: Int)] = [:]
    private var pulse = 0
    let battery: MiBandBatteryInfo
    let historyStart: Date
    let historyMinutes: Int
    let continuousTimeout: Duration

    private struct HeartRateMode {
        var singleDue: Duration?
        var continuousSince: Duration?
        var lastKeepAlive: Duration = .zero
    }

    /// 73 %, not charging, last charged 2016-11-26 23:43:59 to 100 %, 4 charges (the layout of
    /// protocols.md B.4 with another level).
    public static let defaultBattery = MiBandBatteryInfo(
        level: 73, chargingState: .notCharging, lastOff: MiBandDateTime(year: 2016, month: 11, day: 26, hour: 18, minute: 35, second: 44),
        chargeCount: 4, lastCharge: MiBandDateTime(year: 2016, month: 11, day: 26, hour: 23, minute: 43, second: 59), lastChargeLevel: 100)
    /// 2026-11-21 12:00 UTC.
    public static let defaultHistoryEnd = MiBandDateTime(year: 2026, month: 11, day: 21, hour: 12).date()

    init(key: MiBandKey?, battery: MiBandBatteryInfo, historyEnd: Date, historyMinutes: Int, continuousTimeout: Duration) {
        self.key = key
        self.battery = battery
        self.historyMinutes = max(0, historyMinutes)
        self.historyStart = historyEnd.addingTimeInterval(-TimeInterval(self.historyMinutes) * 60)
        self.continuousTimeout = continuousTimeout
    }

    /// The band's history sample for minute `index` (deterministic: a day-like pattern of rest,
    /// walks and a run, heart rate measured every tenth minute).
    public static func sample(_ index: Int) -> MiBandActivitySample {
        let phase = index % 90
        let steps: UInt8 = phase < 50 ? 0 : phase < 80 ? UInt8(60 + (index * 7) % 40) : UInt8(140 + (index * 3) % 30)
        let category: UInt8 = steps == 0 ? 0x01 : steps < 120 ? 0x11 : 0x12
        let intensity = UInt8(truncatingIfNeeded: Int(steps) / 2 + (index * 13) % 16)
        let rate: UInt8 = index % 10 == 0 ? UInt8(60 + Int(steps) / 3) : 0xFF
        return MiBandActivitySample(category: category, intensity: intensity, steps: steps, rawHeartRate: rate)
    }

    func walk() { lock.withLock { stepCount += 2 } }

    func stepsValue() -> [UInt8] {
        let count = lock.withLock { stepCount }
        return (try? MiBandRealtimeSteps(steps: count, meters: count * 62 / 100, calories: count / 50).encodedBytes()) ?? []
    }

    func forget(_ connection: GATTConnectionID) {
        lock.withLock {
            challenges[connection] = nil
            heartRate[connection] = nil
            pendingFetch[connection] = nil
        }
    }

    // MARK: Auth

    /// The reply to a write on the auth characteristic.
    func authenticate(_ value: [UInt8], connection: GATTConnectionID) -> MiBandAuthReply {
        guard let command = try? MiBandAuthCommand(decoding: value) else {
            return MiBandAuthReply(command: value.first ?? 0, status: .failure)
        }
        return lock.withLock { () -> MiBandAuthReply in
            switch command {
            case let .setKey(bytes, _):
                key = MiBandKey(bytes)
                return MiBandAuthReply(command: 0x01, status: .success)
            case .requestChallenge:
                guard key != nil else { return MiBandAuthReply(command: 0x02, status: .failure) }
                var random: [UInt8] = []
                for _ in 0..<16 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    random.append(UInt8(truncatingIfNeeded: seed >> 56))
                }
                challenges[connection] = random
                return MiBandAuthReply(command: 0x02, status: .success, challenge: random)
            case let .answer(answer, _):
                guard let random = challenges.removeValue(forKey: connection), let key,
                      let expected = try? key.encrypt(block: random), expected == answer
                else { return MiBandAuthReply(command: 0x03, status: .failure) }
                return MiBandAuthReply(command: 0x03, status: .success)
            }
        }
    }

    // MARK: Heart rate

    /// Applies a control point command; refuses what the band does not know.
    func control(_ value: [UInt8], connection: GATTConnectionID, at now: Duration) throws(ATTErrorCode) {
        guard let command = try? MiBandHeartRateCommand(decoding: value) else { throw ATTErrorCode(0x80) }
        lock.withLock {
            var mode = heartRate[connection] ?? HeartRateMode()
            switch command {
            case .setMode(.single, true): mode.singleDue = now + .seconds(2)
            case .setMode(.single, false): mode.singleDue = nil
            case .setMode(.continuous, true):
                mode.continuousSince = now
                mode.lastKeepAlive = now
            case .setMode(.continuous, false): mode.continuousSince = nil
            case .keepAlive: mode.lastKeepAlive = now
            case .setMode(.sleep, _), .measurementInterval: break
            }
            heartRate[connection] = mode
        }
    }

    /// Measurements due on `connection` at `now`: a pending single one, and the continuous one
    /// once a second (continuous mode lapses without keep-alives).
    func heartRates(for connection: GATTConnectionID, at now: Duration, everySecond: Bool) -> [UInt8] {
        lock.withLock {
            guard var mode = heartRate[connection] else { return [] }
            var rates: [UInt8] = []
            if let due = mode.singleDue, due <= now {
                mode.singleDue = nil
                rates.append(nextPulse())
            }
            if mode.continuousSince != nil {
                if now - mode.lastKeepAlive > continuousTimeout {
                    mode.continuousSince = nil
                } else if everySecond {
                    rates.append(nextPulse())
                }
            }
            heartRate[connection] = mode
            return rates
        }
    }

    private func nextPulse() -> UInt8 {
        let pattern: [UInt8] = [76, 78, 81, 79, 77, 74, 72, 75]
        defer { pulse += 1 }
        return pattern[pulse % pattern.count]
    }

    /// Whether continuous mode is on for any connection (for tests).
    public var isMeasuringContinuously: Bool { lock.withLock { heartRate.values.contains { $0.continuousSince != nil } } }

    // MARK: Activity fetch

    /// The reply to a fetch command, and the packets to send after it.
    func fetch(_ value: [UInt8], connection: GATTConnectionID) -> (reply: MiBandActivityFetchReply?, packets: [MiBandActivityPacket]) {
        guard let command = try? MiBandActivityFetchCommand(decoding: value) else { return (.refused(.other(0x02)), []) }
        switch command {
        case let .start(since, type):
            guard type == MiBandActivityFetchCommand.activityType else { return (.refused(.failure), []) }
            let offset = since.date.timeIntervalSince(historyStart) / 60
            let first = min(historyMinutes, max(0, Int(offset.rounded(.up))))
            lock.withLock { pendingFetch[connection] = (first, historyMinutes - first) }
            let from = MiBandTimestamp(historyStart.addingTimeInterval(TimeInterval(first) * 60))
            return (.started(count: UInt32(historyMinutes - first), from: from), [])
        case .fetch:
            guard let pending = lock.withLock({ pendingFetch.removeValue(forKey: connection) }) else { return (.finished(.failure), []) }
            var packets: [MiBandActivityPacket] = []
            var index = pending.first
            let end = pending.first + pending.count
            while index < end {
                let samples = (index..<min(end, index + 4)).map(Self.sample)
                packets.append(MiBandActivityPacket(counter: UInt8(truncatingIfNeeded: packets.count), samples: samples))
                index += samples.count
            }
            return (.finished(.success), packets)
        }
    }

    // MARK: GATT

    static func services(_ band: FitnessBandState, _ runtime: PeripheralRuntime) -> [GATTServiceDefinition] {
        [
            GATTServiceDefinition(uuid: MiBandUUID.service, characteristics: [
                GATTCharacteristicDefinition(uuid: MiBandUUID.activityControl, properties: [.write, .notify], onWrite: { context, value throws(ATTErrorCode) in
                    let (reply, packets) = band.fetch(value, connection: context.connection)
                    let connection = context.connection
                    guard !packets.isEmpty else {
                        if let reply, let bytes = try? reply.encodedBytes() { await runtime.notify(MiBandUUID.activityControl, bytes, to: connection) }
                        return
                    }
                    // The history goes out after the write is answered, one packet every 10 ms,
                    // as a band streams it; the transfer stops if the link goes.
                    runtime.clock.taskStarter.start {
                        for packet in packets {
                            guard (try? await runtime.clock.sleep(for: .milliseconds(10))) != nil,
                                  let bytes = try? packet.encodedBytes(),
                                  await runtime.notify(MiBandUUID.activityData, bytes, to: connection) > 0
                            else { return }
                        }
                        if let reply, let bytes = try? reply.encodedBytes() { await runtime.notify(MiBandUUID.activityControl, bytes, to: connection) }
                    }
                }),
                GATTCharacteristicDefinition(uuid: MiBandUUID.activityData, properties: [.notify]),
                GATTCharacteristicDefinition(uuid: MiBandUUID.batteryInfo, properties: [.read], value: (try? band.battery.encodedBytes()) ?? []),
                GATTCharacteristicDefinition(uuid: MiBandUUID.realtimeSteps, properties: [.read, .notify], onRead: { _ throws(ATTErrorCode) in
                    band.stepsValue()
                }),
            ]),
            GATTServiceDefinition(uuid: MiBandUUID.authService, characteristics: [
                GATTCharacteristicDefinition(uuid: MiBandUUID.auth, properties: [.write, .writeWithoutResponse, .notify], onWrite: { context, value throws(ATTErrorCode) in
                    let reply = band.authenticate(value, connection: context.connection)
                    if let bytes = try? reply.encodedBytes() { await runtime.notify(MiBandUUID.auth, bytes, to: context.connection) }
                }),
            ]),
            GATTServiceDefinition(uuid: MiBandUUID.heartRateService, characteristics: [
                GATTCharacteristicDefinition(uuid: MiBandUUID.heartRateMeasurement, properties: [.notify]),
                GATTCharacteristicDefinition(uuid: MiBandUUID.heartRateControlPoint, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                    try band.control(value, connection: context.connection, at: runtime.clock.now.sinceStart)
                }),
            ]),
            deviceInformation(manufacturer: "Huami-like", model: "Band 2", serial: "B2-000003", firmware: "1.0.1.81", hardware: "V0.1.3.2"),
        ]
    }
}
