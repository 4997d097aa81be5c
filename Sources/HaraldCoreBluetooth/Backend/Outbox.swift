import Foundation
import Harald

extension CoreBluetoothBackend {
    /// A call to CoreBluetooth waiting its turn in `state.outbox`.
    ///
    /// Every call that makes CoreBluetooth do something — connect, cancel a connection, scan,
    /// stop scanning, send a GATT request — is queued with the lock held, in the same critical
    /// section that records what it is for (a request's place in its FIFO, say), and made later by
    /// ``sendOutbox()`` with the lock released. So CoreBluetooth receives the calls in the order
    /// their records were made, which is what lets a delegate answer find its request by order.
    struct OutgoingCall {
        /// Checked with the lock held when the call's turn comes: whether it still applies (the
        /// operation it serves may have ended meanwhile). It may record that the call is made.
        let isWanted: (inout State) -> Bool
        /// The call itself, made with the lock released.
        let make: (Central) -> Void

        init(isWanted: @escaping (inout State) -> Bool = { _ in true }, make: @escaping (Central) -> Void) {
            self.isWanted = isWanted
            self.make = make
        }
    }

    /// Makes the calls waiting in the outbox, oldest first, each with the lock released.
    ///
    /// One thread makes them at a time. A thread that finds another at it leaves its calls to
    /// that one and returns; the thread making them stops only after finding the outbox empty
    /// with the lock held. So calls keep their order, and a CoreBluetooth (or fake) that answers
    /// a call with a synchronous delegate call that queues another one neither blocks nor
    /// recurses: the new call is made after the current one returns.
    func sendOutbox() {
        let starts = state.withLock { state -> Bool in
            if state.sending { return false }
            state.sending = true
            return true
        }
        guard starts else { return }
        while true {
            let next = state.withLock { state -> ((Central) -> Void, Central)? in
                while !state.outbox.isEmpty {
                    let call = state.outbox.removeFirst()
                    if call.isWanted(&state), let central = state.central { return (call.make, central) }
                }
                state.sending = false
                return nil
            }
            guard case let (make, central)? = next else { return }
            make(central)
        }
    }
}
