import Foundation
import Harald
import HaraldCodec

// The per-connection streams besides values (Service Changed, name updates) and the way to run
// code on a connection's CoreBluetooth peripheral.
extension CoreBluetoothBackend {
    /// Service changes or names a connection's stream holds for a reader that falls behind; the
    /// oldest go first.
    static var connectionStreamBufferLimit: Int { 16 }

    /// Changes of the peripheral's database on connection `generation` of `uuid`, until it ends.
    func serviceChanges(on uuid: UUID, generation: UInt64) -> AsyncStream<ServiceChange> {
        observe(on: uuid, generation: generation, in: \.serviceChangeObservers)
    }

    /// The peripheral's new names on connection `generation` of `uuid`, until it ends.
    func nameUpdates(on uuid: UUID, generation: UInt64) -> AsyncStream<String> {
        observe(on: uuid, generation: generation, in: \.nameObservers)
    }

    /// A stream kept in `observers` of the record of `uuid` while connection `generation` is up;
    /// finished at once when it is not, and when the connection ends.
    private func observe<Element>(
        on uuid: UUID, generation: UInt64, in observers: WritableKeyPath<Link, [UInt64: AsyncStream<Element>.Continuation]> & Sendable
    ) -> AsyncStream<Element> {
        // The peer decides how often its services or name change: a reader that falls behind
        // keeps the newest few.
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(Self.connectionStreamBufferLimit))
        let id: UInt64? = state.withLock { state in
            guard let link = state.links[uuid], link.phase == .connected, link.generation == generation else { return nil }
            let id = state.makeID()
            state.links[uuid]?[keyPath: observers][id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in _ = state.links[uuid]?[keyPath: observers].removeValue(forKey: id) }
        }
        return stream
    }

    /// Runs `body` on CoreBluetooth's queue with the peripheral of connection `generation` of
    /// `uuid`; fails with ``BluetoothError/disconnected(_:)`` when that connection has ended.
    func withPeripheral<T: Sendable>(
        of uuid: UUID, generation: UInt64, _ body: @escaping @Sendable (Peripheral) throws -> T
    ) async throws(BluetoothError) -> T {
        let result: Result<T, BluetoothError> = await onQueue {
            let peripheral: Result<Peripheral, BluetoothError> = self.state.withLock { state in
                guard let link = state.links[uuid] else { return .failure(.disconnected(.localRequest)) }
                guard link.phase == .connected, link.generation == generation else { return .failure(.disconnected(link.endReason(of: generation))) }
                return .success(link.peripheral)
            }
            switch peripheral {
            case .failure(let error): return .failure(error)
            case .success(let peripheral):
                do { return .success(try body(peripheral)) } catch { return .failure(BluetoothError(error)) }
            }
        }
        return try result.get()
    }
}
