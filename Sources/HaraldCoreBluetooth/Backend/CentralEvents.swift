import Foundation
import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend: CoreBluetoothCentralDelegate {
    public func centralManagerDidUpdateState(_ central: Central) {
        let radio = Self.radioState(central.state.rawValue)
        var fallout = Fallout(reason: .connectionLost)
        var failedConnects: [Pending] = []
        var failedScans: [ScanReports.Continuation] = []
        state.withLock { state in
            state.radio = radio
            for observer in state.radioObservers.values { observer.yield(radio) }
            if radio == .poweredOn {
                for id in state.scanners.keys { state.scanners[id]?.waitingForPower = false }
                return
            }
            // CoreBluetooth stops scanning and drops every connection when the radio leaves
            // powered-on; it may not report each disconnection.
            state.activeScan = nil
            if radio != .unknown && radio != .resetting {
                failedScans = state.scanners.values.map(\.continuation)
                state.scanners = [:]
            } else {
                for id in state.scanners.keys { state.scanners[id]?.waitingForPower = true }
            }
            for uuid in state.links.keys {
                fallout.merge(endConnection(uuid, reason: .connectionLost, in: &state))
                if var link = state.links[uuid], link.phase == .connecting {
                    failedConnects += link.connectWaiters.compactMap { state.pending.removeValue(forKey: $0) }
                    link.connectWaiters = []
                    link.phase = .idle
                    state.links[uuid] = link
                }
            }
        }
        fallout.settle()
        for pending in failedConnects {
            pending.timer?.cancel()
            pending.continuation.resume(throwing: BluetoothError.radioUnavailable(radio))
        }
        for scan in failedScans { scan.finish(throwing: BluetoothError.radioUnavailable(radio)) }
        applyScanSettings()
    }

    public func centralManager(_ central: Central, willRestoreState dict: [String: Any]) {
        let peripherals = dict[keys.restoredPeripherals] as? [Peripheral] ?? []
        let services = (dict[keys.restoredScanServices] as? [AnyObject] ?? []).compactMap { ($0 as? Peripheral.UUIDValue)?.bluetoothUUID }
        state.withLock { state in
            var restored: [CoreBluetoothRestoredState.RestoredPeripheral] = []
            for peripheral in peripherals {
                let uuid = register(peripheral, in: &state)
                // CBPeripheralState: 1 connecting, 2 connected.
                switch peripheral.state.rawValue {
                case 2:
                    state.links[uuid]?.phase = .connected
                    state.links[uuid]?.generation += 1
                case 1:
                    state.links[uuid]?.phase = .connecting
                default: break
                }
                restored.append(.init(
                    identifier: PeripheralIdentifier(rawValue: uuid.uuidString), name: peripheral.name,
                    isConnected: peripheral.state.rawValue == 2))
            }
            state.restored = CoreBluetoothRestoredState(peripherals: restored, scanServices: services)
        }
    }

    public func centralManager(_ central: Central, didDiscover peripheral: Central.Peripheral, advertisementData: [String: Any], rssi strength: NSNumber) {
        let data = AdvertisementMapping.advertisingData(from: advertisementData, keys: keys) { ($0 as? Peripheral.UUIDValue)?.bluetoothUUID }
        let advertisement = Advertisement(
            peripheral: PeripheralIdentifier(rawValue: peripheral.identifier.uuidString), rssi: RSSI(dBm: strength.intValue),
            isConnectable: AdvertisementMapping.isConnectable(advertisementData, keys: keys), data: data, receivedAt: elapsed())
        state.withLock { state in
            let uuid = register(peripheral, in: &state)
            route(advertisement, from: uuid, in: &state)
        }
    }

    public func centralManager(_ central: Central, didConnect peripheral: Central.Peripheral) {
        var waiters: [Pending] = []
        var generation: UInt64 = 0
        state.withLock { state in
            let uuid = register(peripheral, in: &state)
            guard var link = state.links[uuid] else { return }
            switch link.phase {
            case .connecting:
                link.phase = .connected
                link.generation += 1
                generation = link.generation
                waiters = link.connectWaiters.compactMap { state.pending.removeValue(forKey: $0) }
                link.connectWaiters = []
                state.links[uuid] = link
            case .idle:
                // An attempt given up (timeout, cancellation) that completed anyway.
                state.outbox.append(OutgoingCall { central in central.cancelPeripheralConnection(peripheral) })
            case .connected:
                break
            }
        }
        sendOutbox()
        deliver(waiters.map { ($0, .success(.connection(generation: generation))) })
    }

    public func centralManager(_ central: Central, didFailToConnect peripheral: Central.Peripheral, error: (any Error)?) {
        let failure = CoreBluetoothErrorMapping.connectionError(error, keys: keys)
        let waiters: [Pending] = state.withLock { state in
            let uuid = register(peripheral, in: &state)
            guard var link = state.links[uuid], link.phase == .connecting else { return [] }
            let waiters = link.connectWaiters.compactMap { state.pending.removeValue(forKey: $0) }
            link.connectWaiters = []
            link.phase = .idle
            state.links[uuid] = link
            return waiters
        }
        deliver(waiters.map { ($0, .failure(failure)) })
    }

    public func centralManager(_ central: Central, didDisconnectPeripheral peripheral: Central.Peripheral, error: (any Error)?) {
        let reason = CoreBluetoothErrorMapping.disconnectReason(error, keys: keys)
        // Reported for a connection that is up. When the app already closed it (or is connecting
        // again) the call only confirms what the backend did, and is ignored.
        let fallout = state.withLock { state in endConnection(register(peripheral, in: &state), reason: reason, in: &state) }
        fallout.settle()
    }
}
