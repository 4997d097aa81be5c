import Harald
import HaraldATT
import HaraldCodec
import HaraldCore

/// A `ConnectionBackend` over Harald's own GATT client, for every backend that speaks ATT
/// itself: the simulator and the HCI host stack. Only the bearer differs between them.
///
/// Attribute identities are derived from the server's handles (`AttributeID/init(handle:)`):
/// a service's declaration handle, a characteristic's value handle, a descriptor's handle. An
/// operation takes its handle from the identity; a numbered identity (not from a handle) fails
/// with `BluetoothError/notFound(_:)`.
///
/// Changes of the peer's database (Core spec Vol 3 Part G §2.5.2) — a Service Changed indication
/// the connection turned on (see `open(bearer:peripheral:clock:exchangeMTU:watchesServiceChanged:timeout:)`),
/// or Database Out Of Sync answering any request — end the value streams of the characteristics
/// in the changed range with `BluetoothError/serviceChanged(_:)`, forget the CCCDs there, and
/// are reported by ``serviceChanges()``. A request answered Database Out Of Sync throws
/// `.serviceChanged(nil)`: every handle counts as changed.
public final class GATTConnection: ConnectionBackend {
    public let peripheral: PeripheralIdentifier
    /// The GATT client doing the work (its counters report protocol cost).
    public let client: GATTClient
    /// Why the connection ended, once it has (the first reason wins).
    private let signal = Latch<DisconnectReason>()
    /// Characteristic → CCCD handle, learned from descriptor discovery.
    private let cccdHandles = Locked<[AttributeID: UInt16]>([:])
    /// Handle ranges the peer changed since the last service discovery: an operation on an
    /// identity inside one names an attribute that may be gone or moved, and is refused with
    /// ``BluetoothError/serviceChanged(_:)`` until services are discovered again.
    private let staleRanges = Locked(StaleHandleRanges())
    /// The streams of ``serviceChanges()``.
    /// Service Changed indications a ``serviceChanges()`` stream holds for a reader that falls
    /// behind; older ones are dropped (the peer decides how many indications it sends).
    static let changeBufferLimit = 16
    /// The streams ``serviceChanges()`` handed out; all finish when the connection ends.
    private let changes = StreamBroadcast<ServiceChange>(bufferingNewest: changeBufferLimit)
    /// Whether the Service Changed indications are still to be turned on (before the first
    /// service discovery), being turned on, or settled (on, absent, refused, or not wanted).
    private let serviceChangedWatch: Locked<ServiceChangedWatch>
    /// Time elapsed on the connection's clock since it opened.
    private let stopwatch: Stopwatch
    /// Where ``readRSSI(timeout:)`` gets the link's signal strength (the HCI link's Read RSSI,
    /// the simulated link's level); nil when the bearer's owner cannot tell.
    private let rssiSource: RSSISource?

    /// Reads the signal strength of the link under a connection, within a timeout.
    public typealias RSSISource = @Sendable (Duration) async throws(BluetoothError) -> RSSI

    /// Opens a connection-oriented L2CAP channel on the link under a connection (the HCI host's or
    /// the simulated link's credit-based channels), within a timeout.
    public typealias ChannelOpener = @Sendable (L2CAPPSM, L2CAPChannelOptions, Duration) async throws(BluetoothError) -> any L2CAPChannelBackend
    /// Where ``openL2CAPChannel(psm:options:timeout:)`` opens channels; nil when the bearer's owner
    /// has none.
    private let channelOpener: Locked<ChannelOpener?> = Locked(nil)

    /// Lets ``openL2CAPChannel(psm:options:timeout:)`` open channels with `opener` (set once by
    /// the backend that made the connection).
    public func setChannelOpener(_ opener: @escaping ChannelOpener) { channelOpener.withLock { $0 = opener } }

    /// What secures the link, when the backend can (see ``open(bearer:peripheral:clock:exchangeMTU:watchesServiceChanged:timeout:rssiSource:securityManager:raisesSecurityOnDemand:serialDomain:)``).
    private let securityManager: (any LinkSecurityManager)?
    /// Whether a request the peer refuses for lack of security is retried once after raising it.
    private let raisesSecurityOnDemand: Bool

    private enum ServiceChangedWatch { case pending, settingUp, settled }

