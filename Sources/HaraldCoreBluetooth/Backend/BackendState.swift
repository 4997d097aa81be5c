import Foundation
import Harald
import HaraldCodec
import HaraldCore

// The state the backend keeps behind its lock. Every type here is used only inside
// `CoreBluetoothBackend.state.withLock`, which is what makes holding CoreBluetooth's non-Sendable
// objects in them safe.

extension CoreBluetoothBackend {
    /// The central's peripheral type (`CBPeripheral` on Apple platforms).
    public typealias Peripheral = Central.Peripheral
    /// The peripheral's service type (`CBService`).
    public typealias Service = Central.Peripheral.Service
    /// The service's characteristic type (`CBCharacteristic`).
    public typealias Characteristic = Central.Peripheral.Service.Characteristic
    /// The characteristic's descriptor type (`CBDescriptor`).
    public typealias Descriptor = Central.Peripheral.Service.Characteristic.Descriptor

    /// What an operation's continuation is resumed with.
    enum Reply: Sendable {
        case none
        case value([UInt8])
        case services([DiscoveredService])
        case characteristics([DiscoveredCharacteristic])
        case descriptors([DiscoveredDescriptor])
        case connection(generation: UInt64)
        case identifiers([UUID])
        case rssi(Int)
        case channel(any L2CAPChannelBackend)
    }

    /// Which CoreBluetooth request a pending operation waits on; each key has its own FIFO because
    /// CoreBluetooth answers requests of one kind on one attribute in the order they were made.
    enum RequestKey: Hashable {
        case services
        case characteristics(service: AttributeID)
        case descriptors(characteristic: AttributeID)
        case read(characteristic: AttributeID)
        case write(characteristic: AttributeID)
        case notificationState(characteristic: AttributeID)
        case readDescriptor(AttributeID)
        case writeDescriptor(AttributeID)
        case rssi
    }

    /// What to undo when an operation ends without its answer (timeout, cancellation).
    enum Cleanup {
        /// A request sent to CoreBluetooth: its FIFO entry stays as a tombstone that absorbs the
        /// late answer; a request not yet sent (still in the outbox) is simply removed.
        case request(UUID, RequestKey)
        /// A connection attempt: the last waiter to give up cancels it.
        case connect(UUID)
        /// A write without response still waiting for readiness: removed from the queue.
        case queuedWrite(UUID)
        /// An L2CAP channel open: the next open of the peripheral may go (see `channelOpenEnded`).
        case channelOpen(UUID)
        /// Nothing beyond the operation itself (a query waiting for power-on).
        case nothing
    }

    /// The timeout of a pending operation, as kept on the backend's one timer schedule.
    struct PendingTimeout: Sendable {
        let id: UInt64
        let operation: String
        let timeout: Duration
    }

    /// An operation waiting for CoreBluetooth.
    struct Pending {
        let continuation: CheckedContinuation<Reply, any Error>
        /// Its timeout on `State.deadlines`; nil for an operation that waits until cancelled.
        let deadline: DeadlineSchedule<PendingTimeout>.ID?
        let cleanup: Cleanup
        /// UUIDs a discovery asked for (nil: all).
        let filter: [BluetoothUUID]?
        /// True once the request's turn in the outbox has come and it is handed to CoreBluetooth.
        var issued = false
    }

    enum LinkPhase { case idle, connecting, connected }

    struct QueuedWrite {
        let id: UInt64
        let data: Data
        let characteristic: AttributeID
    }

