import Foundation
import HaraldCodec
import HaraldCore

/// Finds a device, connects and makes sure the link is paired, in one cancellable call.
///
/// The flow waits for the radio, scans for the first device that matches, connects, secures the
/// link where the backend runs its own Security Manager (the HCI backend, a simulator with a
/// `SecurityConfiguration`: encrypt with the bond, else pair through the pairing agent), and
/// reads a characteristic that needs a secured link. On CoreBluetooth the peripheral's refusal
/// of that read (Insufficient Authentication or Encryption) makes the system run pairing, after
/// which the read succeeds; the flow retries the read a few times for that reason, then reports
/// success or why it failed.
///
/// Two budgets bound the flow: `timeout` covers finding the device and connecting (the radio, the
/// scan, the connect), and `pairingDialogTimeout` covers the steps that wait on a person once
/// connected: securing the link (a passkey prompt from the pairing agent) and the protected reads
/// (on CoreBluetooth, the system shows its pairing dialog and holds the read until the person
/// answers). Cancelling the task running it, or any failure, leaves nothing connected and nothing
/// pending.
///
/// ```swift
/// let paired = try await PairingFlow(central: central, match: .namePrefix("GoPro"), protected: .gopro.pairingProbe,
///                                    timeout: .seconds(15), pairingDialogTimeout: .minutes(2)).run { print($0) }
/// ```
public struct PairingFlow: Sendable {
    /// Which advertisement to pair with.
    public enum Match: Hashable, Sendable {
        /// The first device advertising this service.
        case service(BluetoothUUID)
        /// The first device whose local name starts with this.
        case namePrefix(String)
    }

    /// How far the flow has got.
    public enum Progress: Hashable, Sendable, CustomStringConvertible {
        /// Waiting for Bluetooth to be powered on.
        case waitingForRadio
        /// Scanning for a matching advertisement.
        case scanning
        /// A matching device was found.
        case found(name: String?, peripheral: PeripheralIdentifier)
        /// Connecting to it.
        case connecting
        /// The link is up.
        case connected
        /// The backend's Security Manager is encrypting with the bond, or pairing (HCI backend,
        /// simulator with a security configuration; CoreBluetooth skips this step).
        case securing
        /// The protected read was refused: the link is not paired yet (attempt number).
        case pairingRequired(attempt: Int)
        /// The protected read succeeded: the link is paired and encrypted.
        case paired

        /// The stage in words, e.g. `found Polar H10 (C0:00:00:00:00:01/random)` or
        /// `pairing required (attempt 2)`.
        public var description: String {
            switch self {
            case .waitingForRadio: "waiting for Bluetooth"
            case .scanning: "scanning"
            case let .found(name, peripheral): "found \(name ?? "unnamed device") (\(peripheral))"
            case .connecting: "connecting"
            case .connected: "connected"
            case .securing: "securing the link (bond or pairing)"
            case let .pairingRequired(attempt): "pairing required (attempt \(attempt))"
            case .paired: "paired"
            }
        }
    }

    /// Why pairing failed.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The flow's `timeout` (finding and connecting) or its `pairingDialogTimeout` (securing
        /// and the protected reads) passed, at the given stage.
        case timedOut(stage: String)
        /// The device kept refusing the protected read.
        case pairingRejected(ATTErrorCode)
        /// Any other Bluetooth failure.
        case bluetooth(BluetoothError)

