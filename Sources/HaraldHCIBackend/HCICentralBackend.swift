import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink
import HaraldHCI
import HaraldSMP
import Logging

/// The Linux backend: Harald's own host stack over an HCI transport (`tcp:HOST:PORT` for
/// Bumble's virtual controllers, `hci:N` for a USB dongle through the HCI user channel), with
/// Harald's GATT client on each connection's ATT channel.
public final class HCICentralBackend: CentralBackend {
    /// The HCI host doing the work.
    public let host: HCIHost
    private let clock: any Clock<Duration>
    private let localMTU: Int
    private let logger: Logger
    /// Connects to different peripherals take turns at the host's one connection attempt.
    /// The host initiates one LE connection at a time (HCI allows one LE Create Connection in
    /// flight): connects to different peripherals wait here, first come first served, instead
    /// of failing as busy; a caller cancelled while waiting leaves the line.
    private let attemptTurns = Turns()
    /// The task of the last scan started, so that a scan started right after another was
    /// abandoned waits for that one to stop its own scan first (its stop would end the new one).
    private let lastScan = Locked<Task<Void, Never>?>(nil)
    /// Bonds, pairing and the lost-bond policy; nil: links are never secured.
    private let security: HCISecurityConfiguration?
    /// Where bonds are kept: the security configuration's store, or the one given on its own.
    private let bondStore: (any BondStore)?
    /// Recognises bonded peers behind resolvable private addresses; nil without a bond store.
    private let addressBook: BondedAddressBook?
    /// Repeated Attempts protection for pairings this backend starts (shared by all links).
    private let pairingAttempts: PairingAttemptLimiter

    private init(
        host: HCIHost, clock: any Clock<Duration>, localMTU: Int, logger: Logger, security: HCISecurityConfiguration?, bondStore: (any BondStore)?
    ) {
        self.host = host
        self.bondStore = bondStore
        self.clock = clock
        self.localMTU = localMTU
        self.logger = logger
        self.security = security
        self.addressBook = bondStore.map { BondedAddressBook(bonds: $0) }
        self.pairingAttempts = security?.attempts ?? PairingAttemptLimiter(clock: clock)
    }

    /// Opens `transport` (as `tcp:HOST:PORT` or `hci:N`), resets and sets up the controller.
    ///
    /// - Parameter specification: `tcp:HOST:PORT` (H4 over TCP, as Bumble serves) or `hci:N` (the
    ///   Linux HCI user channel of hciN).
    /// - Parameter clock: measures command, connection and ATT timeouts.
    /// - Parameter btsnoop: a file to record every HCI packet in (btsnoop, HCI UART type 1002).
    /// - Parameter configuration: the host's timeouts, scan and connection parameters.
    /// - Parameter localMTU: the ATT MTU this side offers in the MTU exchange (517 at most).
    /// - Parameter security: pairing settings; without them the backend does not pair.
    /// - Parameter privateAddress: with a bond store, connect from a resolvable private address
    ///   made from this device's IRK instead of its static identity address, replaced by a fresh
    ///   one every `privateAddressInterval`.
    /// - Parameter privateAddressInterval: how long one private address lasts (T_GAP(private_addr_int),
    ///   15 minutes by default).
    /// - Parameter bonds: where bonds and this device's identity are kept. With a store, the host
    ///   connects from one static random identity address for good (generated and saved the first
    ///   time), so bonded peers recognise it; without one, from a fresh random address each run.
    public static func open(
        transport specification: String, clock: any Clock<Duration> = ContinuousClock(), btsnoop: String? = nil,
        configuration: HCIHost.Configuration = HCIHost.Configuration(), localMTU: Int = 517, bonds: (any BondStore)? = nil,
        security: HCISecurityConfiguration? = nil, privateAddress: Bool = false,
        privateAddressInterval: Duration = PrivateAddressRotation.defaultInterval
    ) async throws -> HCICentralBackend {
        let transport: any HCITransport
        do { transport = try openHCITransport(specification) } catch {
            throw BluetoothError.backend("cannot open \(specification): \(error)")
        }
        var snoop: BTSnoopWriter?
        if let btsnoop {
            do { snoop = try BTSnoopWriter(path: btsnoop) } catch {
                await transport.close()
                throw BluetoothError.backend("cannot write btsnoop file \(btsnoop): \(error)")
            }
        }
        return try await open(
            transport: transport, clock: clock, configuration: configuration, snoop: snoop, localMTU: localMTU, bonds: bonds, security: security,
            privateAddress: privateAddress, privateAddressInterval: privateAddressInterval)
    }

