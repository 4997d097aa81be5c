import Foundation
import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend {
    /// What the system handed back when it relaunched the app for Bluetooth (a central created
    /// with a restore identifier): one `BackendRestoration`, also to a consumer that asks after
    /// it came, then the stream ends. The stream ends without one once the radio state is first
    /// reported without a restoration (CoreBluetooth restores before that). The first call makes
    /// the central: call this early in the app's launch.
    ///
    /// Nothing is lost between the relaunch and the app taking over:
    /// - The restored connections come with what CoreBluetooth had discovered on them: discovering
    ///   again gives the same identities, at no cost on air.
    /// - Characteristics that were notifying stay subscribed. Values they deliver before the app
    ///   opens a ``CoreBluetoothConnection/valueUpdates(for:buffering:)`` stream for them — the
    ///   notification that woke the app among them — are held (the newest 64 per characteristic;
    ///   older ones are counted in ``droppedRestoredValueCount``) and go to the first stream
    ///   opened, in order, before live values.
    /// - Connections the system was still making are kept pending: ``connect(to:options:timeout:)``
    ///   waits for them, and nothing cancels them but a disconnect.
    public func restorations() -> AsyncStream<BackendRestoration> {
        let (stream, continuation) = AsyncStream.makeStream(of: BackendRestoration.self)
        let id: UInt64? = state.withLock { state in
            if let restoration = state.restoration {
                continuation.yield(handOut(restoration))
                continuation.finish()
                return nil
            }
            if state.restorationSettled {
                continuation.finish()
                return nil
            }
            let id = state.makeID()
            state.restorationObservers[id] = continuation
            return id
        }
        if let id {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.restorationObservers.removeValue(forKey: id) }
            }
        }
        sendOutbox()
        return stream
    }

    /// Takes in what `centralManager(_:willRestoreState:)` handed back (on the queue).
    func restore(_ dictionary: [String: Any]) {
        let peripherals = dictionary[keys.restoredPeripherals] as? [Peripheral] ?? []
        let services = (dictionary[keys.restoredScanServices] as? [AnyObject])?.compactMap { ($0 as? Peripheral.UUIDValue)?.bluetoothUUID }
        let (observers, restoration) = state.withLock { state in
            var restored: [CoreBluetoothRestoredState.RestoredPeripheral] = []
            var connections: [(identifier: UUID, generation: UInt64)] = []
            var pending: [PeripheralIdentifier] = []
            var notifying: [PeripheralIdentifier: [DiscoveredCharacteristic]] = [:]
            for peripheral in peripherals {
                let uuid = register(peripheral, in: &state)
                // CBPeripheralState: 1 connecting, 2 connected.
                switch peripheral.state.rawValue {
                case 2:
                    let generation = connectionCame(uuid, in: &state).generation
                    let on = seedAttributes(of: peripheral, uuid: uuid, in: &state)
                    if !on.isEmpty { notifying[PeripheralIdentifier(uuid: uuid)] = on }
                    connections.append((uuid, generation))
                case 1:
                    state.links[uuid]?.phase = .connecting
                    state.links[uuid]?.systemConnecting = true
                    state.links[uuid]?.connectIssued = true
                    pending.append(PeripheralIdentifier(uuid: uuid))
                default: break
                }
                restored.append(
                    .init(
                        identifier: PeripheralIdentifier(uuid: uuid), name: peripheral.name,
                        isConnected: peripheral.state.rawValue == 2))
            }
            state.restored = CoreBluetoothRestoredState(peripherals: restored, scanServices: services ?? [])
            let record = RestorationRecord(connections: connections, pending: pending, notifying: notifying, scanServices: services)
            state.restoration = record
            state.restorationSettled = true
            defer { state.restorationObservers = [:] }
            return (Array(state.restorationObservers.values), handOut(record))
        }
        for observer in observers {
            observer.yield(restoration)
            observer.finish()
        }
    }

    /// The restoration as the app gets it: a handle on each restored connection. The handles
    /// hold the backend, so they are made for each consumer, never kept in the backend's state.
    private func handOut(_ restoration: RestorationRecord) -> BackendRestoration {
        BackendRestoration(
            connections: restoration.connections.map { CoreBluetoothConnection(backend: self, identifier: $0.identifier, generation: $0.generation) },
            pendingConnections: restoration.pending, notifying: restoration.notifying, scanServices: restoration.scanServices)
    }

    /// Registers what CoreBluetooth had discovered on a restored connected peripheral, and starts
    /// holding values for the characteristics that are notifying, which it returns (lock held,
    /// on the queue).
    private func seedAttributes(of peripheral: Peripheral, uuid: UUID, in state: inout State) -> [DiscoveredCharacteristic] {
        guard var link = state.links[uuid] else { return [] }
        var notifying: [DiscoveredCharacteristic] = []
        defer { state.links[uuid] = link }
        for service in peripheral.services ?? [] {
            let serviceID = link.attributes.register(service, numbering: &state.nextID).id
            for characteristic in service.characteristics ?? [] {
                guard let discovered = link.attributes.register(characteristic, in: serviceID, numbering: &state.nextID) else { continue }
                let characteristicID = discovered.id
                if characteristic.isNotifying {
                    link.heldValues[characteristicID] = HeldValues()
                    notifying.append(discovered)
                }
                for descriptor in characteristic.descriptors ?? [] {
                    _ = link.attributes.register(descriptor, of: characteristicID, numbering: &state.nextID)
                }
            }
        }
        return notifying
    }

    /// Holds a notified value for a restored characteristic no stream has taken yet (lock held).
    /// Returns false when the characteristic is not held for.
    func hold(_ value: [UInt8], for characteristic: AttributeID, of uuid: UUID, in state: inout State) -> Bool {
        guard var held = state.links[uuid]?.heldValues[characteristic] else { return false }
        let before = held.dropped
        held.append(value)
        state.droppedHeldValues += held.dropped - before
        state.links[uuid]?.heldValues[characteristic] = held
        return true
    }
}

/// What state restoration handed back, kept by the backend as values: the connections by
/// peripheral and connection generation, and the services the restored scan filtered on.
struct RestorationRecord: Sendable {
    var connections: [(identifier: UUID, generation: UInt64)]
    /// Peripherals the system was still connecting.
    var pending: [PeripheralIdentifier]
    /// The characteristics notifying on each restored connection.
    var notifying: [PeripheralIdentifier: [DiscoveredCharacteristic]]
    var scanServices: [BluetoothUUID]?
}