        /// Why pairing failed, e.g. `the device refused pairing (Insufficient Authentication (0x05))`.
        public var description: String {
            switch self {
            case let .timedOut(stage): "pairing timed out while \(stage)"
            case let .pairingRejected(status): "the device refused pairing (\(status))"
            case let .bluetooth(error): error.description
            }
        }
    }

    /// The central that scans and connects.
    public let central: Central
    /// Which device to pair with.
    public let match: Match
    /// The characteristic whose read needs a paired link.
    public let protectedCharacteristic: (uuid: BluetoothUUID, service: BluetoothUUID)
    /// The limit for finding the device and connecting: waiting for the radio, the scan and the
    /// connect.
    public let timeout: Duration
    /// The limit for the steps that wait on a person once the link is up: securing the link
    /// (the pairing agent may ask for a passkey) and the protected reads, retries included (on
    /// CoreBluetooth the system's pairing dialog holds the read until the person answers it).
    /// Long enough to read and type a PIN: 3 minutes by default.
    public let pairingDialogTimeout: Duration
    /// Reads of the protected characteristic before giving up.
    public let attempts: Int
    /// Wait between attempts (the system's pairing dialog runs meanwhile).
    public let retryDelay: Duration

    /// A flow that pairs by reading `protected`, a characteristic that needs a secured link, up to
    /// `attempts` times `retryDelay` apart. `timeout` bounds finding and connecting;
    /// `pairingDialogTimeout` bounds securing and the protected reads, where a person may be
    /// answering a pairing dialog.
    public init<V, A: ReadAccess>(
        central: Central, match: Match, protected characteristic: Characteristic<V, A>, timeout: Duration = .seconds(30),
        pairingDialogTimeout: Duration = .seconds(180), attempts: Int = 3, retryDelay: Duration = .seconds(2)
    ) {
        self.central = central
        self.match = match
        self.protectedCharacteristic = (characteristic.uuid, characteristic.service)
        self.timeout = timeout
        self.pairingDialogTimeout = pairingDialogTimeout
        self.attempts = max(1, attempts)
        self.retryDelay = retryDelay
    }

    /// The result: the connection stays open for the caller, who owns it from now on.
    public struct Paired: Sendable {
        /// The advertisement that matched.
        public let advertisement: Advertisement
        /// The paired connection, left open for the caller.
        public let connection: PeripheralConnection
    }

    /// Runs the flow, reporting each stage to `progress`.
    public func run(progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws(Failure) -> Paired {
        let stage = Locked("starting")  // readable after a timeout cancelled the flow
        let flow = self
        let report: @Sendable (Progress) -> Void = { step in
            stage.withLock { $0 = step.description }
            progress(step)
        }
        do {
            let (advertisement, connection) = try await withTimeout(timeout, clock: central.clock, operation: "pairing") {
                try await flow.connect(progress: report)
            }
            do {
                return try await withTimeout(pairingDialogTimeout, clock: central.clock, operation: "pairing") {
                    try await flow.pair(advertisement, connection, progress: report)
                }
            } catch {
                // Failure or cancellation: leave nothing connected.
                await connection.disconnect()
                throw error
            }
        } catch let BluetoothError.timeout(operation, _) where operation == "pairing" {
            throw .timedOut(stage: stage.value)
        } catch let failure as Failure {
            throw failure
        } catch let error as BluetoothError {
            throw .bluetooth(error)
        } catch {
            throw .bluetooth(.backend(String(describing: error)))
        }
    }

    /// Finds the device and connects, within `timeout`.
    private func connect(progress: @Sendable (Progress) -> Void) async throws -> (Advertisement, PeripheralConnection) {
        progress(.waitingForRadio)
        try await central.waitUntilPoweredOn(timeout: timeout)
        progress(.scanning)
        let request: ScanRequest =
            switch match {
            case let .service(uuid): ScanRequest(services: [uuid])
            case let .namePrefix(prefix): ScanRequest(namePrefix: prefix)
            }
        let advertisement = try await central.scan(request).first(timeout: timeout)
        progress(.found(name: advertisement.localName, peripheral: advertisement.peripheral))
        progress(.connecting)
        let connection = try await central.connect(to: advertisement, timeout: timeout)
        progress(.connected)
        return (advertisement, connection)
    }

    /// Secures the link and reads the protected characteristic, within `pairingDialogTimeout`:
    /// each step gets what is left of it, since a person may be answering a dialog meanwhile.
    private func pair(_ advertisement: Advertisement, _ connection: PeripheralConnection, progress: @Sendable (Progress) -> Void) async throws
        -> Paired
    {
        do {
            return try await securedAndProbed(advertisement, connection, progress: progress)
        } catch BluetoothError.timeout {
            // The steps had what was left of the budget: theirs ran out with it.
            throw BluetoothError.timeout(operation: "pairing", after: pairingDialogTimeout)
        }
    }

    private func securedAndProbed(_ advertisement: Advertisement, _ connection: PeripheralConnection, progress: @Sendable (Progress) -> Void)
        async throws -> Paired
    {
        let deadline = CallDeadline(timeout: pairingDialogTimeout, clock: central.clock)
        // Backends with their own Security Manager pair (or encrypt with the bond) now; on
        // CoreBluetooth only the system pairs, when the probe below is refused.
        progress(.securing)
        do {
            _ = try await connection.secure(timeout: try deadline.remaining("pairing"))
        } catch {
            guard case .unsupported = error else { throw error }
        }
        let probe = Characteristic<[UInt8], Read>(protectedCharacteristic.uuid, service: protectedCharacteristic.service)
        var lastRefusal: ATTErrorCode = .insufficientAuthentication
        for attempt in 1...attempts {
            do {
                _ = try await connection.readRaw(probe, timeout: try deadline.remaining("pairing"))
                progress(.paired)
                return Paired(advertisement: advertisement, connection: connection)
            } catch {
                guard case let .attribute(status, _) = error, status.requiresPairing else { throw error }
                lastRefusal = status
                progress(.pairingRequired(attempt: attempt))
                if attempt < attempts { try await central.clock.sleep(for: retryDelay) }
            }
        }
        throw Failure.pairingRejected(lastRefusal)
    }
}
