import Foundation
import Harald

extension CoreBluetoothBackend {
    /// A call to CoreBluetooth waiting its turn in `state.outbox`.
    ///
    /// Every call that makes CoreBluetooth do something — connect, cancel a connection, scan,
    /// stop scanning, look a peripheral up, send a GATT request — is queued with the lock held, in
    /// the same critical section that records what it is for (a request's place in its FIFO, say),
    /// and made later on CoreBluetooth's queue by ``sendOutbox()`` with the lock released. So
    /// CoreBluetooth receives the calls in the order their records were made, which is what lets a
    /// delegate answer find its request by order.
    struct OutgoingCall {
        /// Checked with the lock held when the call's turn comes: whether it still applies (the
        /// operation it serves may have ended meanwhile). It may record that the call is made.
        let isWanted: (inout State) -> Bool
        /// The call itself, made on the queue with the lock released.
        let make: (Central) -> Void
        /// The operation that waits for this call. When the radio is not on as the call's turn
        /// comes, the call waits for power-on (in `state.awaitingPower`) instead of being dropped.
        var waitsForPower: UInt64?

        init(isWanted: @escaping (inout State) -> Bool = { _ in true }, waitsForPower: UInt64? = nil, make: @escaping (Central) -> Void) {
            self.isWanted = isWanted
            self.waitsForPower = waitsForPower
            self.make = make
        }
    }

    /// True when the caller runs on CoreBluetooth's queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) == true }

    /// Makes the calls waiting in the outbox on CoreBluetooth's queue: at once when called there
    /// (from a delegate method), otherwise by dispatching there. Also makes the central on first
    /// use.
    func sendOutbox() {
        if isOnQueue {
            drainOutbox()
        } else {
            queue.async { self.drainOutbox() }
        }
    }

    /// Makes the calls waiting in the outbox, oldest first, each with the lock released (on the
    /// queue).
    ///
    /// CoreBluetooth logs and ignores commands given while it is not powered on (API misuse), so
    /// none is given then: calls are dropped, except those an operation waits for, which wait for
    /// power-on; what the radio's return needs again (connection attempts, scans) is queued
    /// afresh at power-on.
    ///
    /// A call may make CoreBluetooth (or a fake) call a delegate method synchronously, which may
    /// queue another call and come back here: the `sending` flag leaves that call to the loop
    /// already running, so calls keep their order and nothing recurses.
    private func drainOutbox() {
        guard let central = centralOnQueue() else { return }
        let starts = state.withLock { state -> Bool in
            if state.sending { return false }
            state.sending = true
            return true
        }
        guard starts else { return }
        while true {
            let next = state.withLock { state -> ((Central) -> Void)? in
                while !state.outbox.isEmpty {
                    let call = state.outbox.removeFirst()
                    guard state.radio == .poweredOn else {
                        if let id = call.waitsForPower, state.pending[id] != nil { state.awaitingPower[id] = call }
                        continue
                    }
                    if call.isWanted(&state) { return call.make }
                }
                state.sending = false
                return nil
            }
            guard let make = next else { return }
            make(central)
        }
    }

    /// Makes the central now rather than on first use, and returns once it exists (on the
    /// queue; from the queue itself it is made at once).
    ///
    /// An app the system relaunches for Bluetooth (a central with a restore identifier) must
    /// make its central while it launches — in `application(_:didFinishLaunchingWithOptions:)` —
    /// or the system hands back nothing: `SystemCoreBluetoothBackend(restoreIdentifier:)` calls
    /// this as it is made. Calls already waiting in the outbox are sent.
    public func makeCentralNow() {
        if DispatchQueue.getSpecific(key: queueKey) != nil {
            _ = centralOnQueue()
        } else {
            queue.sync { _ = centralOnQueue() }
        }
        sendOutbox()
    }

    /// The central, made now if this is the first use (on the queue, lock released).
    ///
    /// Made lazily rather than in `init`: making a `CBCentralManager` is what asks the user for
    /// Bluetooth permission (and terminates an app whose Info.plist lacks the usage description),
    /// so an app decides when that happens by when it first scans, connects, watches the radio
    /// or asks for restorations.
    private func centralOnQueue() -> Central? {
        let (existing, factory) = state.withLock { state -> (Central?, ((CoreBluetoothBackend) -> Central)?) in
            if let central = state.central { return (central, nil) }
            defer { state.makeCentral = nil }
            return (nil, state.makeCentral)
        }
        if let existing { return existing }
        // Nil while the factory runs (a re-entrant call): the outer call goes on afterwards.
        guard let factory else { return nil }
        let central = factory(self)
        state.withLock { $0.central = central }
        return central
    }

    /// Runs `body` on CoreBluetooth's queue and returns its result.
    func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
