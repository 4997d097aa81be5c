import HaraldCodec
import HaraldCore

/// Changing the database while clients are connected (Core spec Vol 3 Part G §2.5.2, §7.1).
extension GATTServer {
    /// Removes `removing` (services as ``GATTDatabase/services`` lists them) and then adds
    /// `adding`, each after the last attribute, and tells the connected clients: one Service
    /// Changed indication, naming the smallest range that covers every removed and added
    /// service, to each connection that enabled indications in the Service Changed
    /// characteristic's CCCD. Returns that range, or nil when nothing changed (no indication).
    ///
    /// Returns once every such client confirmed its indication or failed to (disconnected, or no
    /// confirmation within `indicationTimeout`, default ``Configuration/defaultTimeout``); a
    /// client's failure does not undo the change. Without a Service Changed characteristic
    /// (``Configuration/addsGenericAttributeService`` off and none defined) the change is made
    /// but nobody is told.
    ///
    /// Per connection, the CCCDs of removed characteristics are forgotten (their notifications
    /// stop). Clients that did not enable the indication learn nothing: this server does not
    /// implement robust caching (§2.5.2.1), which a client turns on through the Client Supported
    /// Features characteristic, so it never answers Database Out Of Sync.
    ///
    /// On error (an added service does not fit, or includes an unknown service) nothing changes.
    @discardableResult
    package func changeServices(
        removing: [GATTService] = [], adding: [GATTServiceDefinition] = [], indicationTimeout: Duration? = nil
    ) async throws(GATTDatabaseError) -> ATTHandleRange? {
        guard let (range, _) = try applyChange(removing: removing, adding: adding) else { return nil }
        await indicateServiceChanged(range, timeout: indicationTimeout)
        return range
    }

    /// Adds one service after the last attribute and indicates Service Changed for its handles
    /// (`changeServices(removing:adding:indicationTimeout:)`); returns where it went.
    @discardableResult
    package func addService(_ definition: GATTServiceDefinition, indicationTimeout: Duration? = nil) async throws(GATTDatabaseError) -> GATTService {
        // Adding always changes something, so there is a range and a service.
        guard let (range, added) = try applyChange(removing: [], adding: [definition]), let service = added.first else {
            preconditionFailure("adding a service changed nothing")
        }
        await indicateServiceChanged(range, timeout: indicationTimeout)
        return service
    }

    /// Swaps services, as a device does when it restarts into other firmware (a buttonless DFU
    /// bootloader, say): removes every service whose UUID is in `uuids`, adds `definitions`, and
    /// indicates one range (`changeServices(removing:adding:indicationTimeout:)`).
    @discardableResult
    package func replaceServices(
        _ uuids: [BluetoothUUID], with definitions: [GATTServiceDefinition], indicationTimeout: Duration? = nil
    ) async throws(GATTDatabaseError) -> ATTHandleRange? {
        try await changeServices(
            removing: database.services.filter { uuids.contains($0.uuid) }, adding: definitions, indicationTimeout: indicationTimeout)
    }

    /// Removes every service with `uuid` and indicates Service Changed for their handles
    /// (`changeServices(removing:adding:indicationTimeout:)`); returns the range, nil when
    /// there was no such service.
    @discardableResult
    public func removeServices(_ uuid: BluetoothUUID, indicationTimeout: Duration? = nil) async -> ATTHandleRange? {
        // Removing cannot fail: only adding lays anything out.
        try? await changeServices(removing: database.services.filter { $0.uuid == uuid }, indicationTimeout: indicationTimeout)
    }

    /// Makes the change in one step (no suspension, so no request sees half of it): the range
    /// that covers everything removed and added, and the services added; nil when nothing changed.
    private func applyChange(
        removing: [GATTService], adding: [GATTServiceDefinition]
    ) throws(GATTDatabaseError) -> (range: ATTHandleRange, added: [GATTService])? {
        var changed = database
        var removed: [ATTHandleRange] = []
        var added: [GATTService] = []
        for service in removing {
            if let gone = changed.removeService(at: service.handles.start) { removed.append(gone.handles) }
        }
        for definition in adding { added.append(try changed.add(definition)) }
        let touched = removed + added.map(\.handles)
        guard let first = touched.first else { return nil }
        if let cmac = configuration.databaseHash { changed.refreshDatabaseHash(using: cmac) }
        database = changed
        adoptLayout(removed: removed)
        return (touched.dropFirst().reduce(first) { ATTHandleRange(start: min($0.start, $1.start), end: max($0.end, $1.end)) }, added)
    }

    /// Takes the layout of the database as it is now, for the actor and the notification table.
    /// Per connection, what named a handle of a removed service is dropped — CCCD configurations
    /// and queued prepared writes — even where an added service reuses the handle (a service
    /// removed from the end frees its handles for the next one).
    private func adoptLayout(removed: [ATTHandleRange]) {
        let inRemoved = { (handle: UInt16) in removed.contains { $0.contains(handle) } }
        let forgotten = Set(cccdHandles.values.filter(inRemoved))
        let layout = Self.cccdLayout(of: database)
        cccdHandles = layout
        notificationTable.setLayout(
            layout, valueHandles: Self.valueHandles(of: database), requirements: Self.readRequirements(of: database), forgetting: forgotten)
        for (id, state) in connections {
            let configurations = state.clientConfigurations.filter { !inRemoved($0.key) }
            let prepared = state.prepareQueue.filter { !inRemoved($0.handle) }
            connections[id]?.clientConfigurations = configurations
            connections[id]?.prepareQueue = prepared
            connections[id]?.longReads = state.longReads.filter { !inRemoved($0.key) }
        }
    }

    /// Records `range` as the Service Changed value and indicates it to every connection that
    /// enabled the indication, all at once; waits for each to be confirmed or to fail.
    private func indicateServiceChanged(_ range: ATTHandleRange, timeout: Duration?) async {
        guard let serviceChanged = database.serviceChanged else { return }
        let value = GATTGenericAttributeService.serviceChangedValue(range)
        setValue(value, handle: serviceChanged.valueHandle)
        let indications = ClientCharacteristicConfiguration.indications.rawValue
        let listening = connectionIDs.filter { (connections[$0]?.clientConfigurations[serviceChanged.cccdHandle] ?? 0) & indications != 0 }
        await withTaskGroup(of: Void.self) { group in
            for connection in listening {
                group.addTask { try? await self.indicate(handle: serviceChanged.valueHandle, value: value, connection: connection, timeout: timeout) }
            }
        }
    }
}