    /// Everything about one peripheral identifier: the single record ("wrapper") per device that
    /// every connection to it goes through.
    struct Link {
        var peripheral: Peripheral
        var phase: LinkPhase = .idle
        /// The current (or last) connection's number, from the backend's one counter: a
        /// connection handle is valid only for its generation, and no number is used twice, even
        /// after the record is pruned and made again.
        var generation: UInt64 = 0
        /// Why recent generations ended (the last few only).
        var endReasons: [UInt64: DisconnectReason] = [:]
        var connectWaiters: [UInt64] = []
        /// This app's `connect` call for the attempt in progress has been made (so giving the
        /// attempt up takes a `cancelPeripheralConnection`).
        var connectIssued = false
        /// The options of the attempt in progress: those of the `connect(to:)` that started it.
        var attemptOptions = ConnectionOptions.default
        /// The system is connecting this peripheral for the app on its own: a pending connection
        /// handed back by state restoration, or a reconnection after a link loss of a connection
        /// made with `ConnectionOptions/enableAutoReconnect`. The app giving up waiting does
        /// not cancel it.
        var systemConnecting = false
        /// The last connection was made with `ConnectionOptions/enableAutoReconnect` and the
        /// app has not disconnected it.
        var autoReconnect = false
        /// The system said it is reconnecting connection `from` by itself
        /// (`didDisconnectPeripheral:timestamp:isReconnecting:error:`); `to` is the generation
        /// it brought up, once up. Cleared when that reconnection stops.
        var systemReconnection: (from: UInt64, to: UInt64?)?
        /// Waiting for the system's reconnection (``CoreBluetoothConnection/systemReconnection()``):
        /// resumed with the new generation, or nil when the reconnection stops.
        var reconnectionWaiters: [UInt64: CheckedContinuation<UInt64?, Never>] = [:]
        var requests: [RequestKey: [UInt64]] = [:]
        /// What was discovered on the current connection, by identity (emptied when it ends).
        var attributes = AttributeTable()
        var subscribers: [AttributeID: [UInt64: ValueUpdates.Continuation]] = [:]
        /// Values notified on a restored connection for characteristics no stream has taken yet.
        var heldValues: [AttributeID: HeldValues] = [:]
        var serviceChangeObservers: [UInt64: AsyncStream<ServiceChange>.Continuation] = [:]
        var nameObservers: [UInt64: AsyncStream<String>.Continuation] = [:]
        var writeQueue: [QueuedWrite] = []
        var pumping = false
        var pumpRequested = false
        var disconnectWaiters: [UInt64: CheckedContinuation<DisconnectReason, Never>] = [:]
        /// L2CAP channel opens, oldest first; only the first is ever handed to CoreBluetooth
        /// (`didOpen` names no PSM), the next once it is answered or given up.
        var channelOpens: [ChannelOpen] = []
        /// PSMs of opens given up (timeout, cancellation) after CoreBluetooth got them, oldest
        /// first: a channel that opens late on one of them is closed.
        var abandonedOpens: [UInt16] = []
        /// The channels open on the current connection, closed when it ends.
        var channels: [ObjectIdentifier: StreamChannel] = [:]
        /// When the record was last used (a tick of the backend's counter); pruning drops the
        /// least recently used records first.
        var lastUsed: UInt64 = 0

        init(peripheral: Peripheral) { self.peripheral = peripheral }

        func endReason(of generation: UInt64) -> DisconnectReason {
            endReasons[generation] ?? .localRequest
        }

        /// True when nothing refers to the record: not connected or connecting, no operation,
        /// stream or waiter on it. Such a record may be dropped and made again later.
        var isUnused: Bool {
            phase == .idle && !systemConnecting && connectWaiters.isEmpty && requests.isEmpty && writeQueue.isEmpty && !pumping
                && subscribers.isEmpty && disconnectWaiters.isEmpty && serviceChangeObservers.isEmpty && nameObservers.isEmpty
                && reconnectionWaiters.isEmpty && channelOpens.isEmpty && channels.isEmpty
        }
    }

    /// Values held for one characteristic of a restored connection until the app opens a stream
    /// for it: the newest ``limit``, the rest counted as dropped.
    struct HeldValues {
        static var limit: Int { 64 }
        var values: [[UInt8]] = []
        var dropped = 0

        mutating func append(_ value: [UInt8]) {
            if values.count == Self.limit {
                values.removeFirst()
                dropped += 1
            }
            values.append(value)
        }
    }

    /// One consumer of `scan(_:)`.
    struct Scanner {
        let request: ScanRequest
        let continuation: ScanReports.Continuation
        let startedAt: Duration
        /// Devices already reported (``ScanRequest/DuplicatePolicy/reportOnce``) or their last
        /// data (``ScanRequest/DuplicatePolicy/reportChanges``), bounded.
        var memory = ScanMemory()
        var waitingForPower: Bool
    }

    /// The scan CoreBluetooth was last asked for.
    struct ScanSettings: Equatable {
        var services: [BluetoothUUID]?
        var allowDuplicates: Bool
    }