    /// Resets and sets up the controller behind an open `transport` (an in-process controller in
    /// tests, say); closing the backend closes the transport.
    ///
    /// - Parameter transport: the open HCI transport.
    /// - Parameter clock: measures command, connection and ATT timeouts.
    /// - Parameter configuration: the host's timeouts, scan and connection parameters.
    /// - Parameter snoop: when given, every HCI packet is recorded in it.
    /// - Parameter localMTU: the ATT MTU this side offers in the MTU exchange (517 at most).
    /// - Parameter bonds: where bonds and this device's identity are kept.
    /// - Parameter security: pairing settings; without them the backend does not pair.
    /// - Parameter privateAddress: with a bond store, connect from a resolvable private address
    ///   made from this device's IRK (a fresh one each time the backend opens, and again every
    ///   `privateAddressInterval` while it runs) instead of its static identity address: bonded
    ///   peers resolve it with the IRK pairing gave them, others cannot follow the device from
    ///   one address to the next.
    /// - Parameter privateAddressInterval: how long one private address lasts (T_GAP(private_addr_int),
    ///   15 minutes by default), on `clock`.
    public static func open(
        transport: any HCITransport, clock: any Clock<Duration> = ContinuousClock(),
        configuration: HCIHost.Configuration = HCIHost.Configuration(), snoop: BTSnoopWriter? = nil, localMTU: Int = 517,
        bonds: (any BondStore)? = nil, security: HCISecurityConfiguration? = nil, privateAddress: Bool = false,
        privateAddressInterval: Duration = PrivateAddressRotation.defaultInterval
    ) async throws -> HCICentralBackend {
        var configuration = configuration
        // With a Security Manager above it, the host hands it the SMP PDUs instead of refusing them.
        if security != nil { configuration.deliversSecurityManagerPDUs = true }
        if let bonds = bonds ?? security?.bonds, configuration.randomAddress == nil {
            let identity = try await Self.localIdentity(in: bonds)
            if privateAddress {
                configuration.privateAddress = Self.privateAddressRotation(of: identity, every: privateAddressInterval)
            } else if identity.address.kind == .random {
                configuration.randomAddress = identity.address
            }
        }
        let host = HCIHost(transport: transport, clock: clock, configuration: configuration, snoop: snoop)
        do { try await host.start() } catch { throw BluetoothError.backend("controller set-up failed: \(error)") }
        return HCICentralBackend(
            host: host, clock: clock, localMTU: localMTU, logger: configuration.logger, security: security, bondStore: security?.bonds ?? bonds)
    }

    /// Rotation of resolvable private addresses made from `identity`'s IRK (fresh random bits from
    /// the system's secure generator each time), every `interval`.
    static func privateAddressRotation(of identity: LocalIdentity, every interval: Duration) -> PrivateAddressRotation {
        let key = identity.identityResolvingKey
        return PrivateAddressRotation(interval: interval) { key.resolvablePrivateAddress() }
    }

    /// This device's identity kept in `bonds`, generated (a static random address and an IRK) and
    /// saved the first time.
    static func localIdentity(in bonds: any BondStore) async throws -> LocalIdentity {
        do {
            if let known = try await bonds.localIdentity() { return known }
            let fresh = try LocalIdentity.generate()
            try await bonds.setLocalIdentity(fresh)
            return fresh
        } catch let error as BondStoreError {
            throw BluetoothError.backend("the bond store: \(error)")
        }
    }

    /// Disconnects every open link (HCI Disconnect, Remote User Terminated Connection 0x13, each
    /// waited for until Disconnection Complete or the command timeout), then closes the host and
    /// its transport. Closing the transport with links up would leave the peers to find out by
    /// supervision timeout (0x08), or not at all when the controller lives on.
    public func close() async {
        for link in await host.openConnections {
            _ = try? await link.disconnect()
        }
        await host.close()
    }

    // MARK: Bonds

    /// The bonds in the store of ``HCISecurityConfiguration`` (or the store given as `bonds`).
    public func bonds() async throws(BluetoothError) -> [Bond] {
        guard let store = bondStore else { throw .unsupported("bonds: this backend was opened without a bond store") }
        do { return try await store.allBonds() } catch { throw .backend("the bond store: \(error)") }
    }

