import Foundation
import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend {
    /// Connects to `peripheral` (a CoreBluetooth peripheral identifier).
    ///
    /// - With `timeout` nil the attempt is pending, as CoreBluetooth's own connects are: it waits
    ///   until the device comes in range and connects, or until the calling task is cancelled.
    /// - Before power-on (the radio state unknown, resetting or off) the connect waits for the
    ///   radio, within its timeout, and so does looking up a peripheral this backend has not
    ///   seen (`retrievePeripherals(withIdentifiers:)`); on an unsupported or unauthorized radio
    ///   it fails at once with `BluetoothError/radioUnavailable(_:)`. Attempts in progress when
    ///   the radio goes off are made again when it comes back.
    /// - Connects to one peripheral share one attempt, made with the `options` of the connect that
    ///   started it (`ConnectionOptions` become CoreBluetooth's connect options).
    /// - A peripheral already connected for the app returns its connection at once: one a
    ///   restored or earlier connect brought up, or one the system reconnected by itself.
    ///
    /// When an attempt is cancelled in CoreBluetooth (`cancelPeripheralConnection`): when the
    /// last connect waiting for it times out or is cancelled, if this app's `connect` call was
    /// made. A pending connection the system makes for the app — restored by state restoration,
    /// or a reconnection after a link loss with `ConnectionOptions/enableAutoReconnect` — is
    /// never cancelled by a waiter giving up; disconnect it to stop it.
    ///
    /// A connection CoreBluetooth completes (`didConnect`) is kept when a connect waits for it
    /// (including a new attempt started after an earlier one timed out) or when the system made
    /// it for the app (as above). Only a connection that nobody wants any more — every attempt
    /// for it ended (timed out or cancelled) and no connect came since — is cancelled.
    public func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        try await withBluetoothErrors {
            guard let uuid = peripheral.uuid else {
                throw BluetoothError.connectionFailed("\(peripheral) is not a CoreBluetooth peripheral identifier")
            }
            let reply = try await perform("connect", timeout: timeout, cleanup: .connect(uuid)) { state, id in
                if Self.refuses(state.radio) { return .fail(.radioUnavailable(state.radio)) }
                guard state.links[uuid] != nil else { return .proceed(lookUpCall(uuid, for: id, options: options)) }
                return join(uuid, waiter: id, options: options, in: &state)
            }
            guard case .connection(let generation) = reply else { throw BluetoothError.backend("unexpected reply to connect") }
            return CoreBluetoothConnection(backend: self, identifier: uuid, generation: generation)
        }
    }

    /// Adds connect `waiter` to the attempt on the record of `uuid`, starting the attempt if none
    /// is in progress (lock held).
    private func join(_ uuid: UUID, waiter: UInt64, options: ConnectionOptions, in state: inout State) -> Registration {
        guard var link = state.links[uuid] else { return .fail(.connectionFailed("unknown peripheral \(uuid.uuidString)")) }
        link.lastUsed = state.makeID()
        if link.phase == .connected {
            state.links[uuid] = link
            return .done(.connection(generation: link.generation))
        }
        link.connectWaiters.append(waiter)
        if link.phase == .idle {
            link.phase = .connecting
            link.attemptOptions = options
        }
        state.links[uuid] = link
        // The first waiter starts the attempt; later ones wait for the same one.
        return .proceed(link.connectIssued ? nil : connectCall(uuid, link: link))
    }

    /// The `connect` call of the attempt in progress on `uuid`; made once per attempt.
    func connectCall(_ uuid: UUID, link: Link) -> OutgoingCall {
        let target = link.peripheral
        let options = ConnectOptionsMapping.dictionary(link.attemptOptions, keys: keys)
        return OutgoingCall(isWanted: { state in
            guard let link = state.links[uuid], link.phase == .connecting, !link.connectIssued else { return false }
            state.links[uuid]?.connectIssued = true
            return true
        }) { central in
            central.connect(target, options: options)
        }
    }

    /// Asks CoreBluetooth for a peripheral this backend has no record of
    /// (`retrievePeripherals(withIdentifiers:)`, once the radio is on), then joins connect `id`
    /// to an attempt on it.
    private func lookUpCall(_ uuid: UUID, for id: UInt64, options: ConnectionOptions) -> OutgoingCall {
        OutgoingCall(isWanted: { state in state.pending[id] != nil }, waitsForPower: id) { central in
            // A restoration or a scan may have made the record while the look-up waited.
            let known = self.state.withLock { $0.links[uuid] != nil }
            let found = known ? nil : central.retrievePeripherals(withIdentifiers: [uuid]).first
            self.lookedUp(uuid, found: found, for: id, options: options)
        }
    }

    /// Continues connect `id` after the look-up found `found` (on the queue, lock released).
    private func lookedUp(_ uuid: UUID, found: Peripheral?, for id: UInt64, options: ConnectionOptions) {
        let resolution: (Pending, Result<Reply, any Error>)? = state.withLock { state in
            guard state.pending[id] != nil else { return nil }
            if let found { register(found, in: &state) }
            let registration: Registration =
                state.links[uuid] == nil
                ? .fail(.connectionFailed("CoreBluetooth does not know peripheral \(uuid.uuidString)"))
                : join(uuid, waiter: id, options: options, in: &state)
            switch registration {
            case .proceed(let call):
                if let call { state.outbox.append(call) }
                return nil
            case .done(let reply):
                return state.pending.removeValue(forKey: id).map { ($0, .success(reply)) }
            case .fail(let error):
                return state.pending.removeValue(forKey: id).map { ($0, .failure(error)) }
            }
        }
        if let resolution { deliver([resolution]) }
        sendOutbox()
    }

    /// The record for `peripheral`, created on first sight; later objects for the same identifier
    /// replace the stored one (CoreBluetooth may hand out a new object after restoration).
    @discardableResult
    func register(_ peripheral: Peripheral, in state: inout State) -> UUID {
        let id = peripheral.identifier
        let tick = state.makeID()
        if state.links[id] == nil {
            var link = Link(peripheral: peripheral)
            link.lastUsed = tick
            state.links[id] = link
            pruneRecords(in: &state)
        } else {
            state.links[id]?.peripheral = peripheral
            state.links[id]?.lastUsed = tick
        }
        return id
    }

    /// Brings the record of `uuid` up as a new connection (lock held): the attempt's waiters are
    /// returned, to be answered with the new generation once the lock is released.
    func connectionCame(_ uuid: UUID, in state: inout State) -> (waiters: [Pending], generation: UInt64) {
        guard var link = state.links[uuid] else { return ([], 0) }
        // A connection the system made by itself keeps what the app asked for when it connected.
        if !link.systemConnecting { link.autoReconnect = link.attemptOptions.enableAutoReconnect }
        link.phase = .connected
        link.generation = state.makeID()
        if let reconnection = link.systemReconnection, reconnection.to == nil {
            link.systemReconnection = (reconnection.from, link.generation)
            state.reconnectionAnswers += link.reconnectionWaiters.values.map { ($0, link.generation) }
            link.reconnectionWaiters = [:]
        }
        link.connectIssued = false
        link.systemConnecting = false
        let waiters = link.connectWaiters.compactMap { state.pending.removeValue(forKey: $0) }
        link.connectWaiters = []
        state.links[uuid] = link
        return (waiters, link.generation)
    }

    /// Ends the current connection of `uuid` (lock held). Everything pending on it is returned to
    /// be failed once the lock is released.
    func endConnection(_ uuid: UUID, reason: DisconnectReason, in state: inout State) -> Fallout {
        var fallout = Fallout(reason: reason)
        guard var link = state.links[uuid], link.phase == .connected else { return fallout }
        fallout.ended = true
        link.phase = .idle
        link.endReasons[link.generation] = reason
        if link.endReasons.count > 8, let oldest = link.endReasons.keys.min() { link.endReasons[oldest] = nil }
        for id in link.requests.values.joined() {
            if let pending = state.pending.removeValue(forKey: id) { fallout.failed.append(pending) }
        }
        for write in link.writeQueue {
            if let pending = state.pending.removeValue(forKey: write.id) { fallout.failed.append(pending) }
        }
        for open in link.channelOpens {
            if let pending = state.pending.removeValue(forKey: open.id) { fallout.failed.append(pending) }
        }
        link.channelOpens = []
        link.abandonedOpens = []
        fallout.channels = Array(link.channels.values)
        link.channels = [:]
        link.requests = [:]
        link.writeQueue = []
        link.pumpRequested = false
        link.attributes.removeAll()
        link.heldValues = [:]
        fallout.streams = link.subscribers.values.flatMap(\.values)
        link.subscribers = [:]
        fallout.serviceChangeStreams = Array(link.serviceChangeObservers.values)
        link.serviceChangeObservers = [:]
        fallout.nameStreams = Array(link.nameObservers.values)
        link.nameObservers = [:]
        fallout.waiters = Array(link.disconnectWaiters.values)
        link.disconnectWaiters = [:]
        link.lastUsed = state.makeID()
        state.links[uuid] = link
        for pending in fallout.failed { state.deadlines.cancel(pending.deadline) }
        return fallout
    }

    /// Closes connection `generation` of `uuid` at the app's request; the system does not
    /// reconnect a connection the app closed. A connection that has already ended is left alone:
    /// when the system is reconnecting it by itself (`ConnectionOptions/enableAutoReconnect`)
    /// the reconnection carries on, whoever lets go of the old handle (stop it with
    /// ``cancelSystemConnection(to:)``).
    func disconnect(_ uuid: UUID, generation: UInt64) {
        let fallout: Fallout? = state.withLock { state in
            guard var link = state.links[uuid], link.generation == generation, link.phase == .connected else { return nil }
            let peripheral = link.peripheral
            link.autoReconnect = false
            state.links[uuid] = link
            state.outbox.append(OutgoingCall { central in central.cancelPeripheralConnection(peripheral) })
            return endConnection(uuid, reason: .localRequest, in: &state)
        }
        fallout?.settle()
        sendOutbox()
    }

    /// The `cancelPeripheralConnection` for an attempt or connection of `uuid` nobody wants any
    /// more; skipped if, by its turn, a connect wants the peripheral again.
    func unwantedCancelCall(_ uuid: UUID, _ peripheral: Peripheral) -> OutgoingCall {
        OutgoingCall(isWanted: { state in state.links[uuid]?.phase == .idle }) { central in
            central.cancelPeripheralConnection(peripheral)
        }
    }
}

/// ``ConnectionOptions`` as CoreBluetooth's connect options dictionary.
enum ConnectOptionsMapping {
    static func dictionary(_ options: ConnectionOptions, keys: CoreBluetoothKeys) -> [String: Any] {
        var dictionary: [String: Any] = [
            keys.notifyOnConnection: NSNumber(value: options.notifyOnConnection),
            keys.notifyOnDisconnection: NSNumber(value: options.notifyOnDisconnection),
            keys.notifyOnNotification: NSNumber(value: options.notifyOnNotification),
        ]
        if let autoReconnect = keys.enableAutoReconnect { dictionary[autoReconnect] = NSNumber(value: options.enableAutoReconnect) }
        return dictionary
    }
}
