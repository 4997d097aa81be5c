import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// Harald's central backend on CoreBluetooth.
///
/// The logic runs against the shaped protocols (``CoreBluetoothCentral`` and friends), so the
/// same code drives Apple's `CBCentralManager` and a fake on Linux. Delegate calls arrive through
/// ``CoreBluetoothCentralDelegate`` / ``CoreBluetoothPeripheralDelegate`` and are applied in the
/// order CoreBluetooth makes them. How the backend is built — every call on CoreBluetooth's queue,
/// one lock around all its state, no task per callback, requests sent in the order they were
/// registered — is told in the Harald documentation's article "Concurrency model".
///
/// What it takes care of:
/// - **Making the central** on first use (``radioStates()``, ``scan(_:)``,
///   ``connect(to:options:timeout:)``, ``restorations()``, ``retrieveConnectedPeripherals(withServices:timeout:)``),
///   not in `init`: making it asks the user for permission.
/// - **Power.** CoreBluetooth ignores commands given before it is powered on (it logs them as API
///   misuse); the backend never gives one. Connects and look-ups started before power-on wait for
///   it; on an unsupported or unauthorized radio they fail at once with
///   `BluetoothError/radioUnavailable(_:)`.
/// - **Read responses vs. notifications.** CoreBluetooth reports both through
///   `peripheral(_:didUpdateValueFor:error:)`. The backend keeps, per characteristic, a FIFO of
///   the reads it asked for: a value arriving while a read is outstanding answers the oldest read;
///   a value arriving with none outstanding is a notification/indication and goes to
///   ``CoreBluetoothConnection/valueUpdates(for:buffering:)``. The edge: a notification that the
///   peripheral sends while a read of the same characteristic is outstanding looks exactly like
///   the read's answer (CoreBluetooth gives no marker). It is taken as the read's answer (it is
///   the characteristic's current value, which is what a read returns), and the real answer that
///   follows is then delivered to subscribers as a notification. Subscribers therefore miss no
///   update of the value but may see that update's bytes replaced by the read answer's; avoid
///   reading a characteristic while it streams notifications if every packet matters.
///   A read that timed out or was cancelled after it was sent leaves a tombstone in the FIFO that
///   swallows its late answer, so the answer is not mistaken for a notification or for the next
///   read's answer.
/// - **Write without response flow control.** Writes wait in a FIFO until
///   `canSendWriteWithoutResponse` is true, and are sent as `peripheralIsReady(toSendWriteWithoutResponse:)`
///   reports room again; none is dropped. The write returns once CoreBluetooth has taken it. A
///   value longer than `maximumWriteValueLength(for: .withoutResponse)` fails with
///   `BluetoothError/misuse(_:)` instead of being cut short by CoreBluetooth.
/// - **One record per peripheral identifier**: every scan result, connection and delegate call for
///   the same UUID goes through the same record. Records nothing refers to are pruned beyond
///   ``recordLimit`` (least recently used first), so a scan in a crowded place does not grow
///   memory without bound; connecting to a pruned one finds it again through
///   `retrievePeripherals(withIdentifiers:)`.
/// - **Timeouts and cancellation** for every operation, on the injected clock. A connect with no
///   timeout stays pending until it succeeds or its task is cancelled; see
///   ``connect(to:options:timeout:)`` for when an attempt is cancelled in CoreBluetooth.
/// - **Disconnection** fails every pending operation of that connection at once with
///   `BluetoothError/disconnected(_:)` and finishes its streams.
/// - **State restoration**: see ``restorations()``.
/// - **L2CAP channels** (``CoreBluetoothConnection/openL2CAPChannel(psm:options:timeout:)``):
///   CoreBluetooth's open answer names no PSM, so one open per peripheral is handed to it at a
///   time; every open has a deadline (CoreBluetooth may never answer), and a channel that opens
///   after its open was given up is closed. A channel's streams live on a thread of their own, are
///   read only while the reader has room, and close with the link.
/// - **Service Changed** (`didModifyServices`): invalidated services are forgotten, value streams
///   on their characteristics end with `BluetoothError/serviceChanged(_:)`, and
///   ``CoreBluetoothConnection/serviceChanges()`` reports the change; discover again.
/// - **Radio state**: leaving powered-on ends every connection (`.connectionLost`) and, unless the
///   state is unknown or resetting, fails running scans. Connection attempts then wait for the
///   radio to come back (or fail, when it becomes unsupported or unauthorized).
///
/// CoreBluetooth hides ATT handles: services, characteristics and descriptors are known by
/// identities the backend numbers as it discovers them (`AttributeID/init(serial:)`), without
/// limit and never reused; see `AttributeTable`. Their `handles`, `valueHandle`, `endHandle` and
/// `handle` are nil, and `BluetoothError/attribute(_:on:)` names the attribute the failed
/// operation addressed.
public final class CoreBluetoothBackend<Central: CoreBluetoothCentral>: CentralBackend, Sendable {
    let clock: any Clock<Duration>
    let stopwatch: Stopwatch
    /// CoreBluetooth's queue: the central's delegate queue, where every call into it is made.
    let queue: DispatchQueue
    /// Marks `queue`, so the backend can tell when it already runs there.
    let queueKey = DispatchSpecificKey<Bool>()
    /// Everything that changes, behind the one lock.
    let state = Locked(State())

