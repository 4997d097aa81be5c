import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// Harald's central backend on CoreBluetooth.
///
/// The logic runs against the shaped protocols (``CoreBluetoothCentral`` and friends), so the
/// same code drives Apple's `CBCentralManager` and a fake on Linux. CoreBluetooth's delegate calls
/// arrive through ``CoreBluetoothCentralDelegate`` / ``CoreBluetoothPeripheralDelegate`` and are
/// applied to one lock-protected state machine in the order they arrive, synchronously: no task is
/// spawned per callback, so a notification can never overtake the read response or disconnection
/// that CoreBluetooth reported before it.
///
/// What it takes care of:
/// - **Read responses vs. notifications.** CoreBluetooth reports both through
///   `peripheral(_:didUpdateValueFor:error:)`. The backend keeps, per characteristic, a FIFO of
///   the reads it asked for: a value arriving while a read is outstanding answers the oldest read;
///   a value arriving with none outstanding is a notification/indication and goes to
///   ``CoreBluetoothConnection/valueUpdates(for:)``. The edge: a notification that the peripheral
///   sends while a read of the same characteristic is outstanding looks exactly like the read's
///   answer (CoreBluetooth gives no marker). It is taken as the read's answer (it is the
///   characteristic's current value, which is what a read returns), and the real answer that
///   follows is then delivered to subscribers as a notification. Subscribers therefore miss no
///   update of the value but may see that update's bytes replaced by the read answer's; avoid
///   reading a characteristic while it streams notifications if every packet matters.
///   A read that timed out or was cancelled after it was sent leaves a tombstone in the FIFO that
///   swallows its late answer, so the answer is not mistaken for a notification or for the next
///   read's answer.
/// - **Write without response flow control.** Writes wait in a FIFO until
///   `canSendWriteWithoutResponse` is true, and are sent as `peripheralIsReady(toSendWriteWithoutResponse:)`
///   reports room again; none is dropped. The write returns once CoreBluetooth has taken it.
/// - **One record per peripheral identifier**: every scan result, connection and delegate call for
///   the same UUID goes through the same record.
/// - **Timeouts and cancellation** for every operation, on the injected clock; cancelling or
///   timing out a connection attempt cancels it in CoreBluetooth.
/// - **Disconnection** fails every pending operation of that connection at once with
///   ``BluetoothError/disconnected(_:)`` and finishes its notification streams.
/// - **State restoration**: peripherals handed back in `willRestoreState` are registered and
///   reported by ``restoredState``; `connect(to:)` returns a restored connected peripheral's
///   connection without reconnecting, and waits for one the system is still connecting.
/// - **Service Changed** (`didModifyServices`): invalidated services are forgotten and their
///   notification streams finish; discover again.
/// - **Radio state**: leaving powered-on ends every connection (`.connectionLost`), fails
///   connection attempts and, unless the state is unknown or resetting, running scans.
///
/// CoreBluetooth hides ATT handles: services, characteristics and descriptors are known by
/// identities the backend numbers as it discovers them (``AttributeID/init(serial:)``), without
/// limit and never reused for a peripheral; see `AttributeTable`. Their `handles`, `valueHandle`,
/// `endHandle` and `handle` are nil, and ``BluetoothError/attribute(_:on:)`` names the attribute
/// the failed operation addressed.
///
/// Thread safety: all mutable state is in `state`, a `Locked` read and written only inside its
/// `withLock`, and the rest is immutable, so the compiler checks `Sendable`; the CoreBluetooth
/// objects in `state` never leave the lock except to be called. Continuations are resumed and CoreBluetooth
/// is called outside that lock, so a CoreBluetooth (or fake) that calls a delegate method
/// synchronously from inside a request cannot deadlock. Calls that make CoreBluetooth act are
/// queued in an outbox in the same critical section as their registration and made in that
/// order by one thread at a time (`sendOutbox`), so the order of the FIFOs is the order
/// CoreBluetooth receives the requests in, without holding a lock while calling it.
public final class CoreBluetoothBackend<Central: CoreBluetoothCentral>: CentralBackend, Sendable {
    let clock: any Clock<Duration>
    let elapsed: @Sendable () -> Duration
    /// Everything that changes, behind the one lock.
    let state = Locked(State())

    /// A backend over the central `makeCentral` creates. `makeCentral` receives the backend to
    /// use as the central's delegate (and its peripherals' delegate); delegate calls may start
    /// before it returns.
    public init(clock: any Clock<Duration> = ContinuousClock(), makeCentral: (CoreBluetoothBackend) -> Central) {
        self.clock = clock
        self.elapsed = Self.stopwatch(clock)
        let central = makeCentral(self)
        state.withLock { $0.central = central }
    }

    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    var keys: CoreBluetoothKeys { Central.keys }

    // MARK: Diagnostics

