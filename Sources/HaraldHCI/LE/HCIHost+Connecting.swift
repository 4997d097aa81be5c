import HaraldCore
/// Per-connection state the host keeps: the public object and its link set-up (L2CAP keeps its
/// own per-link state in `L2CAPChannelManager` and `ACLFlowControl`).
struct ConnectionState {
    let connection: LEConnection
    /// The host's own link set-up after connecting (data length, PHY), while it runs: the app's
    /// explicit requests on the link wait for it, so that they come after it and win.
    var linkSetUp: Task<Void, Never>?
}

/// The host's connection attempt as central: the caller's continuation and the host's timers.
typealias HostConnector = LECentralConnector<CheckedContinuation<Result<LEConnection, HCIError>, Never>, HostTimer>

extension HCIHost {
    /// Connects to a peer as central.
    ///
    /// Sends LE Extended Create Connection when the controller has the extended advertising
    /// feature (else LE Create Connection), own address type random. If no connection is made
    /// within `timeout` (on the host's clock), the attempt is cancelled with LE Create Connection
    /// Cancel and ``HCIError/connectionTimedOut(_:)`` is thrown; cancelling the calling task does
    /// the same with ``HCIError/cancelled``. A `nil` timeout keeps the controller initiating
    /// until the peer shows up or the task is cancelled. One attempt at a time.
    public func connect(
        to peer: BluetoothAddress, parameters: LEConnectionParameters = .default, timeout: Duration? = .seconds(10)
    ) async throws(HCIError) -> LEConnection {
        try ensureOpen()
        guard !connector.isBusy else { throw .busy("a connection attempt is already in progress") }
        let id = newRequestID()
        let extended = !configuration.preferLegacyCommands && (controller?.supports(.extendedAdvertising) ?? false)
        let command: HCICommand =
            extended
            ? .leExtendedCreateConnection(
                peer: peer, ownAddressType: .random, scanInterval: 0x60, scanWindow: 0x60,
                parameters: parameters)
            : .leCreateConnection(
                peer: peer, ownAddressType: .random, scanInterval: 0x60, scanWindow: 0x60,
                parameters: parameters)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<LEConnection, HCIError>, Never>) in
                // Not busy: checked above, with no suspension since.
                _ = connector.begin(id: id, peer: peer, waiter: continuation)
                startBackground { host in await host.beginConnecting(id: id, command: command, timeout: timeout) }
            }
        } onCancel: {
            startBackground { host in await host.cancelConnecting(id: id, error: .cancelled) }
        }
        let connection = try result.get()
        configureNewConnection(connection)
        return connection
    }

    private func beginConnecting(id: UInt64, command: HCICommand, timeout: Duration?) async {
        guard connector.isCurrent(id) else { return }
        do {
            try await executeAccepted(command)
        } catch {
            failConnecting(id: id, error)
            return
        }
        switch connector.accepted(id: id) {
        case .nothing: return
        case .cancel(let error): await cancelConnecting(id: id, error: error)
        case .wait:
            guard let timeout, let peer = connector.attempt?.peer else { return }
            let timer = addDeadline(after: timeout) { host in await host.cancelConnecting(id: id, error: .connectionTimedOut(peer)) }
            if !connector.arm(timer, id: id) { cancelDeadline(timer) }
        }
    }

    /// Cancels an attempt: LE Create Connection Cancel, then wait (bounded) for the controller's
    /// LE Connection Complete; some controllers never send it, so the attempt fails anyway after
    /// the command timeout.
    func cancelConnecting(id: UInt64, error: HCIError) async {
        guard case .sendCancel(let previousTimer) = connector.startCancelling(id: id, error: error) else { return }
        cancelDeadline(previousTimer)
        let bound = addDeadline(after: configuration.commandTimeout) { host in host.failConnecting(id: id, error) }
        if !connector.arm(bound, id: id) { cancelDeadline(bound) }
        do {
            try await execute(.leCreateConnectionCancel)
        } catch {
            // Command Disallowed: no attempt is pending in the controller (it never started, or
            // completed just now; a completion would have arrived before this answer).
            if case .commandFailed = error { failConnecting(id: id, error) }
        }
    }

    /// Ends the attempt (attempt `id`, when given) with `error`.
    func failConnecting(id: UInt64? = nil, _ error: HCIError) {
        guard let attempt = connector.end(id: id) else { return }
        cancelDeadline(attempt.timer)
        attempt.waiter.resume(returning: .failure(error))
    }

    func connectionCompleted(_ complete: LEConnectionComplete) {
        guard complete.status.isSuccess else {
            if case .failed(let waiter, let timer, let error) = connector.completed(status: complete.status) {
                cancelDeadline(timer)
                waiter.resume(returning: .failure(error))
            }
            return
        }
        guard connections[complete.handle] == nil else {
            // A controller fault: replacing the live link would orphan whoever waits on it.
            logger.notice("ignored a Connection Complete for a handle already connected", metadata: ["handle": "\(complete.handle)"])
            return
        }
        let connection = LEConnection(
            complete: complete, host: self, channelBufferSize: configuration.channelBufferSize, localAddress: controller?.randomAddress)
        connections[complete.handle] = ConnectionState(connection: connection)
        l2cap.linkOpened(complete.handle, role: complete.role)
        aclFlow.linkOpened(complete.handle)
        if complete.role == .peripheral {
            guard !advertiser.watchers.isEmpty else {
                unexpectedConnection(handle: complete.handle, role: "peripheral")
                return
            }
            advertiser.accepted(connection)
            return
        }
        // Even if the attempt was being cancelled, the link exists now: hand it over.
        guard case .connected(let waiter, let timer) = connector.completed(status: complete.status) else {
            unexpectedConnection(handle: complete.handle, role: "central")
            return
        }
        cancelDeadline(timer)
        waiter.resume(returning: .success(connection))
    }

    /// Best-effort link set-up after connecting: Data Length Extension and the preferred PHY.
    ///
    /// The commands are queued, not awaited: their outcome arrives as LE Data Length Change and
    /// LE PHY Update Complete (shown in ``LEConnection/parameters``) whenever the link layers
    /// agree, and ATT traffic may start at once, so the connection is handed over without
    /// waiting a controller round trip for them.
    func configureNewConnection(_ connection: LEConnection) {
        guard let controller, connection.disconnectReason == nil else { return }
        let handle = connection.handle
        let dataLength = configuration.requestDataLengthExtension && controller.canExtendDataLength
        let phy = configuration.preferredPHY.flatMap { phy in phy == 0x02 && !controller.supports(.le2MPHY) ? nil : phy }
        guard dataLength || phy != nil else { return }
        connections[handle]?.linkSetUp = tasks.start { [weak self] in
            guard let self else { return }
            await self.setUpLink(handle: handle, dataLength: dataLength, phy: phy)
        }
    }

    private func setUpLink(handle: UInt16, dataLength: Bool, phy: UInt8?) async {
        if dataLength {
            await bestEffort("LE Set Data Length", handle: handle) { host throws(HCIError) in
                try await host.execute(.leSetDataLength(handle: handle, txOctets: 251, txTime: 2120))
            }
        }
        if let phy {
            await bestEffort("LE Set PHY", handle: handle) { host throws(HCIError) in
                try await host.executeAccepted(.leSetPHY(handle: handle, txPHYs: phy, rxPHYs: phy))
            }
        }
        connections[handle]?.linkSetUp = nil
    }

    /// Waits until the host's own set-up of link `handle` has been sent and answered (at once
    /// when there is none), so that a request of the app's comes after it.
    func linkSetUpFinished(handle: UInt16) async {
        await connections[handle]?.linkSetUp?.value
    }

    /// The connections open now, by handle.
    public var openConnections: [LEConnection] { connections.values.map(\.connection) }

    /// Sends HCI Disconnect and waits for Disconnection Complete (bounded by the command timeout).
    /// Whether the link `handle` is connected now (its Disconnection Complete has not come).
    public func isConnected(handle: UInt16) -> Bool { connections[handle] != nil }

    func disconnect(handle: UInt16, reason: HCIStatus) async throws(HCIError) -> HCIStatus {
        guard let state = connections[handle] else {
            throw .disconnected(reason: .unknownConnectionIdentifier)
        }
        let connection = state.connection
        do {
            try await executeAccepted(.disconnect(handle: handle, reason: reason))
        } catch {
            if case .commandFailed(_, .unknownConnectionIdentifier) = error {
                connectionEnded(handle: handle, reason: .connectionTerminatedByLocalHost)
                return connection.disconnectReason ?? .connectionTerminatedByLocalHost
            }
            throw error
        }
        let fallback = addDeadline(after: configuration.commandTimeout) { host in
            host.connectionEnded(handle: handle, reason: .connectionTerminatedByLocalHost)
        }
        let final = await connection.waitUntilDisconnected()
        cancelDeadline(fallback)
        return final ?? .connectionTerminatedByLocalHost
    }

    /// The link is gone: wake everyone waiting on it and drop its queued data.
    func connectionEnded(handle: UInt16, reason: HCIStatus) {
        guard let state = connections.removeValue(forKey: handle) else { return }
        for id in aclFlow.linkClosed(handle) { pduFinished(id, .failure(.disconnected(reason: reason))) }
        finishEncryption(handle: handle, .failure(.disconnected(reason: reason)))
        state.connection.disconnection.set(reason)
        state.connection.att.finish()
        state.connection.securityManager.finish()
        state.connection.finishEncryptionChanges()
        let closed = l2cap.linkClosed(handle)
        for request in closed.requests { requestFailed(request, .disconnected(reason: reason)) }
        carryChannelEvents(closed.channelEvents, on: handle)
        channelLinkClosed(handle, reason: reason)
    }
}
