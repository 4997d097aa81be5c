import ArgumentParser
import Foundation
import Harald
import HaraldMiBand
import HaraldProfiles

extension MiBandCommand {
    /// `harald miband activity ADDRESS`: the band's minute-by-minute history, with a progress bar.
    struct Activity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch the activity history (a record per minute: steps, heart rate, intensity).",
            discussion: """
                Text: a summary of the minutes fetched. --json: a JSON line per minute (timestamp, steps, heartRate, \
                intensity, category). On a terminal, a progress bar on stderr follows the transfer.
                """)
        @OptionGroup var options: MiBandOptions

        @Option(help: "Start of the history, ISO 8601 in UTC (2026-11-21T09:00:00Z); default: 3 hours ago.")
        var since: String?

        func validate() throws {
            if let since, Self.date(since) == nil { throw ValidationError("--since '\(since)' is not an ISO 8601 time such as 2026-11-21T09:00:00Z") }
        }

        static func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

        func run() async throws {
            let json = options.radio.json
            let start = since.flatMap(Self.date) ?? Date().addingTimeInterval(-3 * 3600)
            let progress = ProgressDisplay("activity sync")
            try await options.withBand { band in
                let records = try await band.fetchActivity(since: start) { update in
                    if case let .received(count, total?) = update { progress.show(done: count, total: total) }
                }
                progress.finish()
                let formatter = ISO8601DateFormatter()
                if json {
                    for record in records {
                        Output.json(
                            .fields([
                                "timestamp": .string(formatter.string(from: record.timestamp)), "steps": .int(record.sample.steps),
                                "heartRate": record.sample.heartRate.map { .int($0) }, "intensity": .int(record.sample.intensity),
                                "category": .int(record.sample.category),
                            ]))
                    }
                    return
                }
                let steps = records.reduce(0) { $0 + Int($1.sample.steps) }
                let rates = records.compactMap { $0.sample.heartRate.map(Int.init) }
                let first = records.first.map { " from \(formatter.string(from: $0.timestamp))" } ?? ""
                let heart = rates.isEmpty ? "" : ", heart rate \(rates.min()!)–\(rates.max()!) bpm (average \(rates.reduce(0, +) / rates.count))"
                Output.line("\(records.count) minutes\(first): \(steps) steps\(heart)")
            }
        }
    }
}
