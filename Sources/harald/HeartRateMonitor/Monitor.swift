import ArgumentParser
import Foundation
import Harald
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldTerminal

/// `harald hrm monitor ADDRESS`: one live line per measurement, or JSON lines.
extension HeartRateMonitorCommand {
    struct Monitor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a sensor's heart rate live: bpm, a sparkline of the recent rate, RR intervals, skin contact.",
            discussion: """
                On a terminal the line is rewritten in place; otherwise (and with --json) each measurement is a line. \
                JSON lines carry heartRate (bpm), contact (true, false, or null when the sensor cannot tell), \
                energyExpended (kJ, when sent) and rrIntervals (seconds).
                """)

        @OptionGroup var radio: RadioOptions
        @OptionGroup var device: DeviceOptions
        @Option(help: "Stop after this many measurements.") var count: Int?
        @Option(help: "Stop after this many seconds (default: until interrupted; 10 measurements on the simulator).") var timeout: Double?
        @Option(help: "Fail when no measurement arrives for this many seconds.") var stallTimeout: Double = 10

        func validate() throws {
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
            if let timeout, timeout < 0 { throw ValidationError("--timeout must not be negative") }
            if stallTimeout <= 0 { throw ValidationError("--stall-timeout must be positive") }
        }

        func run() async throws {
            let json = radio.json
            let device = self.device
            let simulated = try radio.transportChoice() == .simulator
            // Virtual time runs as fast as the machine: without a limit the simulator would print forever.
            let limit = count ?? (timeout == nil && simulated ? 10 : nil)
            let duration = timeout.map { Duration.milliseconds(Int64($0 * 1000)) }
            let stall = Duration.milliseconds(Int64(stallTimeout * 1000))
            let display = LiveLine(inPlace: !json && isatty(STDOUT_FILENO) == 1)
            try await RadioSession.run(radio) { central in
                let monitor = HeartRateMonitor(connection: try await device.connect(central))
                do {
                    let readings = try await monitor.readings(stallTimeout: stall)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            var statistics = HeartRateStatistics(window: 20)
                            var received = 0
                            for try await reading in readings {
                                statistics.add(reading)
                                if json { Output.json(Self.json(reading)) } else { display.show(Self.line(reading, statistics)) }
                                received += 1
                                if let limit, received >= limit { return }
                            }
                        }
                        if let duration { group.addTask { try await central.clock.sleep(for: duration) } }
                        try await group.next()
                        group.cancelAll()
                    }
                    display.finish()
                    await monitor.stop(readings)
                } catch {
                    display.finish()
                    await monitor.connection.disconnect()
                    throw error
                }
                await monitor.connection.disconnect()
            }
        }

        /// The JSON line of one measurement.
        static func json(_ reading: HeartRateReading) -> JSONValue {
            let contact: JSONValue =
                switch reading.sensorContact {
                case .detected: .bool(true)
                case .notDetected: .bool(false)
                case .notSupported: .null
                }
            return .fields([
                "heartRate": .int(reading.beatsPerMinute),
                "contact": contact,
                "energyExpended": reading.energyExpended.map { .int($0) } ?? .null,
                "rrIntervals": .array(reading.rrIntervals.map { .double($0) }),
            ])
        }

        /// The line a person reads: `♥ 72 bpm ▃▄▅▇ RR 833 ms · contact · 12 kJ · avg 75 (62–100) · RMSSD 31 ms`.
        static func line(_ reading: HeartRateReading, _ statistics: HeartRateStatistics) -> String {
            var parts = ["♥ \(String(reading.beatsPerMinute).leftPadded(to: 3)) bpm", Sparkline.render(statistics.recentHeartRates, width: 20)]
            let rr = reading.rrIntervalsMilliseconds
            parts.append(rr.isEmpty ? "RR -" : "RR " + rr.map(String.init).joined(separator: ",") + " ms")
            switch reading.sensorContact {
            case .detected: parts.append("contact")
            case .notDetected: parts.append("NO CONTACT")
            case .notSupported: break
            }
            if let energy = reading.energyExpended { parts.append("\(energy) kJ") }
            if let average = statistics.averageHeartRate, let low = statistics.minimum, let high = statistics.maximum {
                parts.append("avg \(Int(average.rounded())) (\(low)–\(high))")
            }
            if let rmssd = statistics.rmssd { parts.append("RMSSD \(Int(rmssd.rounded())) ms") }
            return parts.joined(separator: " · ")
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