    /// Operations waiting for CoreBluetooth (connects, GATT requests, queued writes) plus
    /// `disconnection()` waiters: 0 when nothing is in flight, so tests can prove no continuation
    /// leaked.
    public var pendingOperationCount: Int {
        state.withLock { state in state.pending.count + state.links.values.reduce(0) { $0 + $1.disconnectWaiters.count } }
    }

    /// Live `valueUpdates`, `scan` and `radioStates` streams.
    public var liveStreamCount: Int {
        state.withLock { state in
            state.radioObservers.count + state.scanners.count
                + state.links.values.reduce(0) { $0 + $1.subscribers.values.reduce(0) { $0 + $1.count } }
        }
    }

    /// What the system restored when it relaunched the app, if it did.
    public var restoredState: CoreBluetoothRestoredState? { state.withLock { $0.restored } }

    // MARK: Radio state

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

    // MARK: Connecting

    public func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        try await withBluetoothErrors {
            guard let uuid = UUID(uuidString: peripheral.rawValue) else {
                throw BluetoothError.connectionFailed("\(peripheral) is not a CoreBluetooth peripheral identifier")
            }
            try lookUpPeripheral(uuid)
            let reply = try await perform("connect", timeout: timeout, cleanup: .connect(uuid)) { state, id in
                guard state.radio == .poweredOn else { return .fail(.radioUnavailable(state.radio)) }
                guard var link = state.links[uuid] else { return .fail(.connectionFailed("unknown peripheral \(peripheral)")) }
                if link.phase == .connected { return .done(.connection(generation: link.generation)) }
                link.connectWaiters.append(id)
                // The first waiter starts the attempt; later ones wait for the same one.
                var attempt: OutgoingCall?
                if link.phase == .idle {
                    link.phase = .connecting
                    let target = link.peripheral
                    attempt = OutgoingCall(isWanted: { state in state.links[uuid]?.phase == .connecting }) { central in
                        central.connect(target, options: nil)
                    }
                }
                state.links[uuid] = link
                return .proceed(attempt)
            }
            guard case .connection(let generation) = reply else { throw BluetoothError.backend("unexpected reply to connect") }
            return CoreBluetoothConnection(backend: self, identifier: uuid, generation: generation)
        }
    }

    /// Makes sure a record exists for `uuid`, asking CoreBluetooth for a peripheral it knows
    /// (`retrievePeripherals(withIdentifiers:)`) when this backend has not seen it.
    private func lookUpPeripheral(_ uuid: UUID) throws(BluetoothError) {
        let (known, central) = state.withLock { state in (state.links[uuid] != nil, state.central) }
        if known { return }
        guard let central, let peripheral = central.retrievePeripherals(withIdentifiers: [uuid]).first else {
            throw .connectionFailed("CoreBluetooth does not know peripheral \(uuid.uuidString)")
        }
        state.withLock { state in _ = register(peripheral, in: &state) }
    }

    /// The record for `peripheral`, created on first sight; later objects for the same identifier
    /// replace the stored one (CoreBluetooth may hand out a new object after restoration).
    @discardableResult
    func register(_ peripheral: Peripheral, in state: inout State) -> UUID {
        let id = peripheral.identifier
        if state.links[id] == nil {
            state.links[id] = Link(peripheral: peripheral)
        } else {
            state.links[id]?.peripheral = peripheral
        }
        return id
    }

    /// Ends the current connection of `uuid` (lock held). Everything pending on it is returned to
    /// be failed once the lock is released.
    func endConnection(_ uuid: UUID, reason: DisconnectReason, in state: inout State) -> Fallout {
        var fallout = Fallout(reason: reason)
        guard var link = state.links[uuid], link.phase == .connected else { return fallout }
        link.phase = .idle
        link.endReasons[link.generation] = reason
        if link.endReasons.count > 8, let oldest = link.endReasons.keys.min() { link.endReasons[oldest] = nil }
        for id in link.requests.values.joined() {
            if let pending = state.pending.removeValue(forKey: id) { fallout.failed.append(pending) }
        }
        for write in link.writeQueue {
            if let pending = state.pending.removeValue(forKey: write.id) { fallout.failed.append(pending) }
        }
        link.requests = [:]
        link.writeQueue = []
        link.pumpRequested = false
        link.attributes.removeAll()
        fallout.streams = link.subscribers.values.flatMap(\.values)
        link.subscribers = [:]
        fallout.waiters = Array(link.disconnectWaiters.values)
        link.disconnectWaiters = [:]
        state.links[uuid] = link
        return fallout
    }

    /// Closes connection `generation` of `uuid` at the app's request.
    func disconnect(_ uuid: UUID, generation: UInt64) {
        let fallout: Fallout? = state.withLock { state in
            guard let link = state.links[uuid], link.phase == .connected, link.generation == generation else { return nil }
            let peripheral = link.peripheral
            state.outbox.append(OutgoingCall { central in central.cancelPeripheralConnection(peripheral) })
            return endConnection(uuid, reason: .localRequest, in: &state)
        }
        fallout?.settle()
        sendOutbox()
    }
}