    private init(
        peripheral: PeripheralIdentifier, client: GATTClient, watchesServiceChanged: Bool, stopwatch: Stopwatch,
        rssiSource: RSSISource?, securityManager: (any LinkSecurityManager)?, raisesSecurityOnDemand: Bool
    ) {
        self.peripheral = peripheral
        self.client = client
        self.rssiSource = rssiSource
        self.securityManager = securityManager
        self.raisesSecurityOnDemand = raisesSecurityOnDemand
        self.serviceChangedWatch = Locked(watchesServiceChanged ? .pending : .settled)
        self.stopwatch = stopwatch
    }

    /// Starts a GATT client on `bearer` and, when `exchangeMTU` is set, raises the ATT_MTU once
    /// (Exchange MTU, offering the bearer's receive MTU).
    ///
    /// With `watchesServiceChanged` (the default) the connection turns on the peer's Service
    /// Changed indications, so it learns when the peer's database changes. That costs requests,
    /// so it happens once, lazily, at the start of the first service discovery — every use of
    /// the peer's attributes begins with one, and a connection that never discovers pays
    /// nothing — and before that discovery's own requests, so no change after the discovery
    /// began can go unnoticed. It is `GATTClient/watchServiceChanged(timeout:)`: Read By
    /// Type 0x2A05 over every handle (the answer, or the Error Response refusing to read the
    /// value, names the value handle; Attribute Not Found means the peer has none), Find
    /// Information after the value for its CCCD, and the CCCD write: three requests on a peer with
    /// Service Changed, one on a peer without. Discovering the Generic Attribute service's
    /// characteristics and descriptors instead costs at least as many, and needs the service
    /// first. A peer that refuses is used without the indications.
    ///
    /// The GATT client runs on `serialDomain`, the link's serial domain (the HCI host over HCI),
    /// which the link's Security Manager and the app's handles share; nil gives the connection a
    /// domain of its own.
    public static func open(
        bearer: any ATTBearer, peripheral: PeripheralIdentifier, clock: any Clock<Duration>,
        exchangeMTU: Bool = true, watchesServiceChanged: Bool = true, timeout: Duration = .seconds(30), rssiSource: RSSISource? = nil,
        securityManager: (any LinkSecurityManager)? = nil, raisesSecurityOnDemand: Bool = true, serialDomain: (any Actor)? = nil
    ) async throws(BluetoothError) -> GATTConnection {
        let client = GATTClient(bearer: bearer, clock: clock, configuration: .init(defaultTimeout: timeout), serialDomain: serialDomain)
        let connection = GATTConnection(
            peripheral: peripheral, client: client, watchesServiceChanged: watchesServiceChanged, stopwatch: Stopwatch(clock),
            rssiSource: rssiSource, securityManager: securityManager, raisesSecurityOnDemand: raisesSecurityOnDemand)
        // A sink on handle 0 (never a valid attribute, so never in a changed range) is finished
        // when the bearer closes.
        let (signal, changes) = (connection.signal, connection.changes)
        _ = await client.addSink(
            GATTClient.ValueSink(
                deliver: { _ in true },
                finish: { end in
                    guard case .closed(let reason) = end else { return }
                    signal.set(GATTConnection.reason(for: reason))
                    changes.finish()
                }), handle: 0)
        let (cccdHandles, staleRanges) = (connection.cccdHandles, connection.staleRanges)
        await client.observeDatabaseChanges { range in
            staleRanges.withLock { $0.add(range) }
            cccdHandles.withLock { known in
                known = known.filter { characteristic, cccd in
                    !range.contains(cccd) && !(characteristic.handle.map(range.contains) ?? false)
                }
            }
            changes.yield(ServiceChange(handles: range))
        }
        if exchangeMTU {
            do { _ = try await client.exchangeMTU(timeout: timeout) } catch { throw await connection.translate(error, "MTU exchange", timeout) }
        }
        return connection
    }

    public func mtu() async -> Int { await client.mtu }

    /// The link's serial domain: the GATT client's (see `SerialDomain`).
    public var serialDomain: (any Actor)? { client.serialDomain }

    /// What secures the link, when the backend gave one (for tests).
    package var linkSecurity: (any LinkSecurityManager)? { securityManager }

    /// Changes of the peer's database from now on; see the type's description.
    public func serviceChanges() -> AsyncStream<ServiceChange> { changes.makeStream() }

