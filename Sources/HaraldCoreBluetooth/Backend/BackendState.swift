import Foundation
import Harald
import HaraldCodec
import HaraldCore

// The state the backend keeps behind its lock. Every type here is used only inside
// `CoreBluetoothBackend.state.withLock`, which is what makes holding CoreBluetooth's non-Sendable
// objects in them safe.

extension CoreBluetoothBackend {
    public typealias Peripheral = Central.Peripheral
    public typealias Service = Central.Peripheral.Service
    public typealias Characteristic = Central.Peripheral.Service.Characteristic
    public typealias Descriptor = Central.Peripheral.Service.Characteristic.Descriptor

    /// What an operation's continuation is resumed with.
    enum Reply: Sendable {
        case none
        case value([UInt8])
        case services([DiscoveredService])
        case characteristics([DiscoveredCharacteristic])
        case descriptors([DiscoveredDescriptor])
        case connection(generation: UInt64)
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
    }

    /// An operation waiting for CoreBluetooth.
    struct Pending {
        let continuation: CheckedContinuation<Reply, any Error>
        let timer: Task<Void, Never>?
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
        /// Counts connections; a connection handle is valid only for its generation.
        var generation: UInt64 = 0
        /// Why recent generations ended (the last few only).
        var endReasons: [UInt64: DisconnectReason] = [:]
        var connectWaiters: [UInt64] = []
        var requests: [RequestKey: [UInt64]] = [:]
        /// What was discovered on the current connection, by identity (emptied when it ends).
        var attributes = AttributeTable()
        var subscribers: [AttributeID: [UInt64: ValueUpdates.Continuation]] = [:]
        var writeQueue: [QueuedWrite] = []
        var pumping = false
        var pumpRequested = false
        var disconnectWaiters: [UInt64: CheckedContinuation<DisconnectReason, Never>] = [:]

        init(peripheral: Peripheral) { self.peripheral = peripheral }

        func endReason(of generation: UInt64) -> DisconnectReason {
            endReasons[generation] ?? .localRequest
        }
    }

    /// One consumer of `scan(_:)`.
    struct Scanner {
        let request: ScanRequest
        let continuation: ScanReports.Continuation
        let startedAt: Duration
        var seen: Set<UUID> = []
        var lastData: [UUID: AdvertisingData] = [:]
        var waitingForPower: Bool
    }

    /// The scan CoreBluetooth was last asked for.
    struct ScanSettings: Equatable {
        var services: [BluetoothUUID]?
        var allowDuplicates: Bool
    }

    struct State {
        var central: Central?
        var radio: RadioState = .unknown
        var nextID: UInt64 = 0
        var radioObservers: [UInt64: AsyncStream<RadioState>.Continuation] = [:]
        var scanners: [UInt64: Scanner] = [:]
        var activeScan: ScanSettings?
        var links: [UUID: Link] = [:]
        var pending: [UInt64: Pending] = [:]
        var restored: CoreBluetoothRestoredState?
        /// Objects the platform glue needs kept alive as long as the backend (the delegate proxy).
        var retainedObjects: [AnyObject] = []
        /// Calls to CoreBluetooth waiting to be made, oldest first (see `sendOutbox`).
        var outbox: [OutgoingCall] = []
        /// True while a thread is making the outbox's calls.
        var sending = false

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
        var reason: DisconnectReason = .localRequest

        mutating func merge(_ other: Fallout) {
            failed += other.failed
            streams += other.streams
            waiters += other.waiters
        }

        func settle() {
            for pending in failed {
                pending.timer?.cancel()
                pending.continuation.resume(throwing: BluetoothError.disconnected(reason))
            }
            for stream in streams { stream.finish(throwing: .disconnected(reason)) }
            for waiter in waiters { waiter.resume(returning: reason) }
        }
    }
}

/// What CoreBluetooth handed back when the system relaunched the app for a central created with
/// a restore identifier (`centralManager(_:willRestoreState:)`).
public struct CoreBluetoothRestoredState: Hashable, Sendable {
    /// A peripheral the system kept connected or connecting for the app.
    public struct RestoredPeripheral: Hashable, Sendable {
        public var identifier: PeripheralIdentifier
        public var name: String?
        /// True when the link is up: ``CoreBluetoothBackend/connect(to:timeout:)`` returns its
        /// connection at once. Otherwise the system is still connecting and `connect` waits for it.
        public var isConnected: Bool

        public init(identifier: PeripheralIdentifier, name: String?, isConnected: Bool) {
            self.identifier = identifier
            self.name = name
            self.isConnected = isConnected
        }
    }

    public var peripherals: [RestoredPeripheral]
    /// The services the app was scanning for (start the scan again to keep receiving them).
    public var scanServices: [BluetoothUUID]

    public init(peripherals: [RestoredPeripheral], scanServices: [BluetoothUUID]) {
        self.peripherals = peripherals
        self.scanServices = scanServices
    }
}
