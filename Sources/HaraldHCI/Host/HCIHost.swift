import HaraldCodec
import HaraldCore
import HaraldL2CAP
import Logging

/// An LE central host stack over one HCI transport: commands and events, scanning, connections,
/// ACL data and the L2CAP fixed channels (ATT, LE signaling, SMP).
///
/// ```swift
/// let host = HCIHost(transport: try openHCITransport("tcp:127.0.0.1:9000"))
/// let info = try await host.start()                 // reset and configure the controller
/// for await ad in try await host.scan() where ad.data.localName == "Harald-HR" { … }
/// let connection = try await host.connect(to: peer)
/// try await connection.att.send([0x02, 0xF7, 0x00]) // ATT Exchange MTU Request
/// ```
///
/// Every command has a timeout (``Configuration/commandTimeout``) measured on the injected clock,
/// so a silent controller gives ``HCIError/commandTimedOut(_:)``, never a hang.
public actor HCIHost: DeadlineOwner {
    /// Tunables of the host.
    public struct Configuration: Sendable {
        /// How long a command may go unanswered.
        public var commandTimeout: Duration = .seconds(5)
        /// The static random address to use; nil picks a fresh one at each ``HCIHost/start()``.
        /// Ignored when ``privateAddress`` is set.
        public var randomAddress: BluetoothAddress?
        /// LE privacy for our own address: start from a resolvable private address and replace it
        /// every ``PrivateAddressRotation/interval`` (15 minutes by default). Nil: the address
        /// stays ``randomAddress`` (or the fresh static one) for the host's life.
        public var privateAddress: PrivateAddressRotation?
        /// Use the legacy scan/connect commands even if the controller supports extended ones.
        public var preferLegacyCommands = false
        /// Ask for 251-byte link-layer payloads on each new connection when the controller supports
        /// Data Length Extension.
        public var requestDataLengthExtension = true
        /// Ask for this PHY (0x02 = LE 2M) on each new connection when supported; nil leaves the PHY.
        public var preferredPHY: UInt8?
        /// Largest L2CAP PDU accepted from a peer (reassembly bound), in bytes.
        public var maximumReceivedPDUSize = 4096
        /// How many received SDUs a fixed channel buffers for its reader before dropping new ones.
        public var channelBufferSize = 4096
        /// Where the host reports what goes wrong in work nobody awaits (replies on the signaling
        /// channels, link set-up after connecting, stopping a scan): refusals at notice level, a
        /// broken transport (which also closes the host) at error level.
        public var logger = Logger(label: "harald.hci")
        /// Whether SMP PDUs (CID 0x0006) go to each connection's ``LEConnection/securityManager``
        /// channel for a Security Manager above the host to answer. False: the host answers every
        /// Pairing Request and Security Request itself with Pairing Failed (Pairing Not Supported).
        public var deliversSecurityManagerPDUs = false

        /// The defaults described on each property.
        public init() {}
    }

    let transport: any HCITransport
    /// Where the host's work runs: the transport's reading thread when it has one (a packet is
    /// then handled on the thread that read it), else a dispatch queue of the host's own.
    nonisolated let executor: any SerialExecutor
    let clock: any Clock<Duration>
    /// Every timer of the host (command, connection, encryption and signaling timeouts, address
    /// rotation), served by one sleeping task.
    package var deadlines: DeadlineSchedule<HostTimerAction>
    let configuration: Configuration
    let snoop: BTSnoopWriter?
    var logger: Logger { configuration.logger }

    // Life cycle
    var readerTask: Task<Void, Never>?
    var closedError: HCIError?
    /// Every task the host starts besides the reader (HostTasks.swift).
    let tasks = HostTasks()
    /// ``closeEvents()`` consumers, behind a lock so that one that stops listening unregisters at
    /// once from its termination handler.
    let closeWatchers = Locked(CloseWatchers())
    /// What set-up learned; nil before ``start()`` finishes.
    public internal(set) var controller: ControllerInfo?

    // Command flow control (HCIHost+Commands.swift)
    var commandFlow = HCICommandFlow()
    var commandWaiters: [UInt64: HostWaiter<HCICommandResponse>] = [:]
    var isSendingCommands = false
    var nextRequestID: UInt64 = 1

    // Scanning (LEScanner.swift decides, HCIHost+Scanning.swift acts)
    var scanner = LEScanner()

    // Connecting (LECentralConnector.swift decides, HCIHost+Connecting.swift acts)
    var connector = HostConnector()
    var connections: [UInt16: ConnectionState] = [:]

    // Our private address (HCIHost+PrivateAddress.swift)
    var addressRotation: HostTimer?
    var isChangingAddress = false

    // Advertising and connections as peripheral (LEAdvertiser.swift decides, HCIHost+Advertising.swift acts)
    var advertiser = LEAdvertiser()

    // Encryption (LEEncryptionRequests.swift decides, HCIHost+Encryption.swift acts)
    var encryption = HostEncryptionRequests()
    var longTermKeyProvider: LongTermKeyProvider?

    // L2CAP (the L2CAP folder): the channel manager and the ACL data flow to the controller are
    // plain values on this actor; HCIHost+ACL.swift carries out what they decide.
    var l2cap: L2CAPChannelManager
    var aclFlow = ACLFlowControl()
    /// PDUs handed over whole before their sender started waiting, and the senders waiting.
    var finishedPDUs: Set<UInt64> = []
    var pduWaiters: [UInt64: CheckedContinuation<Result<Void, HCIError>, Never>] = [:]
    var isSendingACL = false
    /// Our own signaling requests waiting for their answers (HCIHost+ParameterRequests.swift).
    var signalingWaiters: [L2CAPSignalingRequest: HostWaiter<Bool>] = [:]
    /// The callers of the links' credit-based channels (L2CAP/CreditBased/).
    var channelTable = CreditBasedChannelTable()

    /// A host over `transport`. Call ``start()`` before anything else.
    ///
    /// - Parameters:
    ///   - transport: carries HCI packets to the controller (TCP H4, a Linux user channel, in-process).
    ///   - clock: measures command and connection timeouts (inject a test clock in tests).
    ///   - configuration: the host's timeouts, scan and connection parameters and address.
    ///   - snoop: when given, every packet in both directions is written to it.
    public init(
        transport: any HCITransport, clock: any Clock<Duration> = ContinuousClock(), configuration: Configuration = Configuration(),
        snoop: BTSnoopWriter? = nil
    ) {
        self.transport = transport
        self.executor = transport.executor ?? QueueExecutor(label: "HaraldHCI host")
        self.clock = clock
        self.deadlines = DeadlineSchedule(anyClock: clock)
        self.configuration = configuration
        self.snoop = snoop
        l2cap = L2CAPChannelManager(
            maximumPDUSize: configuration.maximumReceivedPDUSize,
            deliversSecurityManagerPDUs: configuration.deliversSecurityManagerPDUs)
    }

    /// Where the host's work runs: its transport's reading thread (``HCITransport/executor``),
    /// or a dispatch queue of its own when the transport offers none.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The thread that reads the controller, as a task executor, when the transport has one
    /// (TCP and the Linux user channel do): run a notification loop with
    /// `withTaskExecutorPreference(host.taskExecutor)` and each value is taken on the thread that
    /// read it, with no other thread woken (a gateway's per-value work then costs no thread
    /// switch). Keep that loop's work short: while it runs, the thread reads nothing.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public nonisolated var taskExecutor: (any TaskExecutor)? { transport.taskExecutor }

    /// Starts reading from the transport and sets the controller up (see ``setUpController()``).
    @discardableResult
    public func start() async throws(HCIError) -> ControllerInfo {
        startReading()
        do {
            return try await setUpController()
        } catch {
            await close()
            throw error
        }
    }

    /// Starts the packet reader without set-up (for tests and tools that drive commands by hand).
    public func startReading() {
        guard readerTask == nil, closedError == nil else { return }
        let packets = transport.packets
        // The loop runs on this actor, so each packet resumes it straight on the actor instead of
        // on the global executor and then hopping in (and out) per packet. It keeps the host alive
        // until the transport's stream ends: after close(), shutDown or a transport failure.
        readerTask = Task { await self.read(packets) }
    }

    private func read(_ packets: HCIPacketInbox) async {
        do throws(HCITransportError) {
            while let packet = try await packets.next() { await receive(packet) }
            shutDown(.closed)
        } catch {
            shutDown(.transport(error))
        }
    }

    /// Closes the host: disconnects nothing politely, fails every pending operation with
    /// ``HCIError/closed``, ends every connection, closes the transport, and returns once every
    /// task the host started has finished. Idempotent.
    public func close() async {
        shutDown(.closed)
        await transport.close()
        await readerTask?.value
        await tasks.waitUntilIdle()
    }

    /// Why the host stopped, if it has.
    public var closeReason: HCIError? { closedError }

    /// Reports once when the host stops (its transport ended or failed, or ``close()``), then
    /// finishes; at once for a host that has already stopped. A consumer that stops iterating
    /// unregisters, so watchers never pile up.
    public func closeEvents() -> AsyncStream<HCIError> {
        let (stream, continuation) = AsyncStream.makeStream(of: HCIError.self, bufferingPolicy: .bufferingNewest(1))
        if let closedError {
            continuation.yield(closedError)
            continuation.finish()
            return stream
        }
        let watchers = closeWatchers
        let id = watchers.withLock { $0.add(continuation) }
        continuation.onTermination = { _ in watchers.withLock { $0.remove(id) } }
        return stream
    }

    /// How many ``closeEvents()`` consumers are registered (for tests).
    var closeWatcherCount: Int { closeWatchers.withLock { $0.count } }

    /// Stops the host for `error`: fails everything pending, ends every connection (reason
    /// Hardware Failure when the transport broke, Connection Terminated By Local Host otherwise),
    /// cancels every background task and closes the transport. Only the first call does anything.
    func shutDown(_ error: HCIError) {
        guard closedError == nil else { return }
        closedError = error
        readerTask?.cancel()
        let watchers = closeWatchers.withLock { $0.removeAll() }
        for watcher in watchers {
            watcher.yield(error)
            watcher.finish()
        }
        for id in commandFlow.removeAll() { finishCommand(id, .failure(error)) }
        finishScan()
        advertiser.finishWatchers()
        failConnecting(error)
        // Sends waiting for controller buffers fail with the host's error, before the links end
        // (which would fail them as disconnected).
        for (_, waiter) in pduWaiters { waiter.resume(returning: .failure(error)) }
        pduWaiters = [:]
        _ = aclFlow.removeAll()
        let reason: HCIStatus
        switch error {
        case .transport, .controllerHardwareError: reason = .hardwareFailure
        default: reason = .connectionTerminatedByLocalHost
        }
        for handle in Array(connections.keys) {
            connectionEnded(handle: handle, reason: reason)
        }
        for spsm in Array(channelTable.servers.keys) { stopServing(spsm: spsm) }
        let transport = transport
        tasks.close(then: { await transport.close() })
    }

    /// Continuations the host holds for its callers now: commands, a connection attempt, L2CAP
    /// sends waiting for buffers, our signaling requests waiting for answers, close watchers. Zero once the host is closed (diagnostics, for
    /// tests and the soak run).
    package var liveContinuations: Int {
        commandWaiters.count + (connector.isBusy ? 1 : 0) + pduWaiters.count + signalingWaiters.count
            + closeWatcherCount + channelTable.waiting
    }

    /// Background tasks running now (diagnostics, for tests and the soak run).
    package var liveTaskCount: Int { tasks.count }

    func ensureOpen() throws(HCIError) {
        if let closedError { throw closedError }
    }

    func newRequestID() -> UInt64 {
        defer { nextRequestID &+= 1 }
        return nextRequestID
    }

    /// Sends a packet, recording it in the snoop file.
    func transmit(_ packet: HCIPacket) async throws(HCIError) {
        snoop?.record(packet, direction: .hostToController)
        do {
            try await transport.send(packet)
        } catch {
            throw .transport(error)
        }
    }

    /// Handles one packet from the controller.
    func receive(_ packet: HCIPacket) async {
        snoop?.record(packet, direction: .controllerToHost)
        // A closed host takes nothing more in: a packet still buffered in the transport when
        // close() began would otherwise open a connection nobody can end.
        guard closedError == nil else { return }
        switch packet.type {
        case .event:
            let event: HCIEvent
            do {
                event = try HCIEvent(decoding: packet.payload)
            } catch {
                malformedPackets += 1
                logger.debug("dropped a malformed HCI event", metadata: ["error": "\(error)"])
                return
            }
            await handle(event)
        case .acl:
            let acl: ACLDataPacket
            do {
                acl = try ACLDataPacket(decoding: packet.payload)
            } catch {
                malformedPackets += 1
                logger.debug("dropped a malformed ACL packet", metadata: ["error": "\(error)"])
                return
            }
            handleACL(acl)
            // What the channels queued in answer (credits, K-frames, replies) goes out now.
            if aclFlow.queuedPDUCount > 0 { await sendQueuedACL() }
        default:
            break
        }
    }

    /// Packets from the controller that could not be decoded and were dropped (diagnostics).
    public private(set) var malformedPackets = 0
    /// ACL packets from the controller for a handle with no connection, dropped (diagnostics).
    public internal(set) var unroutedACLPackets = 0
    /// Data Buffer Overflow events from the controller (diagnostics; see HCIHost+ControllerFaults).
    public internal(set) var dataBufferOverflows = 0
    /// Signaling and Security Manager requests left unanswered because the connection already
    /// had the most replies allowed waiting for controller buffers (diagnostics; a peer flooding
    /// requests while the controller is out of buffers).
    public internal(set) var droppedReplies = 0

    func handle(_ event: HCIEvent) async {
        switch event {
        case let .commandComplete(complete):
            commandAnswered(opcode: complete.opcode, credits: complete.numberOfAllowedCommands, response: .complete(complete))
            await sendQueuedCommands()
        case let .commandStatus(status):
            commandAnswered(opcode: status.opcode, credits: status.numberOfAllowedCommands, response: .status(status))
            await sendQueuedCommands()
        case let .disconnectionComplete(disconnection):
            if disconnection.status.isSuccess {
                connectionEnded(handle: disconnection.handle, reason: disconnection.reason)
                await sendQueuedACL()
            }
        case let .numberOfCompletedPackets(entries):
            aclFlow.packetsCompleted(entries)
            await sendQueuedACL()
        case let .le(meta):
            handleLE(meta)
        case let .encryptionChange(change):
            encryptionChanged(change)
        case let .encryptionKeyRefreshComplete(refresh):
            encryptionRefreshed(refresh)
        case let .other(code, parameters):
            controllerReported(code: code, parameters: parameters)
        }
    }

    func handleLE(_ event: LEMetaEvent) {
        switch event {
        case let .advertisingReport(reports):
            for report in reports { scanner.received(report) }
        case let .extendedAdvertisingReport(reports):
            for report in reports { scanner.received(report) }
        case let .connectionComplete(complete):
            connectionCompleted(complete)
        case let .connectionUpdateComplete(update):
            if update.status.isSuccess, let state = connections[update.handle] {
                state.connection.info.withLock {
                    $0.interval = update.interval
                    $0.latency = update.latency
                    $0.supervisionTimeout = update.supervisionTimeout
                }
            }
        case let .dataLengthChange(change):
            connections[change.handle]?.connection.info.withLock {
                $0.maxTxOctets = change.maxTxOctets
                $0.maxRxOctets = change.maxRxOctets
            }
        case let .phyUpdateComplete(update):
            if update.status.isSuccess {
                connections[update.handle]?.connection.info.withLock {
                    $0.txPHY = update.txPHY
                    $0.rxPHY = update.rxPHY
                }
            }
        case let .readRemoteFeaturesComplete(features):
            if features.status.isSuccess {
                connections[features.handle]?.connection.info.withLock { $0.remoteFeatures = features.features }
            }
        case let .longTermKeyRequest(request):
            startBackground { host in await host.answerLongTermKeyRequest(request) }
        case .other:
            break
        }
    }
}