    /// How many records of peripherals nothing refers to are kept (the least recently used
    /// beyond it are pruned).
    public static var recordLimit: Int { 512 }
    /// How far past ``recordLimit`` the records may grow before a pruning pass.
    static var pruneBatch: Int { 128 }

    /// A backend over the central `makeCentral` creates on first use, on `queue`. `makeCentral`
    /// receives the backend to use as the central's delegate (and its peripherals' delegate), and
    /// must create the central with `queue` as its delegate queue.
    public init(queue: DispatchQueue, clock: any Clock<Duration> = ContinuousClock(), makeCentral: @escaping (CoreBluetoothBackend) -> Central) {
        self.clock = clock
        self.stopwatch = Stopwatch(clock)
        self.queue = queue
        queue.setSpecific(key: queueKey, value: true)
        state.withLock {
            $0.makeCentral = makeCentral
            $0.deadlines = DeadlineSchedule(anyClock: clock)
        }
    }

    // A released backend leaves no timeout sleeper behind on its clock.
    deinit { state.withLock { $0.deadlines.cancelSleeper() } }

    var keys: CoreBluetoothKeys { Central.keys }

    // MARK: Diagnostics

    /// Tasks waiting for the system to reconnect a lost connection (`systemReconnection()`).
    package var pendingReconnectionWaiters: Int {
        state.withLock { state in state.links.values.reduce(0) { $0 + $1.reconnectionWaiters.count } }
    }

    /// Operations waiting for CoreBluetooth (connects, GATT requests, queued writes, queries)
    /// plus `disconnection()` waiters: 0 when nothing is in flight, so tests can prove no
    /// continuation leaked.
    package var pendingOperationCount: Int {
        state.withLock { state in state.pending.count + state.links.values.reduce(0) { $0 + $1.disconnectWaiters.count } }
    }

    /// Live `valueUpdates`, `serviceChanges`, `nameUpdates`, `scan`, `radioStates`,
    /// `authorizationUpdates` and `restorations` streams.
    package var liveStreamCount: Int {
        state.withLock { state in
            state.radioObservers.count + state.authorizationObservers.count + state.restorationObservers.count + state.scanners.count
                + state.links.values.reduce(0) {
                    $0 + $1.subscribers.values.reduce(0) { $0 + $1.count } + $1.serviceChangeObservers.count + $1.nameObservers.count
                }
        }
    }

    /// Peripheral records kept (see ``recordLimit``).
    public var recordCount: Int { state.withLock { $0.links.count } }

    /// Values of restored connections dropped because more than 64 arrived for one
    /// characteristic before the app opened a stream for it (see ``restorations()``).
    public var droppedRestoredValueCount: Int { state.withLock { $0.droppedHeldValues } }

    /// What the system restored when it relaunched the app, if it did.
    public var restoredState: CoreBluetoothRestoredState? { state.withLock { $0.restored } }

    // MARK: Radio state

    /// The radio state now, then every change. The first call makes the central.
    public func radioStates() -> AsyncStream<RadioState> {
        let (stream, continuation) = AsyncStream.makeStream(of: RadioState.self)
        let id: UInt64 = state.withLock { state in
            let id = state.makeID()
            continuation.yield(state.radio)
            state.radioObservers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.radioObservers.removeValue(forKey: id) }
        }
        sendOutbox()
        return stream
    }

    static func radioState(_ rawValue: Int) -> RadioState {
        switch rawValue {
        case 1: .resetting
        case 2: .unsupported
        case 3: .unauthorized
        case 4: .poweredOff
        case 5: .poweredOn
        default: .unknown
        }
    }

    /// True for the radio states in which nothing can be done until the user or the device
    /// changes (operations fail at once instead of waiting for power-on).
    static func refuses(_ radio: RadioState) -> Bool {
        radio == .unsupported || radio == .unauthorized
    }
}
