import Foundation
import HaraldCore
/// A device protocol for fetching stored records (activity samples, glucose history, …) that can
/// resume from a given record after a disconnection.
///
/// Conform a device kit to it; ``SynchronizationFlow`` does the connecting, progress and
/// resuming.
public protocol RecordTransfer: Sendable {
    /// One stored record as the kit decodes it.
    associatedtype Record: Sendable

    /// How many records the device holds from `index` on, when it can tell (nil otherwise).
    func recordCount(from index: Int, over connection: PeripheralConnection) async throws -> Int?

    /// Fetches records from `index` on, handing each to `deliver` in order, and returns when the
    /// device has sent the last one. Throws ``BluetoothError/disconnected(_:)`` if the link drops.
    func fetchRecords(
        from index: Int, over connection: PeripheralConnection, deliver: (Record) async throws -> Void
    ) async throws
}

/// Fetches every record from a device, reporting progress and resuming after disconnections.
///
/// Records received before a drop are kept; after reconnecting (per the ``ReconnectPolicy``) the
/// transfer continues from the next record, so nothing is fetched twice and nothing is missed.
public struct SynchronizationFlow<Transfer: RecordTransfer>: Sendable {
    /// Progress of a synchronization.
    public enum Progress: Sendable {
        /// Connected (attempt 0 is the first connection, later ones are reconnections).
        case connected(attempt: Int)
        /// The device holds this many records from the resume point on.
        case expecting(Int)
        /// `received` records so far, of `total` when known.
        case received(Int, total: Int?)
        /// The link dropped; reconnecting as the policy allows.
        case reconnecting(after: DisconnectReason, attempt: Int)
        /// Done.
        case finished(Int)
    }

    /// The central that connects and reconnects.
    public let central: Central
    /// The device holding the records.
    public let peripheral: PeripheralIdentifier
    /// The services connecting discovers (what the transfer uses).
    public let services: [ServiceSpec]
    /// The device's record protocol.
    public let transfer: Transfer
    /// When and how often to reconnect after a dropped link.
    public let reconnect: ReconnectPolicy

    /// A flow fetching records from `peripheral` with `transfer`.
    public init(
        central: Central, peripheral: PeripheralIdentifier, services: [ServiceSpec] = [], transfer: Transfer,
        reconnect: ReconnectPolicy = ReconnectPolicy()
    ) {
        self.central = central
        self.peripheral = peripheral
        self.services = services
        self.transfer = transfer
        self.reconnect = reconnect
    }

    /// Runs the synchronization starting at record `index` and returns every record fetched.
    public func run(
        from index: Int = 0, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> [Transfer.Record] {
        let store = Locked<[Transfer.Record]>([])  // records so far, kept across reconnections
        let transfer = self.transfer
        let policy = ReconnectPolicy(
            maximumAttempts: reconnect.maximumAttempts, initialDelay: reconnect.initialDelay, multiplier: reconnect.multiplier,
            maximumDelay: reconnect.maximumDelay,
            shouldReconnect: { [reconnect] reason, attempt in
                let allowed = reconnect.shouldReconnect(reason, attempt)
                if allowed { progress(.reconnecting(after: reason, attempt: attempt)) }
                return allowed
            })
        try await central.withReconnection(to: peripheral, services: services, policy: policy) { connection, attempt in
            progress(.connected(attempt: attempt))
            let start = index + store.value.count
            let total = try await transfer.recordCount(from: start, over: connection).map { $0 + store.value.count }
            if let total { progress(.expecting(total - store.value.count)) }
            try await transfer.fetchRecords(from: start, over: connection) { record in
                let count = store.withLock {
                    $0.append(record); return $0.count
                }
                progress(.received(count, total: total))
            }
        }
        let records = store.value
        progress(.finished(records.count))
        return records
    }
}
