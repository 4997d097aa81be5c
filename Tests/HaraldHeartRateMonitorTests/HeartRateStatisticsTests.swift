import HaraldHeartRateMonitor
import PropertyBased
import Testing

/// RMSSD computed the textbook way over the last `window` successive differences (ms).
private func naiveRMSSD(_ intervals: [Double], window: Int) -> Double? {
    let differences = zip(intervals, intervals.dropFirst()).map { ($1 - $0) * 1000 }.suffix(window)
    guard !differences.isEmpty else { return nil }
    return (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
}

private let rates = Gen.int(in: 30...240).array(of: 1...120)
/// RR intervals in whole 1/1024 s, as the wire carries them (0.25 … 2 s).
private let intervals = Gen.int(in: 256...2048).map { Double($0) / 1024 }.array(of: 0...150)

@Suite("Heart-rate statistics")
struct HeartRateStatisticsTests {
    @Test func theAverageIsTheMeanOfTheLastWindowOfRates() async {
        await propertyCheck(count: 300, input: rates, Gen.int(in: 1...40)) { rates, window in
            var statistics = HeartRateStatistics(window: window)
            for rate in rates { statistics.add(beatsPerMinute: rate) }
            let recent = rates.suffix(window)
            let average = try #require(statistics.averageHeartRate)
            #expect(abs(average - Double(recent.reduce(0, +)) / Double(recent.count)) < 1e-9)
        }
    }

    @Test func recentRatesAreTheLastWindowInOrderSoMemoryStaysBounded() async {
        await propertyCheck(count: 300, input: rates, Gen.int(in: 1...40)) { rates, window in
            var statistics = HeartRateStatistics(window: window)
            for rate in rates { statistics.add(beatsPerMinute: rate) }
            #expect(statistics.recentHeartRates == Array(rates.suffix(window)))
            #expect(statistics.count == rates.count)
        }
    }

    @Test func minimumAndMaximumCoverTheWholeSession() async {
        await propertyCheck(count: 300, input: rates, Gen.int(in: 1...10)) { rates, window in
            var statistics = HeartRateStatistics(window: window)
            for rate in rates { statistics.add(beatsPerMinute: rate) }
            #expect(statistics.minimum == rates.min())
            #expect(statistics.maximum == rates.max())
            let average = try #require(statistics.averageHeartRate)
            #expect(Double(rates.min()!) <= average && average <= Double(rates.max()!))
        }
    }

    @Test func rmssdMatchesTheTextbookFormulaOverTheLastDifferences() async {
        await propertyCheck(count: 300, input: intervals, Gen.int(in: 1...60), Gen.int(in: 1...4)) { intervals, window, perReading in
            var statistics = HeartRateStatistics(rrWindow: window)
            // Sensors send zero to a few intervals per measurement; the grouping must not matter.
            var index = 0
            while index < intervals.count {
                let group = Array(intervals[index..<min(intervals.count, index + perReading)])
                statistics.add(beatsPerMinute: 70, rrIntervals: group)
                index += perReading
            }
            let expected = naiveRMSSD(intervals, window: window)
            if let expected {
                let rmssd = try #require(statistics.rmssd)
                #expect(abs(rmssd - expected) < 1e-6)
            } else {
                #expect(statistics.rmssd == nil)
            }
        }
    }

    @Test func rmssdOfAPerfectlySteadyRhythmIsZero() async {
        await propertyCheck(count: 100, input: Gen.int(in: 256...2048), Gen.int(in: 2...50)) { raw, count in
            var statistics = HeartRateStatistics()
            statistics.add(beatsPerMinute: 60, rrIntervals: Array(repeating: Double(raw) / 1024, count: count))
            #expect(statistics.rmssd == 0)
        }
    }

    @Test func readingsWithoutSkinContactAreIgnoredAndBreakTheRRChain() {
        var statistics = HeartRateStatistics()
        statistics.add(beatsPerMinute: 60, rrIntervals: [1.0])
        statistics.add(beatsPerMinute: 200, rrIntervals: [0.3], contact: false)
        statistics.add(beatsPerMinute: 62, rrIntervals: [0.5])
        #expect(statistics.count == 2)
        #expect(statistics.ignoredCount == 1)
        #expect(statistics.maximum == 62)
        // 1.0 s and 0.5 s are not successive beats: the gap between them holds no difference.
        #expect(statistics.rmssd == nil)
        statistics.add(beatsPerMinute: 61, rrIntervals: [0.52])
        #expect(abs((statistics.rmssd ?? 0) - 20) < 1e-9)
    }

    @Test func nothingIsReportedBeforeTheFirstReading() {
        let statistics = HeartRateStatistics()
        #expect(statistics.averageHeartRate == nil)
        #expect(statistics.minimum == nil && statistics.maximum == nil)
        #expect(statistics.rmssd == nil)
        #expect(statistics.recentHeartRates.isEmpty)
    }
}
