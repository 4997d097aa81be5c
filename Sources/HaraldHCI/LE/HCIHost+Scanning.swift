/// How to scan.
public struct ScanOptions: Sendable, Hashable {
    /// Active scans send scan requests and merge the scan responses.
    public var active: Bool
    /// Scan interval and window in units of 0.625 ms.
    public var interval: UInt16
    /// How long the controller listens in each interval, in units of 0.625 ms (at most `interval`).
    public var window: UInt16
    /// Ask the controller to filter duplicate reports.
    public var filterDuplicates: Bool
    /// How many advertisements may wait for the reader before the oldest unread are dropped.
    public var bufferSize: Int
    /// How many advertisers the scan remembers, to merge each scan response into its
    /// advertisement and join fragmented extended advertising data (see
    /// ``AdvertisementAssembler``). The least recently heard are forgotten first, so a long scan
    /// among devices that change their private address every few minutes holds at most this
    /// many; a forgotten advertiser's next scan response arrives without its advertising data.
    public var rememberedAdvertisers: Int

    /// Scan options; the defaults listen 30 ms out of every 60 ms.
    public init(
        active: Bool = true, interval: UInt16 = 0x60, window: UInt16 = 0x30, filterDuplicates: Bool = false,
        bufferSize: Int = 1024, rememberedAdvertisers: Int = 256
    ) {
        self.active = active
        self.interval = interval
        self.window = window
        self.filterDuplicates = filterDuplicates
        self.bufferSize = bufferSize
        self.rememberedAdvertisers = rememberedAdvertisers
    }
}

struct ActiveScan {
    let id: UInt64
    let extended: Bool
    /// Whether the controller filters duplicates (to enable the scan again as it was).
    var filterDuplicates = false
    let continuation: AsyncStream<Advertisement>.Continuation
    var assembler: AdvertisementAssembler
}

extension HCIHost {
    /// Starts scanning and returns the advertisements as they come.
    ///
    /// Uses the extended scan commands when the controller has the LE Extended Advertising feature
    /// (unless ``Configuration/preferLegacyCommands``), else the legacy ones; both kinds of report
    /// are understood either way (some controllers answer legacy commands with extended reports).
    /// Scanning stops when the stream's consumer stops iterating or on ``stopScanning()``.
    /// One scan at a time: a second call throws ``HCIError/busy(_:)``.
    public func scan(_ options: ScanOptions = ScanOptions()) async throws(HCIError) -> AsyncStream<Advertisement> {
        try ensureOpen()
        guard scan == nil else { throw .busy("a scan is already running") }
        let extended = !configuration.preferLegacyCommands && (controller?.supports(.extendedAdvertising) ?? false)
        let id = newRequestID()
        let (stream, continuation) = AsyncStream.makeStream(
            of: Advertisement.self, bufferingPolicy: .bufferingNewest(max(1, options.bufferSize)))
        scan = ActiveScan(
            id: id, extended: extended, filterDuplicates: options.filterDuplicates, continuation: continuation,
            assembler: AdvertisementAssembler(capacity: options.rememberedAdvertisers))
        continuation.onTermination = { [weak self] _ in
            self?.startBackground { host in await host.stopScanning(id: id) }
        }
        do {
            do {
                try await enableScanning(options, extended: extended)
            } catch .commandFailed(_, .commandDisallowed) {
                // The controller still scans for someone (a host that went away without stopping,
                // or a controller that ignores Reset): stop that scan and try once more.
                _ = try await executeOptional(extended ? .leSetExtendedScanEnable(false) : .leSetScanEnable(false))
                try await enableScanning(options, extended: extended)
            }
        } catch {
            if scan?.id == id {
                scan = nil
                continuation.finish()
            }
            throw error
        }
        return stream
    }

    private func enableScanning(_ options: ScanOptions, extended: Bool) async throws(HCIError) {
        if extended {
            try await execute(
                .leSetExtendedScanParameters(
                    active: options.active, interval: options.interval, window: options.window, ownAddressType: .random))
            try await execute(.leSetExtendedScanEnable(true, filterDuplicates: options.filterDuplicates))
        } else {
            try await execute(
                .leSetScanParameters(
                    active: options.active, interval: options.interval, window: options.window, ownAddressType: .random))
            try await execute(.leSetScanEnable(true, filterDuplicates: options.filterDuplicates))
        }
    }

    /// Stops the running scan (if any) and finishes its stream.
    public func stopScanning() async {
        guard let scan else { return }
        await stopScanning(id: scan.id)
    }

    func stopScanning(id: UInt64) async {
        guard let current = scan, current.id == id else { return }
        scan = nil
        current.continuation.finish()
        guard closedError == nil else { return }
        await bestEffort("stopping the scan") { host throws(HCIError) in
            try await host.execute(current.extended ? .leSetExtendedScanEnable(false) : .leSetScanEnable(false))
        }
    }

    /// How many advertisers the running scan remembers now (0 without a scan).
    var rememberedAdvertiserCount: Int { scan?.assembler.count ?? 0 }

    func finishScan() {
        scan?.continuation.finish()
        scan = nil
    }

    func scanReceived(_ report: LEAdvertisingReport) {
        guard var current = scan else { return }
        let advertisement = current.assembler.add(report)
        scan = current
        current.continuation.yield(advertisement)
    }

    func scanReceived(_ report: LEExtendedAdvertisingReport) {
        guard var current = scan else { return }
        let advertisement = current.assembler.add(report)
        scan = current
        if let advertisement { current.continuation.yield(advertisement) }
    }
}
