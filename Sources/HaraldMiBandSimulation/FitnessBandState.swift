import Foundation
import Harald
import HaraldCore

/// The simulated band's state — key, step counter, challenges, heart-rate modes, fetches under
/// way — and its answers, written from the Mi Band 2 protocol (protocols.md B). It lives behind a
/// lock (`Locked<FitnessBandState>`), shared by the write handlers and the connection script.
public struct FitnessBandState: Sendable {
    /// The key Gadgetbridge and creotiv install by default: "0123456789@ABCDE".
    public static let defaultKey: [UInt8] = Array(0x30...0x39) + Array(0x40...0x45)
    /// 73 %, not charging, last charged 2016-11-26 23:43:59 to 100 %, 4 charges (the layout of
    /// protocols.md B.4 with another level).
    public static let defaultBattery = FitnessBandBattery(
        level: 73, lastOff: DateComponents(year: 2016, month: 11, day: 26, hour: 18, minute: 35, second: 44), chargeCount: 4,
        lastCharge: DateComponents(year: 2016, month: 11, day: 26, hour: 23, minute: 43, second: 59), lastChargeLevel: 100)
    /// 2026-11-21 12:00 UTC.
    public static let defaultHistoryEnd = Date(timeIntervalSince1970: 1_795_262_400)

    /// The band's sample for minute `index` of its history (``FitnessBandSample/minute(_:)``).
    public static func sample(_ index: Int) -> FitnessBandSample { FitnessBandSample.minute(index) }

    private var cipher: AES128?
    private var stepCount: UInt32 = 409
    private var challenges: [CentralIdentifier: [UInt8]] = [:]
    private var seed: UInt64 = 0x2545_F491_4F6C_DD1D
    private var heartRate: [CentralIdentifier: HeartRateMode] = [:]
    private var pendingFetch: [CentralIdentifier: (first: Int, count: Int)] = [:]
    private var pulse = 0
    let historyStart: Date
    let historyMinutes: Int
    let continuousTimeout: Duration

    private struct HeartRateMode {
        var singleDue: Duration?
        var continuousSince: Duration?
        var lastKeepAlive: Duration = .zero
    }

    init(key: [UInt8]?, historyEnd: Date, historyMinutes: Int, continuousTimeout: Duration) {
        cipher = key.flatMap(AES128.init(key:))
        self.historyMinutes = max(0, historyMinutes)
        historyStart = historyEnd.addingTimeInterval(-TimeInterval(self.historyMinutes) * 60)
        self.continuousTimeout = continuousTimeout
    }

    // MARK: Steps

    /// Two more steps.
    mutating func walk() { stepCount += 2 }

    /// The realtime steps value (0x0007, protocols.md B.3): `0C`, then steps, metres and
    /// kilocalories as u32 little-endian.
    var stepsValue: [UInt8] {
        func uint32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return [0x0C] + uint32(stepCount) + uint32(stepCount * 62 / 100) + uint32(stepCount / 50)
    }

    mutating func forget(_ connection: CentralIdentifier) {
        challenges[connection] = nil
        heartRate[connection] = nil
        pendingFetch[connection] = nil
    }

    // MARK: Auth (protocols.md B.2)