    struct State {
        /// The central, once made (on first use, on the queue).
        var central: Central?
        /// Makes the central; taken (set to nil) when it is called.
        var makeCentral: ((CoreBluetoothBackend) -> Central)?
        var radio: RadioState = .unknown
        /// Every pending operation's timeout, served by one sleeping task (set to the backend's
        /// clock when it is made).
        var deadlines = DeadlineSchedule<PendingTimeout>(clock: ContinuousClock())
        /// The one counter behind operation ids, connection generations, attribute identities
        /// and record ages: no number is ever given out twice.
        var nextID: UInt64 = 0
        var radioObservers: [UInt64: AsyncStream<RadioState>.Continuation] = [:]
        var authorizationObservers: [UInt64: AsyncStream<CoreBluetoothAuthorization>.Continuation] = [:]
        /// The authorization last reported to observers.
        var authorization: CoreBluetoothAuthorization?
        var scanners: [UInt64: Scanner] = [:]
        var activeScan: ScanSettings?
        var links: [UUID: Link] = [:]
        /// Above this many records, unused ones are pruned (see `pruneRecords`).
        var pruneThreshold = CoreBluetoothBackend.recordLimit + CoreBluetoothBackend.pruneBatch
        var pending: [UInt64: Pending] = [:]
        /// Calls of operations that wait for the radio to be on (looking a peripheral up,
        /// querying connected peripherals), by operation: queued again at power-on.
        var awaitingPower: [UInt64: OutgoingCall] = [:]
        var restored: CoreBluetoothRestoredState?
        /// What state restoration handed back, for ``CoreBluetoothBackend/restorations()``: the
        /// restored connections as values, so the backend never holds a handle on itself.
        var restoration: RestorationRecord?
        /// The first state update arrived: restoration, which comes before it, is settled.
        var restorationSettled = false
        var restorationObservers: [UInt64: AsyncStream<BackendRestoration>.Continuation] = [:]
        /// Values dropped from the buffers of restored connections (``HeldValues``).
        var droppedHeldValues = 0
        /// Objects the platform glue needs kept alive as long as the backend (the delegate proxy).
        var retainedObjects: [AnyObject] = []
        /// Calls to CoreBluetooth waiting to be made on its queue, oldest first (see `sendOutbox`).
        var outbox: [OutgoingCall] = []
        /// True while the queue is making the outbox's calls.
        var sending = false
        /// Waiters of system reconnections that came up (with their generation) or stopped
        /// (nil), to resume once the lock is released (``answerReconnectionWaiters()``).
        var reconnectionAnswers: [(waiter: CheckedContinuation<UInt64?, Never>, generation: UInt64?)] = []
        /// Gets the channels CoreBluetooth opened that no open of the backend asked for (the
        /// app's own, through the `CBPeripheral`); nil: they are closed.
        var unclaimedChannel: ((Peripheral, Peripheral.L2CAPChannel?, (any Error)?) -> Void)?

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    /// What ending a connection leaves to do once the lock is released.
    struct Fallout {
        var failed: [Pending] = []
        var streams: [ValueUpdates.Continuation] = []
        var waiters: [CheckedContinuation<DisconnectReason, Never>] = []
        var serviceChangeStreams: [AsyncStream<ServiceChange>.Continuation] = []
        var nameStreams: [AsyncStream<String>.Continuation] = []
        /// L2CAP channels of the connection, closed as the link is lost.
        var channels: [StreamChannel] = []
        var reason: DisconnectReason = .localRequest
        /// True when a connection that was up ended.
        var ended = false

        mutating func merge(_ other: Fallout) {
            failed += other.failed
            streams += other.streams
            waiters += other.waiters
            serviceChangeStreams += other.serviceChangeStreams
            nameStreams += other.nameStreams
            channels += other.channels
            ended = ended || other.ended
        }

        /// Resumes everything (`endConnection` cancelled the timeouts of `failed`).
        func settle() {
            for pending in failed {
                pending.continuation.resume(throwing: BluetoothError.disconnected(reason))
            }
            for stream in streams { stream.finish(throwing: .disconnected(reason)) }
            for stream in serviceChangeStreams { stream.finish() }
            for stream in nameStreams { stream.finish() }
            for waiter in waiters { waiter.resume(returning: reason) }
            for channel in channels { channel.linkLost() }
        }
    }
}

/// What CoreBluetooth handed back when the system relaunched the app for a central created with
/// a restore identifier (`centralManager(_:willRestoreState:)`).
public struct CoreBluetoothRestoredState: Hashable, Sendable {
    /// A peripheral the system kept connected or connecting for the app.
    public struct RestoredPeripheral: Hashable, Sendable {
        /// The system's identifier of the peripheral (its `CBPeripheral.identifier`, a UUID per host).
        public var identifier: PeripheralIdentifier
        /// The peripheral's GAP name as the system last saw it, if any.
        public var name: String?
        /// True when the link is up: ``CoreBluetoothBackend/connect(to:options:timeout:)`` returns
        /// its connection at once. Otherwise the system is still connecting and `connect` waits
        /// for it.
        public var isConnected: Bool

        /// A restored peripheral as the system described it.
        public init(identifier: PeripheralIdentifier, name: String?, isConnected: Bool) {
            self.identifier = identifier
            self.name = name
            self.isConnected = isConnected
        }
    }

    /// The peripherals the system kept connected, or was still connecting, for the app.
    public var peripherals: [RestoredPeripheral]
    /// The services the app was scanning for (empty when no scan was restored; start the scan
    /// again to keep receiving them).
    public var scanServices: [BluetoothUUID]

    /// The state as `centralManager(_:willRestoreState:)` described it.
    public init(peripherals: [RestoredPeripheral], scanServices: [BluetoothUUID]) {
        self.peripherals = peripherals
        self.scanServices = scanServices
    }
}