    public func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration) async throws(BluetoothError) -> [DiscoveredService] {
        let timeout = try await watchServiceChangedOnce(timeout: timeout)
        // Identities from this discovery on name the database as it is now.
        let staleBefore = staleRanges.withLock { $0.latestChange }
        let found: [GATTService]
        do {
            if let uuids, uuids.count == 1 {
                found = try await client.discoverPrimaryServices(uuid: uuids[0], timeout: timeout)
            } else {
                // One pass over every service is cheaper than one search per wanted UUID.
                let all = try await client.discoverPrimaryServices(timeout: timeout)
                found = uuids.map { wanted in all.filter { wanted.contains($0.uuid) } } ?? all
            }
        } catch { throw await translate(error, "service discovery", timeout) }
        // A change that arrived during this discovery keeps its range stale.
        staleRanges.withLock { $0.clear(through: staleBefore) }
        return found.map {
            DiscoveredService(id: AttributeID(handle: $0.handles.start), uuid: $0.uuid, isPrimary: $0.isPrimary, handles: $0.handles)
        }
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration) async throws(BluetoothError)
        -> [DiscoveredCharacteristic]
    {
        let found: [GATTCharacteristic]
        let target = try gattService(service)
        do { found = try await client.discoverCharacteristics(of: target, timeout: timeout) } catch {
            throw await translate(error, "characteristic discovery", timeout)
        }
        // The procedure finds every characteristic of the service whatever was asked, so all of
        // them are returned: a later use of an undeclared one then costs no second discovery.
        return found.map { discovered($0, in: service) }
    }

    /// One Read By Type sweep over every service (`GATTClient/discoverCharacteristics(ofAll:timeout:)`).
    public func discoverCharacteristics(ofAll services: [DiscoveredService], timeout: Duration) async throws(BluetoothError) -> [[DiscoveredCharacteristic]] {
        let found: [[GATTCharacteristic]]
        let targets = try services.map(gattService)
        do { found = try await client.discoverCharacteristics(ofAll: targets, timeout: timeout) } catch {
            throw await translate(error, "characteristic discovery", timeout)
        }
        return zip(services, found).map { service, characteristics in characteristics.map { discovered($0, in: service) } }
    }

    public func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [DiscoveredDescriptor] {
        let found: [GATTDescriptor]
        let target = try gattCharacteristic(characteristic)
        do { found = try await client.discoverDescriptors(of: target, timeout: timeout) } catch {
            throw await translate(error, "descriptor discovery", timeout)
        }
        return discovered(found, of: characteristic)
    }

    /// One Find Information sweep over every characteristic (`GATTClient/discoverDescriptors(ofAll:timeout:)`).
    public func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError)
        -> [[DiscoveredDescriptor]]
    {
        let found: [[GATTDescriptor]]
        let targets = try characteristics.map(gattCharacteristic)
        do { found = try await client.discoverDescriptors(ofAll: targets, timeout: timeout) } catch {
            throw await translate(error, "descriptor discovery", timeout)
        }
        return zip(characteristics, found).map { characteristic, descriptors in discovered(descriptors, of: characteristic) }
    }

    /// Read Multiple Variable batches (`GATTClient/readValues(handles:timeout:)`).
    public func read(_ characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError) -> [Result<[UInt8], BluetoothError>] {
        let found: [Result<[UInt8], GATTError>]
        let handles = try characteristics.map { (characteristic) throws(BluetoothError) in
            try self.liveHandle(of: characteristic.id, characteristic.uuid)
        }
        do { found = try await client.readValues(handles: handles, timeout: timeout) } catch {
            throw await translate(error, "read of \(characteristics.count) characteristics", timeout)
        }
        return found.map { result in
            result.mapError { error in
                if case let .attribute(code, handle, _) = error { return BluetoothError.attribute(code, on: Self.attribute(at: handle)) }
                if case let .protocolViolation(violation) = error { return Self.violation(violation) }
                return BluetoothError.protocolViolation(error.description)
            }
        }
    }

    public func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        let handle = try liveHandle(of: characteristic.id, characteristic.uuid)
        return try await securingOnDemand(timeout: timeout) { () async throws(BluetoothError) -> [UInt8] in
            do throws(GATTError) { return try await client.readLong(handle: handle, timeout: timeout) } catch {
                throw await translate(error, "read of \(characteristic.uuid)", timeout)
            }
        }
    }

    public func write(_ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration) async throws(BluetoothError) {
        let handle = try liveHandle(of: characteristic.id, characteristic.uuid)
        try await securingOnDemand(timeout: timeout) { () async throws(BluetoothError) in
            try await write(value, handle: handle, uuid: characteristic.uuid, kind: kind, timeout: timeout)
        }
    }

    private func write(_ value: [UInt8], handle: UInt16, uuid: BluetoothUUID, kind: WriteKind, timeout: Duration) async throws(BluetoothError) {
        do {
            switch kind {
            case .withoutResponse:
                try await client.writeWithoutResponse(handle: handle, value: value)
            case .withResponse:
                if value.count <= (await client.mtu) - 3 {
                    try await client.write(handle: handle, value: value, timeout: timeout)
                } else {
                    try await client.writeLong(handle: handle, value: value, timeout: timeout)
                }
            }
        } catch { throw await translate(error, "write to \(uuid)", timeout) }
    }

    public func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        let handle = try liveHandle(of: descriptor.id, descriptor.uuid)
        return try await securingOnDemand(timeout: timeout) { () async throws(BluetoothError) -> [UInt8] in
            do throws(GATTError) { return try await client.readLong(handle: handle, timeout: timeout) } catch {
                throw await translate(error, "read of descriptor \(descriptor.uuid)", timeout)
            }
        }
    }

    public func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) {
        let handle = try liveHandle(of: descriptor.id, descriptor.uuid)
        try await securingOnDemand(timeout: timeout) { () async throws(BluetoothError) in
            do throws(GATTError) { try await client.write(handle: handle, value: value, timeout: timeout) } catch {
                throw await translate(error, "write to descriptor \(descriptor.uuid)", timeout)
            }
        }
    }

    // MARK: Security

    /// The link's security from the security manager; nil without one.
    public func security() async -> LinkSecurity? { await securityManager?.currentSecurity() }

    /// Encrypts with the bond's key, else pairs, through the security manager.
    public func secure(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        guard let securityManager else { throw .unsupported("securing this link (no security manager)") }
        return try await securityManager.raiseSecurity(for: .insufficientEncryption, timeout: timeout)
    }

    /// Pairs now through the security manager, replacing the bond's keys.
    public func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        guard let securityManager else { throw .unsupported("pairing on this link (no security manager)") }
        return try await securityManager.pair(timeout: timeout)
    }

    /// Opens an L2CAP channel through the backend's opener. A refusal for lack of security
    /// (insufficient authentication, encryption or key size) raises the link's security through
    /// the security manager and asks once more, as a GATT request does.
    public func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration) async throws(BluetoothError)
        -> any L2CAPChannelBackend
    {
        guard let opener = channelOpener.withLock({ $0 }) else { throw .unsupported("L2CAP channels on this link") }
        let started = stopwatch.elapsed
        do {
            return try await opener(psm, options, timeout)
        } catch {
            guard raisesSecurityOnDemand, let securityManager, case let .channelRefused(refusal) = error, refusal.requiresPairing else { throw error }
            let code: ATTErrorCode =
                switch refusal {
                case .insufficientEncryption: .insufficientEncryption
                case .insufficientEncryptionKeySize: .encryptionKeySizeTooShort
                default: .insufficientAuthentication
                }
            _ = try await securityManager.raiseSecurity(for: code, timeout: timeout)
            let left = timeout - (stopwatch.elapsed - started)
            guard left > .zero else { throw .timeout(operation: "opening an L2CAP channel", after: timeout) }
            return try await opener(psm, options, left)
        }
    }

    /// Runs `operation`; when the peer refuses it for lack of security (0x05, 0x0F, 0x0C) and a
    /// security manager is there, raises the link's security and runs it once more, as phones
    /// do. The retry gets the same timeout; the raising is bounded by the SMP timeouts.
    private func securingOnDemand<T>(
        timeout: Duration, _ operation: () async throws(BluetoothError) -> T
    ) async throws(BluetoothError) -> T {
        do {
            return try await operation()
        } catch {
            guard raisesSecurityOnDemand, let securityManager, case let .attribute(code, _) = error, code.requiresPairing else { throw error }
            _ = try await securityManager.raiseSecurity(for: code, timeout: timeout)
            return try await operation()
        }
    }

    public func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) {
        var cccd = cccdHandles.withLock { $0[characteristic.id] }
        if cccd == nil {
            _ = try await discoverDescriptors(of: characteristic, timeout: timeout)
            cccd = cccdHandles.withLock { $0[characteristic.id] }
        }
        guard let cccd else { throw BluetoothError.notFound("CCCD of \(characteristic.uuid)") }
        let configuration: ClientCharacteristicConfiguration =
            !enabled ? [] : characteristic.properties.contains(.notify) ? .notifications : .indications
        try await securingOnDemand(timeout: timeout) { () async throws(BluetoothError) in
            do throws(GATTError) { try await client.configureNotifications(cccdHandle: cccd, configuration, timeout: timeout) } catch {
                throw await translate(error, "CCCD write for \(characteristic.uuid)", timeout)
            }
        }
    }

    /// A numbered identity (not from a handle) names nothing here: its stream finishes at once.
    public func valueUpdates(for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering) async -> ValueUpdates {
        let (updates, continuation) = ValueUpdates.makeStream(buffering: buffering)
        guard let handle = characteristic.id.handle else {
            continuation.finish()
            return updates
        }
        let sink = GATTClient.ValueSink(
            deliver: { continuation.yield($0.value) },
            finish: { end in
                switch end {
                case .closed(let reason): continuation.finish(throwing: .disconnected(GATTConnection.reason(for: reason)))
                case .attributesChanged: continuation.finish(throwing: .serviceChanged(AttributeID(handle: handle)))
                }
            })
        let client = self.client
        // A sink whose consumer has gone away is removed the next time a value arrives for it.
        _ = await client.addSink(sink, handle: handle)
        return updates
    }

    public func maximumWriteLength(for kind: WriteKind) async -> Int {
        let mtu = await client.mtu
        return kind == .withoutResponse ? mtu - 3 : ATT.maximumValueLength
    }

    /// The link's signal strength, from the RSSI source given at `open(bearer:peripheral:clock:exchangeMTU:watchesServiceChanged:timeout:rssiSource:)`;
    /// `BluetoothError/unsupported(_:)` without one.
    public func readRSSI(timeout: Duration) async throws(BluetoothError) -> RSSI {
        guard let rssiSource else { throw .unsupported("reading the RSSI of this link") }
        if let reason = signal.current { throw .disconnected(reason) }
        return try await rssiSource(timeout)
    }

    public func disconnection() async -> DisconnectReason { await signal.wait(ifCancelled: .other("cancelled")) }

    /// Counted by the GATT client: every PDU this connection sent and received.
    public func protocolCost() async -> ProtocolCost? { ProtocolCost(await client.counters) }

    /// The GATT client's: the bearer's (`ATTBearer/taskStarter`), so on the simulator the
    /// simulation's.
    public var taskStarter: TaskStarter { client.taskStarter }

    public func disconnect() async {
        signal.set(.localRequest)
        await client.disconnect()
    }

    // MARK: Internals

    /// Turns the Service Changed indications on if that is still to be done (see
    /// ``open(bearer:peripheral:clock:exchangeMTU:watchesServiceChanged:timeout:)``) and returns
    /// what is left of `timeout` for the discovery. A discovery that runs while another sets
    /// them up does not wait for it. A timeout or cancellation fails the discovery and leaves the
    /// set-up to the next one; a peer without Service Changed, or one that refuses it, is used
    /// without.
    private func watchServiceChangedOnce(timeout: Duration) async throws(BluetoothError) -> Duration {
        let claimed = serviceChangedWatch.withLock { state in
            guard state == .pending else { return false }
            state = .settingUp
            return true
        }
        guard claimed else { return timeout }
        let started = stopwatch.elapsed
        var outcome = ServiceChangedWatch.settled
        defer { serviceChangedWatch.withLock { $0 = outcome } }
        do {
            try await client.watchServiceChanged(timeout: timeout)
        } catch {
            switch error {
            case .timeout, .cancelled:
                outcome = .pending
                throw await translate(error, "service discovery", timeout)
            case .disconnected:
                throw await translate(error, "service discovery", timeout)
            case .attribute(.databaseOutOfSync, _, _):
                // Everything counts as changed already; the next discovery tries again.
                outcome = .pending
            default:
                break
            }
        }
        let left = timeout - (stopwatch.elapsed - started)
        guard left > .zero else { throw BluetoothError.timeout(operation: "service discovery", after: timeout) }
        return left
    }

    /// The handle an identity was derived from.
    private static func handle(of id: AttributeID, _ uuid: BluetoothUUID) throws(BluetoothError) -> UInt16 {
        guard let handle = id.handle else { throw .notFound("\(uuid) as \(id) (not an attribute of this connection)") }
        return handle
    }

    /// The handle of an identity an operation is about to use; refused when the peer changed
    /// the handles around it since the last service discovery.
    private func liveHandle(of id: AttributeID, _ uuid: BluetoothUUID) throws(BluetoothError) -> UInt16 {
        let handle = try Self.handle(of: id, uuid)
        if staleRanges.withLock({ $0.contains(handle) }) { throw .serviceChanged(id) }
        return handle
    }

    /// The attribute an ATT Error Response names; nil for handle 0x0000 (no attribute).
    static func attribute(at handle: UInt16) -> AttributeID? {
        handle == 0 ? nil : AttributeID(handle: handle)
    }

    private func gattService(_ service: DiscoveredService) throws(BluetoothError) -> GATTService {
        let start = try liveHandle(of: service.id, service.uuid)
        guard let handles = service.handles, handles.start == start else {
            throw .notFound("service \(service.uuid) as \(service.id) (its handle range is unknown)")
        }
        return GATTService(uuid: service.uuid, handles: handles, isPrimary: service.isPrimary)
    }

    private func discovered(_ characteristic: GATTCharacteristic, in service: DiscoveredService) -> DiscoveredCharacteristic {
        DiscoveredCharacteristic(
            id: AttributeID(handle: characteristic.valueHandle), uuid: characteristic.uuid, service: service.uuid,
            properties: CharacteristicProperties(rawValue: characteristic.properties.rawValue),
            valueHandle: characteristic.valueHandle, endHandle: characteristic.endHandle)
    }

    /// The public descriptors, remembering the CCCD's handle for ``setNotifications(_:for:timeout:)``.
    private func discovered(_ descriptors: [GATTDescriptor], of characteristic: DiscoveredCharacteristic) -> [DiscoveredDescriptor] {
        if let cccd = descriptors.first(where: { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }) {
            cccdHandles.withLock { $0[characteristic.id] = cccd.handle }
        }
        return descriptors.map {
            DiscoveredDescriptor(id: AttributeID(handle: $0.handle), uuid: $0.uuid, handle: $0.handle, characteristicID: characteristic.id)
        }
    }

    private func gattCharacteristic(_ characteristic: DiscoveredCharacteristic) throws(BluetoothError) -> GATTCharacteristic {
        let value = try liveHandle(of: characteristic.id, characteristic.uuid)
        guard let end = characteristic.endHandle, value > 0, end >= value else {
            throw .notFound("characteristic \(characteristic.uuid) as \(characteristic.id) (its end handle is unknown)")
        }
        // The value attribute always follows its declaration (Core spec Vol 3 Part G §3.3).
        return GATTCharacteristic(
            uuid: characteristic.uuid, properties: CharacteristicProperties(rawValue: characteristic.properties.rawValue),
            declarationHandle: value - 1, valueHandle: value, endHandle: end)
    }

    /// The public error for a GATT client failure.
    func translate(_ error: GATTError, _ operation: String, _ timeout: Duration) async -> BluetoothError {
        switch error {
        case .attribute(.databaseOutOfSync, _, _): return BluetoothError.serviceChanged(nil)
        case let .attribute(code, handle, _): return BluetoothError.attribute(code, on: Self.attribute(at: handle))
        case .timeout: return BluetoothError.timeout(operation: operation, after: timeout)
        case .cancelled: return BluetoothError.cancelled
        case .disconnected:
            let reason = await Self.reason(for: client.closeReason)
            signal.set(reason)
            return BluetoothError.disconnected(signal.current ?? reason)
        case .unexpectedResponse, .invalidResponse: return BluetoothError.protocolViolation(error.description)
        case let .protocolViolation(violation): return Self.violation(violation)
        case .invalidArgument: return BluetoothError.notPermitted(error.description)
        case .reliableWriteMismatch, .procedureInProgress: return BluetoothError.backend(error.description)
        }
    }

    /// The public error for a rule of ATT or GATT the peer broke (the client closed the link).
    static func violation(_ violation: ATTProtocolViolation) -> BluetoothError {
        BluetoothError.protocolViolation(violation.description, handle: violation.handle)
    }

    static func reason(for close: ATTCloseReason?) -> DisconnectReason {
        switch close {
        case let .protocolViolation(detail): .protocolViolation(detail)
        case .closedLocally: .localRequest
        case .closedByPeer: .remoteRequest
        case .transactionTimeout: .attTimeout
        case let .linkLost(code): code.map(DisconnectReason.init(hciReason:)) ?? .connectionLost
        case nil: .connectionLost
        }
    }
}
