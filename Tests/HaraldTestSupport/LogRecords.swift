import HaraldCore
import Logging

/// What a component logged, kept for a test to read back (instead of printing it).
public final class LogRecords: Sendable {
    private let entries = Locked<[(level: Logger.Level, message: String)]>([])

    public init() {}

    /// A logger that records here, at every level.
    public var logger: Logger {
        var logger = Logger(label: "harald.test") { _ in Handler(records: self) }
        logger.logLevel = .trace
        return logger
    }

    /// How many records have `level`.
    public func count(level: Logger.Level) -> Int {
        entries.withLock { $0.filter { $0.level == level }.count }
    }

    /// Whether a record at `level` contains `text`.
    public func contains(level: Logger.Level, _ text: String) -> Bool {
        entries.withLock { $0.contains { $0.level == level && $0.message.contains(text) } }
    }

    fileprivate func append(_ level: Logger.Level, _ message: String) {
        entries.withLock { $0.append((level, message)) }
    }

    private struct Handler: LogHandler {
        let records: LogRecords
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { records.append(event.level, event.message.description) }
    }
}
