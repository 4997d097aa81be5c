import HaraldCore

/// LE privacy for our own address (Core spec Vol 3 Part C §10.7, Vol 6 Part B §1.3.2.2): the
/// host advertises, scans and connects from a resolvable private address made from our IRK, and
/// replaces it with a fresh one every ``interval`` (T_GAP(private_addr_int), 15 minutes by
/// default, Vol 3 Part C Appendix A), so that a device that does not hold our IRK cannot follow
/// us from one address to the next, while a bonded peer resolves each address with the IRK
/// pairing gave it.
///
/// HaraldHCI has no AES, so the addresses come from ``makeAddress`` (the HCI backend passes its
/// IRK's `resolvablePrivateAddress()`).
public struct PrivateAddressRotation: Sendable {
    /// T_GAP(private_addr_int): the spec's recommended time between two private addresses, 15
    /// minutes.
    public static let defaultInterval: Duration = .seconds(15 * 60)
    /// How long to wait before trying again when the controller is busy with something that
    /// pins the address (a connection attempt), or refused the change.
    public static let defaultRetryDelay: Duration = .seconds(5)

    /// Time between two addresses, on the host's clock.
    public var interval: Duration
    /// Time before another try when a change could not happen.
    public var retryDelay: Duration
    /// A new resolvable private address, called at start-up and at every rotation; it must come
    /// from a cryptographically secure generator and our IRK.
    public var makeAddress: @Sendable () -> BluetoothAddress

    /// Rotation every `interval` (15 minutes unless given) through `makeAddress`.
    public init(
        interval: Duration = defaultInterval, retryDelay: Duration = defaultRetryDelay, makeAddress: @escaping @Sendable () -> BluetoothAddress
    ) {
        self.interval = interval
        self.retryDelay = retryDelay
        self.makeAddress = makeAddress
    }
}

extension HCIHost {
    /// Our random address now: what advertising, scanning and new connections use (nil before
    /// set-up).
    public var currentRandomAddress: BluetoothAddress? { controller?.randomAddress }

    /// Sets our random address while the host runs, doing what the controller needs for it.
    ///
    /// LE Set Random Address is refused (Command Disallowed) while legacy advertising, scanning
    /// or initiating is enabled (Core spec Vol 4 Part E §7.8.4), and an advertising set's address
    /// cannot change while that set is enabled (§7.8.52). So the host stops what is on air and
    /// the scan, sets the address (and the advertising set's), and starts them again as they
    /// were; links already up keep the address they were made with
    /// (``LEConnection/localAddress``). A connection attempt pins the address: while one runs this
    /// throws ``HCIError/busy(_:)``. When a step fails, what was stopped is started again (best
    /// effort) and the error is thrown; the address is then unchanged unless the change itself
    /// went through.
    public func changeRandomAddress(to address: BluetoothAddress) async throws(HCIError) {
        try ensureOpen()
        guard controller != nil else { throw .busy("the controller is not set up yet") }
        guard !connector.isBusy else { throw .busy("a connection attempt uses the current address") }
        guard !isChangingAddress else { throw .busy("the address is being changed already") }
        isChangingAddress = true
        defer { isChangingAddress = false }
        let pausedScan = scanner.current
        let pausedAdvertising = advertiser.current
        var failure: HCIError?
        do {
            if let pausedScan {
                try await execute(LEScanner.disableCommand(extended: pausedScan.extended))
            }
            if let pausedAdvertising { try await execute(LEAdvertiser.enableCommand(pausedAdvertising, false)) }
            try await execute(.leSetRandomAddress(address))
            controller?.randomAddress = address
            if case .extended? = pausedAdvertising {
                try await execute(.leSetAdvertisingSetRandomAddress(handle: LEAdvertiser.advertisingSet, address: address))
            }
        } catch {
            failure = error
        }
        // Start again what was paused, if nobody changed it meanwhile.
        if closedError == nil {
            if let pausedAdvertising, advertiser.current == pausedAdvertising {
                await bestEffort("advertising again after an address change") { host throws(HCIError) in
                    try await host.execute(LEAdvertiser.enableCommand(pausedAdvertising, true))
                }
            }
            if let pausedScan, scanner.current?.id == pausedScan.id {
                await bestEffort("scanning again after an address change") { host throws(HCIError) in
                    try await host.execute(LEScanner.resumeCommand(pausedScan))
                }
            }
        }
        if let failure { throw failure }
    }

    /// Starts rotating our private address when the configuration asks for it (after set-up).
    func startAddressRotation() {
        guard let rotation = configuration.privateAddress else { return }
        scheduleAddressRotation(after: rotation.interval)
    }

    private func scheduleAddressRotation(after delay: Duration) {
        cancelDeadline(addressRotation)
        addressRotation = addDeadline(after: delay) { host in await host.rotatePrivateAddress() }
    }

    /// One rotation: a new address now, or another try soon when the controller cannot take it.
    private func rotatePrivateAddress() async {
        guard let rotation = configuration.privateAddress, closedError == nil else { return }
        let next = rotation.makeAddress()
        do {
            try await changeRandomAddress(to: next)
            logger.debug("rotated our resolvable private address")
            scheduleAddressRotation(after: rotation.interval)
        } catch {
            switch error {
            case .closed, .cancelled, .transport:
                backgroundFailed(error, activity: "rotating our private address", handle: nil)
            default:
                logger.notice("rotating our private address failed; trying again soon", metadata: ["error": "\(error)"])
                scheduleAddressRotation(after: rotation.retryDelay)
            }
        }
    }
}
