import Foundation
import Harald
import HaraldCodec

extension CoreBluetoothBackend {
    /// Peripherals connected to this device (by any app) that offer one of `services`
    /// (`retrieveConnectedPeripherals(withServices:)`): connect to one with
    /// ``connect(to:options:timeout:)`` to use it. Waits for the radio to be on, within `timeout`
    /// (nil: until the task is cancelled); fails at once with
    /// `BluetoothError/radioUnavailable(_:)` on an unsupported or unauthorized radio. The first
    /// call makes the central.
    public func retrieveConnectedPeripherals(withServices services: [BluetoothUUID], timeout: Duration? = nil) async throws(BluetoothError)
        -> [PeripheralIdentifier]
    {
        try await withBluetoothErrors {
            let reply = try await perform("retrieve connected peripherals", timeout: timeout, cleanup: .nothing) { state, id in
                if Self.refuses(state.radio) { return .fail(.radioUnavailable(state.radio)) }
                return .proceed(
                    OutgoingCall(isWanted: { state in state.pending[id] != nil }, waitsForPower: id) { central in
                        let found = central.retrieveConnectedPeripherals(withServices: services.map(Central.makeUUID))
                        self.retrieved(found, for: id)
                    })
            }
            guard case .identifiers(let identifiers) = reply else { throw BluetoothError.backend("unexpected reply to a retrieval") }
            return identifiers.map { PeripheralIdentifier(uuid: $0) }
        }
    }

    /// Records the peripherals a retrieval found and answers it (on the queue).
    private func retrieved(_ peripherals: [Peripheral], for id: UInt64) {
        let pending: Pending? = state.withLock { state in
            guard let pending = state.pending.removeValue(forKey: id) else { return nil }
            for peripheral in peripherals { register(peripheral, in: &state) }
            return pending
        }
        guard let pending else { return }
        deliver([(pending, .success(.identifiers(peripherals.map(\.identifier))))])
    }

    /// Whether the app may use Bluetooth (`CBManager.authorization`). Reading it never makes the
    /// central, so it never asks the user; `.unauthorized` in ``radioStates()`` says the same
    /// once the central exists.
    public var authorization: CoreBluetoothAuthorization { CoreBluetoothAuthorization(Central.authorization.rawValue) }

    /// The authorization now, then each change. CoreBluetooth reports changes through the
    /// central's state updates, so changes are seen once the central exists (after the first
    /// scan, connect or ``radioStates()``); this stream does not make it.
    public func authorizationUpdates() -> AsyncStream<CoreBluetoothAuthorization> {
        let (stream, continuation) = AsyncStream.makeStream(of: CoreBluetoothAuthorization.self)
        let now = authorization
        let id: UInt64 = state.withLock { state in
            let id = state.makeID()
            continuation.yield(now)
            if state.authorization == nil { state.authorization = now }
            state.authorizationObservers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.authorizationObservers.removeValue(forKey: id) }
        }
        return stream
    }
}

/// Whether the user lets the app use Bluetooth: CoreBluetooth's `CBManagerAuthorization`.
public enum CoreBluetoothAuthorization: Hashable, Sendable, CustomStringConvertible {
    /// The user has not been asked yet (making the central asks).
    case notDetermined
    /// The device's policy forbids Bluetooth for the app (parental controls, a profile).
    case restricted
    /// The user said no (Settings can change it).
    case denied
    /// The app may use Bluetooth, in the background too.
    case allowedAlways

    /// The case for a `CBManagerAuthorization` raw value; an unknown value counts as not
    /// determined.
    public init(_ rawValue: Int) {
        switch rawValue {
        case 1: self = .restricted
        case 2: self = .denied
        case 3: self = .allowedAlways
        default: self = .notDetermined
        }
    }

    /// The permission in words: `not determined`, `restricted`, `denied` or `allowed always`.
    public var description: String {
        switch self {
        case .notDetermined: "not determined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .allowedAlways: "allowed always"
        }
    }
}
