import HaraldCore
import Logging

/// Logs a configuration's ``PairingConfiguration/weakenings`` as a warning the first time a
/// pairing uses it, not on every pairing: one ledger for the process, bounded.
final class PairingWarnings: Sendable {
    /// The process's ledger, logging to `harald.smp`.
    static let shared = PairingWarnings(logger: Logger(label: "harald.smp"))

    /// The most configurations remembered; past it the ledger starts over (a warning may then be
    /// logged again, never lost).
    static let capacity = 256

    private let logger: Logger
    private let warned = Locked<Set<PairingConfiguration>>([])

    init(logger: Logger) { self.logger = logger }

    /// How many configurations the ledger remembers now (at most ``capacity``).
    var rememberedCount: Int { warned.withLock { $0.count } }

    /// Logs `configuration`'s weakenings unless they were logged for it before. Returns whether
    /// it logged.
    @discardableResult
    func noteUse(of configuration: PairingConfiguration, role: String) -> Bool {
        let weakenings = configuration.weakenings
        guard !weakenings.isEmpty else { return false }
        let isNew = warned.withLock { warned -> Bool in
            if warned.contains(configuration) { return false }
            if warned.count >= Self.capacity { warned.removeAll() }
            warned.insert(configuration)
            return true
        }
        guard isNew else { return false }
        for weakening in weakenings {
            logger.warning("pairing below the secure defaults: \(weakening)", metadata: ["role": "\(role)"])
        }
        return true
    }
}