    @discardableResult
    public func removeBond(for peripheral: PeripheralIdentifier) async throws(BluetoothError) -> Bond? {
        guard let store = bondStore else { throw .unsupported("bonds: this backend was opened without a bond store") }
        guard let address = peripheral.address else { throw .notFound("\(peripheral) has no device address") }
        do {
            guard let bond = try await store.bond(resolving: address) else { return nil }
            return try await store.removeBond(for: bond.identityAddress)
        } catch { throw .backend("the bond store: \(error)") }
    }

    public func radioStates() -> AsyncStream<RadioState> {
        let host = self.host
        return AsyncStream { continuation in
            // A controller that finished set-up is on; a host whose transport ended (the dongle
            // unplugged, the TCP peer gone) or that was closed is off for good. The stream stays
            // open after that until the consumer stops.
            let task = Task {
                let closes = await host.closeEvents()
                if await host.closeReason == nil { continuation.yield(.poweredOn) }
                for await _ in closes { continuation.yield(.poweredOff) }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A scan reports a bonded peer advertising from a resolvable private address under its
    /// identity address (see `Harald/Advertisement/resolvedPrivateAddress`).
    public func scan(_ request: ScanRequest) -> ScanReports {
        let (host, addressBook) = (self.host, self.addressBook)
        let (reports, continuation) = ScanReports.makeStream(bufferLimit: request.bufferLimit)
        let previous = lastScan.withLock { $0 }
        let task = Task {
            // Its consumer gone, the previous scan is ending: let it stop its scan before this
            // one starts (a scan still iterated is another consumer's: the host refuses to run two).
            if let previous, previous.isCancelled { await previous.value }
            do {
                await addressBook?.refresh(force: true)
                let found = try await host.scan(ScanOptions(active: request.active, filterDuplicates: request.duplicates == .reportOnce))
                for await report in found {
                    let identity = await addressBook?.identity(of: report.address)
                    continuation.yield(Self.advertisement(from: report, identity: identity))
                }
                // The host's scan stream also ends when the host stops: a broken transport or a
                // controller fault is the scan's failure, not its natural end.
                if let reason = await host.closeReason, reason != .closed {
                    continuation.finish(throwing: Self.translate(reason))
                } else {
                    continuation.finish()
                }
            } catch {
                continuation.finish(throwing: Self.translate(error))
            }
            await host.stopScanning()
        }
        lastScan.withLock { $0 = task }
        // The cancelled task stops the scan itself once its loop ends.
        continuation.onTermination { task.cancel() }
        return reports
    }

    /// Connects with LE (Extended) Create Connection; `ConnectionOptions` are CoreBluetooth's
    /// and change nothing here. With no `timeout` the controller keeps initiating until the peer
    /// advertises or the task is cancelled. The host makes one attempt at a time: connects to
    /// other peripherals wait for their turn, in order (so a pending connect holds them off
    /// until it succeeds or is cancelled), and the waiting counts against their timeouts.
    ///
    /// A bonded peer's identity address connects to the resolvable private address a scan last
    /// saw it advertising from (its identity when none was seen).
    public func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        guard let requested = peripheral.address else {
            throw BluetoothError.connectionFailed("\(peripheral) has no device address")
        }
        let target = await addressBook?.addressToReach(requested) ?? requested
        let stopwatch = Stopwatch(clock)
        let link: LEConnection
        do {
            guard await attemptTurns.take() else { throw BluetoothError.cancelled }
            defer { attemptTurns.end() }
            let remaining = timeout.map { $0 - stopwatch.elapsed }
            if let remaining, remaining <= .zero { throw HCIError.connectionTimedOut(target) }
            link = try await host.connect(to: target, timeout: remaining)
        } catch let error as BluetoothError {
            throw error
        } catch let error as HCIError {
            if case .connectionTimedOut = error { throw BluetoothError.timeout(operation: "connect to \(peripheral)", after: timeout ?? .zero) }
            if case .cancelled = error { throw BluetoothError.cancelled }
            throw Self.translate(error)
        } catch {
            throw BluetoothError(error)
        }
        let bearer = L2CAPATTBearer(connection: link, host: host, localMTU: localMTU, logger: logger)
        do {
            let security = linkSecurity(for: link, peerIdentity: await peerIdentity(requested: requested, link: link))
            // A bonded peer is encrypted with the bond before its first ATT request (BLESA).
            try await security?.encryptBondedPeerFirst()
            let connection = try await GATTConnection.open(
                bearer: bearer, peripheral: peripheral, clock: clock, timeout: timeout ?? .seconds(30),
                rssiSource: Self.rssiSource(of: link, clock: clock), securityManager: security, serialDomain: host)
            connection.setChannelOpener(Self.channelOpener(host: host, handle: link.handle))
            return connection
        } catch {
            // The GATT failure is what the caller needs; a failed HCI Disconnect on top of it is
            // only logged (a broken transport has closed the host and the link already).
            do { try await link.disconnect() } catch {
                logger.warning("HCI Disconnect after a failed GATT set-up failed", metadata: ["peer": "\(peripheral)", "error": "\(error)"])
            }
            throw error
        }
    }

    /// Opens credit-based channels on the link `handle` of `host`.
    static func channelOpener(host: HCIHost, handle: UInt16) -> GATTConnection.ChannelOpener {
        { (psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration) async throws(BluetoothError) -> any L2CAPChannelBackend in
            do throws(HCIError) {
                let channel = try await host.openCreditBasedChannel(
                    handle: handle, spsm: psm.rawValue, mode: HCIChannel.mode(options.mode), limits: HCIChannel.limits(options), timeout: timeout)
                return HCIChannel(channel)
            } catch {
                throw HCIChannel.translate(error, timeout: timeout)
            }
        }
    }

    /// HCI Read RSSI on `link`; a controller without the command (Unknown HCI Command) makes
    /// it `BluetoothError.unsupported(_:)`, one that answers 127 (unknown) a failed read.
    static func rssiSource(of link: LEConnection, clock: any Clock<Duration>) -> GATTConnection.RSSISource {
        { (timeout: Duration) async throws(BluetoothError) -> RSSI in
            let reading: RSSI??
            do {
                reading = try await withDeadline(timeout, clock: clock) { try await link.readRSSI() }
            } catch let error as HCIError {
                if case .commandFailed(_, let status) = error, status == .unknownCommand {
                    throw .unsupported("HCI Read RSSI on this controller")
                }
                throw translate(error)
            } catch {
                throw BluetoothError(error)
            }
            guard let reading else { throw .timeout(operation: "RSSI read", after: timeout) }
            guard let rssi = reading else { throw .backend("the controller could not measure the RSSI (127)") }
            return rssi
        }
    }

    /// The security manager of a new link, when the backend secures links: pairing runs the
    /// Security Manager as initiator on the link's channel 0x0006, distributing this device's
    /// identity (from the bond store) and encrypting with LE Enable Encryption.
    private func linkSecurity(for link: LEConnection, peerIdentity: BluetoothAddress?) -> BondingLinkSecurity? {
        guard let security else { return nil }
        return BondingLinkSecurity.start(
            link: HCIPairableLink(link: link, host: host, peerIdentity: peerIdentity), configuration: security, logger: logger, clock: clock,
            attempts: pairingAttempts, serialDomain: host)
    }

    /// The identity of the peer on `link`: the identity address asked for when the link went to
    /// its private address, else the identity its private address resolves to, if bonded.
    private func peerIdentity(requested: BluetoothAddress, link: LEConnection) async -> BluetoothAddress? {
        if requested.isIdentity, requested != link.peer { return requested }
        return await addressBook?.identity(of: link.peer)
    }

    // MARK: Mapping

    /// The public form of a report; `identity` is the bonded peer its private address resolved to.
    static func advertisement(from report: HaraldHCI.Advertisement, identity: BluetoothAddress? = nil) -> Harald.Advertisement {
        Harald.Advertisement(
            peripheral: PeripheralIdentifier(address: identity ?? report.address), rssi: report.rssi, isConnectable: report.isConnectable,
            data: report.data, resolvedPrivateAddress: identity == nil ? nil : report.address)
    }

    static func translate(_ error: any Error) -> BluetoothError {
        guard let error = error as? HCIError else { return BluetoothError(error) }
        switch error {
        case .cancelled: return BluetoothError.cancelled
        case let .disconnected(reason): return BluetoothError.disconnected(DisconnectReason(hciReason: reason.rawValue))
        case let .connectionFailed(address, status): return BluetoothError.connectionFailed("\(address): \(status)")
        default: return BluetoothError.backend(error.description)
        }
    }
}
