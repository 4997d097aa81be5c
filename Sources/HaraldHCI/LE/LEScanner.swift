import HaraldCore

/// The host's scan: whether one runs, with which commands it is started, paused and stopped,
/// and what each advertising report makes of it.
///
/// One scan at a time. The extended scan commands (Core spec Vol 4 Part E §7.8.64–65) are used
/// when the controller has LE Extended Advertising, else the legacy ones (§7.8.10–11); reports of
/// either kind are understood either way, merged per advertiser by an ``AdvertisementAssembler``
/// and yielded into the scan's stream. A value the host drives: the host sends the commands and
/// finishes the stream of a scan that ended.
package struct LEScanner: Sendable {
    /// The scan running now.
    package struct Scan: Sendable {
        /// The scan's identity: a stop for another (ended) scan does nothing.
        package let id: UInt64
        /// Whether it uses the extended scan commands.
        package let extended: Bool
        /// Whether the controller filters duplicates (to enable the scan again as it was).
        package let filterDuplicates: Bool
        /// Where its advertisements go.
        package let continuation: AsyncStream<Advertisement>.Continuation
        var assembler: AdvertisementAssembler
    }

    package private(set) var current: Scan?

    /// No scan.
    package init() {}

    /// Starts scan `id`; false (nothing changes) when one runs already.
    package mutating func begin(
        id: UInt64, extended: Bool, options: ScanOptions, continuation: AsyncStream<Advertisement>.Continuation
    ) -> Bool {
        guard current == nil else { return false }
        current = Scan(
            id: id, extended: extended, filterDuplicates: options.filterDuplicates, continuation: continuation,
            assembler: AdvertisementAssembler(capacity: options.rememberedAdvertisers))
        return true
    }

    /// Ends the scan (only scan `id`, when given) and returns it: the host finishes its stream
    /// and, unless it is closing, sends ``disableCommand(extended:)``.
    package mutating func end(id: UInt64? = nil) -> Scan? {
        guard let scan = current, id == nil || scan.id == id else { return nil }
        current = nil
        return scan
    }

    /// How many advertisers the running scan remembers now (0 without a scan).
    package var rememberedAdvertiserCount: Int { current?.assembler.count ?? 0 }

    /// Adds a legacy report to the running scan and yields the advertisement it makes.
    package mutating func received(_ report: LEAdvertisingReport) {
        guard var scan = current else { return }
        let advertisement = scan.assembler.add(report)
        current = scan
        scan.continuation.yield(advertisement)
    }

    /// Adds an extended report to the running scan and yields the advertisement once its data is
    /// complete.
    package mutating func received(_ report: LEExtendedAdvertisingReport) {
        guard var scan = current else { return }
        let advertisement = scan.assembler.add(report)
        current = scan
        if let advertisement { scan.continuation.yield(advertisement) }
    }

    /// The commands that start a scan: its parameters (our address type random), then enable.
    package static func enableCommands(_ options: ScanOptions, extended: Bool) -> [HCICommand] {
        if extended {
            return [
                .leSetExtendedScanParameters(active: options.active, interval: options.interval, window: options.window, ownAddressType: .random),
                .leSetExtendedScanEnable(true, filterDuplicates: options.filterDuplicates),
            ]
        }
        return [
            .leSetScanParameters(active: options.active, interval: options.interval, window: options.window, ownAddressType: .random),
            .leSetScanEnable(true, filterDuplicates: options.filterDuplicates),
        ]
    }

    /// The command that stops (or pauses) a scan.
    package static func disableCommand(extended: Bool) -> HCICommand {
        extended ? .leSetExtendedScanEnable(false) : .leSetScanEnable(false)
    }

    /// The command that starts `scan` again after a pause, with its parameters unchanged.
    package static func resumeCommand(_ scan: Scan) -> HCICommand {
        scan.extended
            ? .leSetExtendedScanEnable(true, filterDuplicates: scan.filterDuplicates)
            : .leSetScanEnable(true, filterDuplicates: scan.filterDuplicates)
    }
}
