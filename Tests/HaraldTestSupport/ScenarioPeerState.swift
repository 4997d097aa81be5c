import HaraldCodec
import HaraldCore
import HaraldScenarioSuite

/// The scenario peer's state, shared by its GATT handlers and the test steering it: the values,
/// the writes without response, and the gate that holds answers.
public final class ScenarioPeerState: Sendable {
    private typealias Waiters = [(count: Int, continuation: CheckedContinuation<Void, Never>)]

    private struct State {
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var heldWaiters: Waiters = []
        var values: [BluetoothUUID: [UInt8]] = [
            ScenarioProfile.status: ScenarioProfile.statusInitial, ScenarioProfile.setting: ScenarioProfile.settingInitial,
        ]
        var streamWrites: [[UInt8]] = []
        var writeWaiters: Waiters = []
    }

    /// Everything mutable; continuations are resumed after the lock is released, each once.
    private let state = Locked(State())

    public init() {}

    /// Where a request's answer waits while answers are held.
    public func gate() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wake: [CheckedContinuation<Void, Never>]? = state.withLock { state in
                guard state.holding else { return nil }
                state.held.append(continuation)
                return Self.take(&state.heldWaiters, reached: state.held.count)
            }
            guard let wake else { return continuation.resume() }
            for waiter in wake { waiter.resume() }
        }
    }

    /// Holds every answer from now on.
    public func hold() { state.withLock { $0.holding = true } }

    /// Releases the held answers, in order, and stops holding.
    public func resume() {
        let released = state.withLock { state in
            state.holding = false
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in released { continuation.resume() }
    }

    /// Returns once at least `count` answers are held.
    public func waitForHeld(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.held.count >= count { return true }
                state.heldWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func value(of uuid: BluetoothUUID) -> [UInt8] { state.withLock { $0.values[uuid] ?? [] } }
    public func store(_ value: [UInt8], for uuid: BluetoothUUID) { state.withLock { $0.values[uuid] = value } }

    /// Records a write without response to the stream characteristic.
    public func receiveWithoutResponse(_ value: [UInt8]) {
        let wake = state.withLock { state in
            state.streamWrites.append(value)
            return Self.take(&state.writeWaiters, reached: state.streamWrites.count)
        }
        for waiter in wake { waiter.resume() }
    }

    /// The writes without response so far, once at least `count` arrived.
    public func writes(count: Int) async -> [[UInt8]] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.streamWrites.count >= count { return true }
                state.writeWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
        return state.withLock { $0.streamWrites }
    }

    private static func take(_ waiters: inout Waiters, reached count: Int) -> [CheckedContinuation<Void, Never>] {
        let ready = waiters.filter { $0.count <= count }.map(\.continuation)
        waiters.removeAll { $0.count <= count }
        return ready
    }
}