    /// The reply to a write on the auth characteristic (0x0009): `10 <command> <01 success |
    /// 04 failure>`, with the 16-byte challenge after a successful challenge request.
    ///
    /// `01 <flags> <16-byte key>` installs a key; `02 <flags>` asks for a challenge (refused
    /// until the band has a key); `03 <flags> <16 bytes>` answers it with AES-128-ECB(key,
    /// challenge). The flags byte (0x08 on the Mi Band 2) is not checked.
    mutating func authenticate(_ value: [UInt8], connection: CentralIdentifier) -> [UInt8] {
        let command = value.first ?? 0
        let (success, failure): ([UInt8], [UInt8]) = ([0x10, command, 0x01], [0x10, command, 0x04])
        switch (command, value.count) {
        case (0x01, 18):
            cipher = AES128(key: Array(value[2...]))
            return success
        case (0x02, 2):
            guard cipher != nil else { return failure }
            var random: [UInt8] = []
            for _ in 0..<16 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                random.append(UInt8(truncatingIfNeeded: seed >> 56))
            }
            challenges[connection] = random
            return success + random
        case (0x03, 18):
            guard let random = challenges.removeValue(forKey: connection), let expected = cipher?.encrypt(block: random),
                expected == Array(value[2...])
            else { return failure }
            return success
        default:
            return failure
        }
    }

    // MARK: Heart rate (protocols.md B.5)

    /// Applies a control point (0x2A39) write: `15 <mode> <on>` (mode 0 sleep, 1 continuous,
    /// 2 single), `14 <minutes>`, `16` keep-alive. Anything else is refused with ATT error 0x80.
    mutating func control(_ value: [UInt8], connection: CentralIdentifier, at now: Duration) throws(ATTErrorCode) {
        var mode = heartRate[connection] ?? HeartRateMode()
        switch value {
        case [0x15, 0x02, 0x01]: mode.singleDue = now + .seconds(2)
        case [0x15, 0x02, 0x00]: mode.singleDue = nil
        case [0x15, 0x01, 0x01]:
            mode.continuousSince = now
            mode.lastKeepAlive = now
        case [0x15, 0x01, 0x00]: mode.continuousSince = nil
        case [0x16]: mode.lastKeepAlive = now
        case [0x15, 0x00, 0x00], [0x15, 0x00, 0x01]: break
        case _ where value.count == 2 && value[0] == 0x14: break
        default: throw ATTErrorCode(0x80)
        }
        heartRate[connection] = mode
    }

    /// Measurements due on `connection` at `now`, in bpm: a pending single one, and the
    /// continuous one once a second (continuous mode lapses without keep-alives).
    mutating func heartRates(for connection: CentralIdentifier, at now: Duration, everySecond: Bool) -> [UInt8] {
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

    private mutating func nextPulse() -> UInt8 {
        let pattern: [UInt8] = [76, 78, 81, 79, 77, 74, 72, 75]
        defer { pulse += 1 }
        return pattern[pulse % pattern.count]
    }

    // MARK: Activity fetch (protocols.md B.5)

    /// The band's answer to a write on the fetch control characteristic (0x0004).
    enum FetchAnswer {
        /// A reply on 0x0004 at once.
        case reply([UInt8])
        /// The history packets for 0x0005 (a counter byte, then up to four 4-byte samples),
        /// then the closing reply on 0x0004.
        case transfer(packets: [[UInt8]], then: [UInt8])
    }

    /// `01 01 <timestamp>` asks for the minutes from that time on: `10 01 01 <count u32 LE>
    /// <timestamp of the first minute>` (the history starts at the first whole minute at or
    /// after the time asked); `02` sends them, then `10 02 01`. A `02` with no start before it
    /// ends with `10 02 04`; another data type is refused with `10 01 04`.
    mutating func fetch(_ value: [UInt8], connection: CentralIdentifier) -> FetchAnswer {
        switch value.first {
        case 0x01:
            guard value.count == 10, value[1] == 0x01, let since = BandTime.date(fromTimestamp: value[2...]) else {
                return .reply([0x10, 0x01, 0x04])
            }
            let offset = since.timeIntervalSince(historyStart) / 60
            let first = min(historyMinutes, max(0, Int(offset.rounded(.up))))
            let count = historyMinutes - first
            pendingFetch[connection] = (first, count)
            let from = historyStart.addingTimeInterval(TimeInterval(first) * 60)
            return .reply([0x10, 0x01, 0x01] + (0..<4).map { UInt8(truncatingIfNeeded: UInt32(count) >> (8 * $0)) } + BandTime.timestampBytes(from))
        case 0x02:
            guard let pending = pendingFetch.removeValue(forKey: connection) else { return .reply([0x10, 0x02, 0x04]) }
            var packets: [[UInt8]] = []
            var index = pending.first
            let end = pending.first + pending.count
            while index < end {
                let minutes = index..<min(end, index + 4)
                packets.append([UInt8(truncatingIfNeeded: packets.count)] + minutes.flatMap { FitnessBandSample.minute($0).bytes })
                index = minutes.upperBound
            }
            return packets.isEmpty ? .reply([0x10, 0x02, 0x01]) : .transfer(packets: packets, then: [0x10, 0x02, 0x01])
        default:
            return .reply([0x10, value.first ?? 0, 0x04])
        }
    }
}
