import Foundation
import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend: CoreBluetoothCentralDelegate {
    /// Records the radio's new state; powering off or losing authorization fails every pending
    /// operation and drops every link.
    public func centralManagerDidUpdateState(_ central: Central) {
        let radio = Self.radioState(central.state.rawValue)
        let authorization = CoreBluetoothAuthorization(Central.authorization.rawValue)
        var fallout = Fallout(reason: .connectionLost)
        var refused: [Pending] = []
        var failedScans: [ScanReports.Continuation] = []
        var authorizationChanged: [AsyncStream<CoreBluetoothAuthorization>.Continuation] = []
        var unrestored: [AsyncStream<BackendRestoration>.Continuation] = []
        state.withLock { state in
            if state.radio != radio {
                state.radio = radio
                for observer in state.radioObservers.values { observer.yield(radio) }
            }
            if state.authorization != authorization {
                state.authorization = authorization
                authorizationChanged = Array(state.authorizationObservers.values)
            }
            // Restoration comes before the first state update, or not at all.
            if !state.restorationSettled {
                state.restorationSettled = true
                unrestored = Array(state.restorationObservers.values)
                state.restorationObservers = [:]
            }
            if radio == .poweredOn {
                poweredOn(in: &state)
                return
            }
            // CoreBluetooth stops scanning and drops every connection and connection attempt when
            // the radio leaves powered-on; it may not report each disconnection.
            state.activeScan = nil
            if radio != .unknown && radio != .resetting {
                failedScans = state.scanners.values.map(\.continuation)
                state.scanners = [:]
            } else {
                for id in state.scanners.keys { state.scanners[id]?.waitingForPower = true }
            }
            for uuid in state.links.keys {
                fallout.merge(endConnection(uuid, reason: .connectionLost, in: &state))
                guard var link = state.links[uuid], link.phase == .connecting else { continue }
                link.connectIssued = false
                link.systemConnecting = false
                state.links[uuid] = link
                // The system drops its own reconnections with the radio.
                systemConnectionStopped(uuid, in: &state)
                link = state.links[uuid] ?? link
                if Self.refuses(radio) || link.connectWaiters.isEmpty {
                    refused += link.connectWaiters.compactMap { state.pending.removeValue(forKey: $0) }
                    link.connectWaiters = []
                    link.phase = .idle
                }
                state.links[uuid] = link
            }
            if Self.refuses(radio) {
                refused += state.awaitingPower.keys.sorted().compactMap { state.pending.removeValue(forKey: $0) }
                state.awaitingPower = [:]
            }
        }
        answerReconnectionWaiters()
        for observer in authorizationChanged { observer.yield(authorization) }
        for observer in unrestored { observer.finish() }
        endTimeouts(of: refused)
        fallout.settle()
        for pending in refused {
            pending.continuation.resume(throwing: BluetoothError.radioUnavailable(radio))
        }
        for scan in failedScans { scan.finish(throwing: BluetoothError.radioUnavailable(radio)) }
        applyScanSettings()
    }

    /// The radio is on (lock held): what waited for it goes into the outbox, in the order it came.
    private func poweredOn(in state: inout State) {
        for id in state.scanners.keys { state.scanners[id]?.waitingForPower = false }
        for id in state.awaitingPower.keys.sorted() {
            if let call = state.awaitingPower.removeValue(forKey: id) { state.outbox.append(call) }
        }
        for (uuid, link) in state.links where link.phase == .connecting && !link.connectIssued && !link.connectWaiters.isEmpty {
            state.outbox.append(connectCall(uuid, link: link))
        }
    }

    /// Takes over the connections and scan the system restored for a relaunched app (see `restorations()`).
    public func centralManager(_ central: Central, willRestoreState dict: [String: Any]) {
        restore(dict)
    }

    /// Turns an advertisement or scan response into an `Advertisement` for the scans that want it;
    /// `rssi` is in dBm (127 means unavailable and is dropped).
    public func centralManager(_ central: Central, didDiscover peripheral: Central.Peripheral, advertisementData: [String: Any], rssi strength: NSNumber) {
        let data = AdvertisementMapping.advertisingData(from: advertisementData, keys: keys) { ($0 as? Peripheral.UUIDValue)?.bluetoothUUID }
        let advertisement = Advertisement(
            peripheral: PeripheralIdentifier(uuid: peripheral.identifier), rssi: RSSI(dBm: strength.intValue),
            isConnectable: AdvertisementMapping.isConnectable(advertisementData, keys: keys), data: data, receivedAt: stopwatch.elapsed)
        state.withLock { state in
            let uuid = register(peripheral, in: &state)
            route(advertisement, from: uuid, in: &state)
        }
    }

    /// A connection came up. It is kept when a connect waits for it or the system made it for
    /// the app (a restored pending connection, an automatic reconnection); otherwise it is what
    /// is left of an attempt nobody wants any more, and is cancelled (see
    /// ``connect(to:options:timeout:)``).
    public func centralManager(_ central: Central, didConnect peripheral: Central.Peripheral) {
        var waiters: [Pending] = []
        var generation: UInt64 = 0
        state.withLock { state in
            let uuid = register(peripheral, in: &state)
            guard let link = state.links[uuid] else { return }
            switch link.phase {
            case .connecting:
                (waiters, generation) = connectionCame(uuid, in: &state)
            case .idle:
                state.outbox.append(unwantedCancelCall(uuid, link.peripheral))
            case .connected:
                break
            }
        }
        sendOutbox()
        answerReconnectionWaiters()
        deliver(waiters.map { ($0, .success(.connection(generation: generation))) })
    }

    /// Fails the connect waiting for `peripheral` with the system's reason.
    public func centralManager(_ central: Central, didFailToConnect peripheral: Central.Peripheral, error: (any Error)?) {
        let failure = CoreBluetoothErrorMapping.connectionError(error, keys: keys)
        let waiters: [Pending] = state.withLock { state in
            let uuid = register(peripheral, in: &state)
            guard var link = state.links[uuid], link.phase == .connecting else { return [] }
            let waiters = link.connectWaiters.compactMap { state.pending.removeValue(forKey: $0) }
            link.connectWaiters = []
            link.phase = .idle
            link.connectIssued = false
            link.systemConnecting = false
            state.links[uuid] = link
            systemConnectionStopped(uuid, in: &state)
            return waiters
        }
        answerReconnectionWaiters()
        deliver(waiters.map { ($0, .failure(failure)) })
    }

    /// Reported for a connection that is up, by systems without automatic reconnection (before
    /// iOS 17 and macOS 14; later ones call
    /// ``centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:)``). When the
    /// app already closed the connection (or is connecting again) the call only confirms what
    /// the backend did, and is ignored.
    public func centralManager(_ central: Central, didDisconnectPeripheral peripheral: Central.Peripheral, error: (any Error)?) {
        disconnected(peripheral, isReconnecting: false, error: error)
    }

    /// Reported for a connection that is up. With `isReconnecting` the system is making the
    /// connection again by itself (one made with `ConnectionOptions/enableAutoReconnect`): the
    /// record waits for it, a `connect` to the peripheral joins it, and the connection's
    /// ``CoreBluetoothConnection/systemReconnection()`` returns the new connection once it is up.
    public func centralManager(
        _ central: Central, didDisconnectPeripheral peripheral: Central.Peripheral, timestamp: Double, isReconnecting: Bool, error: (any Error)?
    ) {
        disconnected(peripheral, isReconnecting: isReconnecting, error: error)
    }

    private func disconnected(_ peripheral: Central.Peripheral, isReconnecting: Bool, error: (any Error)?) {
        let reason = CoreBluetoothErrorMapping.disconnectReason(error, keys: keys)
        let fallout = state.withLock { state in
            let uuid = register(peripheral, in: &state)
            let fallout = endConnection(uuid, reason: reason, in: &state)
            if fallout.ended, isReconnecting, var link = state.links[uuid] {
                link.phase = .connecting
                link.systemConnecting = true
                // The system's own attempt: a connect joins it without asking for another.
                link.connectIssued = true
                link.systemReconnection = (from: link.generation, to: nil)
                state.links[uuid] = link
            }
            return fallout
        }
        fallout.settle()
    }
}
