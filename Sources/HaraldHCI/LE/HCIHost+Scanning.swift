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
        let extended = !configuration.preferLegacyCommands && (controller?.supports(.extendedAdvertising) ?? false)
        let id = newRequestID()
        let (stream, continuation) = AsyncStream.makeStream(
            of: Advertisement.self, bufferingPolicy: .bufferingNewest(max(1, options.bufferSize)))
        guard scanner.begin(id: id, extended: extended, options: options, continuation: continuation) else {
            throw .busy("a scan is already running")
        }
        continuation.onTermination = { [weak self] _ in
            self?.startBackground { host in await host.stopScanning(id: id) }
        }
        do {
            do {
                try await enableScanning(options, extended: extended)
            } catch .commandFailed(_, .commandDisallowed) {
                // The controller still scans for someone (a host that went away without stopping,
                // or a controller that ignores Reset): stop that scan and try once more.
                _ = try await executeOptional(LEScanner.disableCommand(extended: extended))
                try await enableScanning(options, extended: extended)
            }
        } catch {
            scanner.end(id: id)?.continuation.finish()
            throw error
        }
        return stream
    }

    private func enableScanning(_ options: ScanOptions, extended: Bool) async throws(HCIError) {
        for command in LEScanner.enableCommands(options, extended: extended) { try await execute(command) }
    }

    /// Stops the running scan (if any) and finishes its stream.
    public func stopScanning() async {
        guard let scan = scanner.current else { return }
        await stopScanning(id: scan.id)
    }

    func stopScanning(id: UInt64) async {
        guard let scan = scanner.end(id: id) else { return }
        scan.continuation.finish()
        guard closedError == nil else { return }
        await bestEffort("stopping the scan") { host throws(HCIError) in
            try await host.execute(LEScanner.disableCommand(extended: scan.extended))
        }
    }

    /// How many advertisers the running scan remembers now (0 without a scan).
    var rememberedAdvertiserCount: Int { scanner.rememberedAdvertiserCount }

    func finishScan() {
        scanner.end()?.continuation.finish()
    }
}
