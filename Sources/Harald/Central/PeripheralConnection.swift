import Foundation
import HaraldCodec
import HaraldCore
import Logging

/// A connection to one peripheral, with typed reads, writes and subscriptions.
///
/// Services and characteristics are discovered lazily, the first time the app touches them, and
/// only those the app declared (``ServiceSpec``) unless a tool asks for ``discoverAll(timeout:)``.
/// Every operation takes a timeout (``defaultTimeout`` unless given) and honours task
/// cancellation; once the link is gone every operation fails with
/// ``BluetoothError/disconnected(_:)``.
public actor PeripheralConnection {
    /// The peripheral at the other end.
    public nonisolated let peripheral: PeripheralIdentifier
    /// Timeout for operations that are not given one.
    public var defaultTimeout: Duration

    nonisolated let backend: any ConnectionBackend
    /// The clock the connection's timeouts run on (the simulation's virtual clock in a simulator).
    public nonisolated let clock: any Clock<Duration>
    /// Where this connection logs (operations at `trace`, failures at `debug`). Values are never
    /// logged, only their sizes, so secrets such as authentication keys stay out of logs.
    public nonisolated let logger: Logger
    /// Where code working on this connection starts its background tasks: device kits start their
    /// notification readers and clean-ups with it, so that on the simulator they run in the
    /// simulation (``ConnectionBackend/taskStarter``).
    public nonisolated var taskStarter: TaskStarter { backend.taskStarter }
    private var declared: [BluetoothUUID: ServiceSpec]
    private var services: [BluetoothUUID: DiscoveredService] = [:]
    private var discoveredAllServices = false
    private var characteristicsByService: [BluetoothUUID: [DiscoveredCharacteristic]] = [:]
    /// Per service, which characteristics were asked of the backend so far.
    private var askedCharacteristics: [BluetoothUUID: CharacteristicsAsked] = [:]
    private var subscriptionCounts: [AttributeID: Int] = [:]
    /// Subscriptions whose consumers went away, waiting for their CCCD to be turned off at the
    /// connection's next operation (a termination handler cannot call into the actor without
    /// starting a task).
    private let released = Locked<[DiscoveredCharacteristic]>([])

    init(
        backend: any ConnectionBackend, services: [ServiceSpec], clock: any Clock<Duration>, defaultTimeout: Duration,
        logger: Logger = Logger(label: "harald.connection")
    ) {
        self.backend = backend
        self.logger = logger
        self.peripheral = backend.peripheral
        self.clock = clock
        self.defaultTimeout = defaultTimeout
        self.declared = Dictionary(services.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Changes the timeout used by operations that are not given one.
    public func setDefaultTimeout(_ timeout: Duration) { defaultTimeout = timeout }

    // MARK: Discovery

    /// Declares more services the app will use (their characteristics are discovered on first use).
    public func declare(_ services: [ServiceSpec]) {
        for service in services where declared[service.uuid] == nil { declared[service.uuid] = service }
    }

    /// Discovers the given services and their characteristics now, instead of on first use.
    /// Throws ``BluetoothError/notFound(_:)`` when a service is missing.
    public func prepare(_ services: [ServiceSpec], timeout: Duration? = nil) async throws(BluetoothError) {
        try await withBluetoothErrors {
            declare(services)
            let timeout = timeout ?? defaultTimeout
            for spec in services {
                try await discoverCharacteristics(including: nil, of: spec.uuid, timeout: timeout)
            }
        }
    }

    /// Discovers every primary service and characteristic (for tools such as `harald dump`).
    ///
    /// On ATT backends the characteristics of all services come from one Read By Type sweep over
    /// the handles the services span, rather than one search per service.
    public func discoverAll(timeout: Duration? = nil) async throws(BluetoothError) -> [(service: DiscoveredService, characteristics: [DiscoveredCharacteristic])] {
        try await withBluetoothErrors {
            let timeout = timeout ?? defaultTimeout
            let found = try await backend.discoverServices(nil, timeout: timeout)
            discoveredAllServices = true
            let characteristics = try await backend.discoverCharacteristics(ofAll: found, timeout: timeout)
            var tree: [(DiscoveredService, [DiscoveredCharacteristic])] = []
            for (service, serviceCharacteristics) in zip(found, characteristics) {
                if services[service.uuid] == nil { services[service.uuid] = service }
                if service == services[service.uuid] {
                    characteristicsByService[service.uuid] = serviceCharacteristics
                    askedCharacteristics[service.uuid] = .all
                }
                tree.append((service, serviceCharacteristics))
            }
            return tree
        }
    }

    /// The descriptors of a discovered characteristic (for tools).
    public func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration? = nil) async throws(BluetoothError) -> [DiscoveredDescriptor] {
        try await withBluetoothErrors {
            try await backend.discoverDescriptors(of: characteristic, timeout: timeout ?? defaultTimeout)
        }
    }

    /// The descriptors of many discovered characteristics, one list per characteristic in the
    /// given order (for tools). On ATT backends one Find Information sweep covers them all.
    public func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration? = nil) async throws(BluetoothError)
        -> [[DiscoveredDescriptor]]
    {
        try await withBluetoothErrors {
            try await backend.discoverDescriptors(ofAll: characteristics, timeout: timeout ?? defaultTimeout)
        }
    }

    /// The discovered characteristic `uuid` of service `serviceUUID`, discovering what is needed.
    public func characteristic(_ uuid: BluetoothUUID, service serviceUUID: BluetoothUUID, timeout: Duration? = nil) async throws(BluetoothError)
        -> DiscoveredCharacteristic
    {
        try await withBluetoothErrors {
            try await releaseAbandonedSubscriptions()
            let timeout = timeout ?? defaultTimeout
            if let known = characteristicsByService[serviceUUID]?.first(where: { $0.uuid == uuid }) { return known }
            try await discoverCharacteristics(including: uuid, of: serviceUUID, timeout: timeout)
            guard let found = characteristicsByService[serviceUUID]?.first(where: { $0.uuid == uuid }) else {
                throw BluetoothError.notFound("characteristic \(uuid) in service \(serviceUUID)")
            }
            return found
        }
    }

    /// Discovers the characteristics of `serviceUUID` that have not been asked for yet: the ones
    /// its ``ServiceSpec`` declares (all of them when it declares none), plus `uuid`.
    ///
    /// CoreBluetooth discovers only what it is asked for, which saves radio time on large
    /// services; ATT backends find the declared ones with one procedure either way. A later use
    /// of an undeclared characteristic asks for just that one.
    private func discoverCharacteristics(including uuid: BluetoothUUID?, of serviceUUID: BluetoothUUID, timeout: Duration) async throws {
        guard case let .some(askedSoFar) = askedCharacteristics[serviceUUID, default: .some([])] else { return }
        let declaredUUIDs = declared[serviceUUID]?.characteristics ?? []
        var wanted: [BluetoothUUID]?
        if characteristicsByService[serviceUUID] == nil {
            wanted = declaredUUIDs.isEmpty ? nil : declaredUUIDs + (uuid.map { declaredUUIDs.contains($0) ? [] : [$0] } ?? [])
        } else if let uuid, !askedSoFar.contains(uuid) {
            wanted = [uuid]
        } else {
            return
        }
        let service = try await discoveredService(serviceUUID, timeout: timeout)
        let found = try await backend.discoverCharacteristics(wanted, of: service, timeout: timeout)
        var known = characteristicsByService[serviceUUID] ?? []
        for characteristic in found where !known.contains(characteristic) { known.append(characteristic) }
        characteristicsByService[serviceUUID] = known
        askedCharacteristics[serviceUUID] = wanted.map { .some(askedSoFar.union($0)) } ?? .all
    }

    private func discoveredService(_ uuid: BluetoothUUID, timeout: Duration) async throws -> DiscoveredService {
        if let known = services[uuid] { return known }
        if !discoveredAllServices {
            // Discover every declared service not yet known in one go, plus this one.
            var wanted = Set(declared.keys).subtracting(services.keys)
            wanted.insert(uuid)
            let found = try await backend.discoverServices(wanted.sorted(), timeout: timeout)
            for service in found where services[service.uuid] == nil { services[service.uuid] = service }
        }
        guard let service = services[uuid] else { throw BluetoothError.notFound("service \(uuid)") }
        return service
    }

    private func resolve<V, A>(_ characteristic: Characteristic<V, A>, timeout: Duration?) async throws -> DiscoveredCharacteristic {
        try await self.characteristic(characteristic.uuid, service: characteristic.service, timeout: timeout)
    }

    // MARK: Typed operations

    /// Reads and decodes a characteristic's value.
    public func read<Value: ByteDecodable & Sendable, Access: ReadAccess>(
        _ characteristic: Characteristic<Value, Access>, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Value {
        try await withBluetoothErrors {
            let bytes = try await readRaw(characteristic, timeout: timeout)
            return try Value(decoding: bytes)  // a ByteDecodingError becomes BluetoothError.decoding
        }
    }

    /// Encodes and writes a value, waiting for the peripheral's acknowledgement.
    public func write<Value: ByteEncodable & Sendable, Access: WriteAccess>(
        _ value: Value, to characteristic: Characteristic<Value, Access>, timeout: Duration? = nil
    ) async throws(BluetoothError) {
        try await withBluetoothErrors {
            try await writeRaw(try encode(value), to: characteristic, kind: .withResponse, timeout: timeout)
        }
    }

    /// Encodes and writes a value without acknowledgement. Waits while the backend is not ready
    /// to send instead of dropping the value.
    public func writeWithoutResponse<Value: ByteEncodable & Sendable, Access: WriteWithoutResponseAccess>(
        _ value: Value, to characteristic: Characteristic<Value, Access>, timeout: Duration? = nil
    ) async throws(BluetoothError) {
        try await withBluetoothErrors {
            try await writeRaw(try encode(value), to: characteristic, kind: .withoutResponse, timeout: timeout)
        }
    }

    /// Turns on notifications (or indications) and returns the decoded values as they arrive.
    public func subscribe<Value: ByteDecodable & Sendable, Access: SubscribeAccess>(
        _ characteristic: Characteristic<Value, Access>, buffering: UpdateBuffering = .default,
        onDecodingFailure: DecodingFailurePolicy = .skip, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Subscription<Value> {
        try await withBluetoothErrors {
            let found = try await resolve(characteristic, timeout: timeout)
            return try await subscribe(found, as: Value.self, buffering: buffering, onDecodingFailure: onDecodingFailure, timeout: timeout)
        }
    }

    /// Writes a command and returns the first value the peripheral then notifies on the response
    /// characteristic. Subscribes before writing, so a fast answer is not missed.
    public func request<Command: ByteEncodable & Sendable, W: WriteAccess, Response: ByteDecodable & Sendable, S: SubscribeAccess>(
        write command: Command, to commandCharacteristic: Characteristic<Command, W>,
        response responseCharacteristic: Characteristic<Response, S>, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Response {
        try await withBluetoothErrors {
            let timeout = timeout ?? defaultTimeout
            let subscription = try await subscribe(responseCharacteristic, onDecodingFailure: .fail, timeout: timeout)
            defer { unsubscribeLater(subscription) }
            try await write(command, to: commandCharacteristic, timeout: timeout)
            return try await withTimeout(timeout, clock: clock, operation: "response on \(responseCharacteristic.uuid)") {
                var iterator = subscription.makeAsyncIterator()
                guard let response = try await iterator.next() else {
                    throw BluetoothError.notFound("\(responseCharacteristic.uuid) stopped notifying")
                }
                return response
            }
        }
    }

    /// Ends a subscription: its loop finishes normally, and notifications are turned off when it
    /// was the characteristic's last subscription.
    public func unsubscribe<Value>(_ subscription: Subscription<Value>, timeout: Duration? = nil) async throws(BluetoothError) {
        try await withBluetoothErrors {
            unsubscribeLater(subscription)
            try await releaseAbandonedSubscriptions(timeout: timeout)
        }
    }

    // MARK: Raw operations (for tools)

    /// Reads a characteristic's raw bytes.
    public func readRaw<V, Access: ReadAccess>(_ characteristic: Characteristic<V, Access>, timeout: Duration? = nil) async throws(BluetoothError) -> [UInt8] {
        try await withBluetoothErrors {
            let found = try await resolve(characteristic, timeout: timeout)
            return try await readRaw(found, timeout: timeout)
        }
    }

    /// Reads a discovered characteristic's raw bytes.
    public func readRaw(_ characteristic: DiscoveredCharacteristic, timeout: Duration? = nil) async throws(BluetoothError) -> [UInt8] {
        try await withBluetoothErrors {
            try await releaseAbandonedSubscriptions()
            guard characteristic.properties.contains(.read) else {
                throw BluetoothError.notPermitted("\(characteristic.uuid) is not readable")
            }
            logger.trace("read", metadata: ["uuid": "\(characteristic.uuid)"])
            do {
                let value = try await backend.read(characteristic, timeout: timeout ?? defaultTimeout)
                logger.trace("read done", metadata: ["uuid": "\(characteristic.uuid)", "bytes": "\(value.count)"])
                return value
            } catch {
                logger.debug("read failed", metadata: ["uuid": "\(characteristic.uuid)", "error": "\(error)"])
                throw error
            }
        }
    }

    /// Reads the raw values of many discovered characteristics in as few round trips as the
    /// backend allows (on ATT backends: Read Multiple Variable batches filling the ATT_MTU,
    /// Read Blob for values they truncate, single reads when the peripheral does not support
    /// batches; other backends read one at a time).
    ///
    /// Returns one result per characteristic, in the given order: the whole value, or the error
    /// for that characteristic alone — ``BluetoothError/attribute(_:on:)`` when the
    /// peripheral refused it, ``BluetoothError/notPermitted(_:)`` when its properties lack read.
    /// Failures of the connection (disconnection, timeout, cancellation) are thrown.
    public func readRawValues(of characteristics: [DiscoveredCharacteristic], timeout: Duration? = nil) async throws(BluetoothError)
        -> [Result<[UInt8], BluetoothError>]
    {
        try await withBluetoothErrors {
            try await releaseAbandonedSubscriptions()
            var results = characteristics.map { characteristic -> Result<[UInt8], BluetoothError> in
                characteristic.properties.contains(.read) ? .success([]) : .failure(.notPermitted("\(characteristic.uuid) is not readable"))
            }
            let readable = characteristics.indices.filter { characteristics[$0].properties.contains(.read) }
            guard !readable.isEmpty else { return results }
            logger.trace("read values", metadata: ["count": "\(readable.count)"])
            let values: [Result<[UInt8], BluetoothError>]
            do {
                values = try await backend.read(readable.map { characteristics[$0] }, timeout: timeout ?? defaultTimeout)
            } catch {
                logger.debug("read values failed", metadata: ["count": "\(readable.count)", "error": "\(error)"])
                throw error
            }
            guard values.count == readable.count else {
                throw BluetoothError.backend("\(values.count) results for \(readable.count) reads")
            }
            for (index, value) in zip(readable, values) { results[index] = value }
            return results
        }
    }

    /// Writes raw bytes to a characteristic.
    public func writeRaw<V, Access>(
        _ bytes: [UInt8], to characteristic: Characteristic<V, Access>, kind: WriteKind, timeout: Duration? = nil
    ) async throws(BluetoothError) {
        try await withBluetoothErrors {
            let found = try await resolve(characteristic, timeout: timeout)
            try await writeRaw(bytes, to: found, kind: kind, timeout: timeout)
        }
    }

    /// Writes raw bytes to a discovered characteristic.
    public func writeRaw(_ bytes: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration? = nil) async throws(BluetoothError) {
        try await withBluetoothErrors {
            try await releaseAbandonedSubscriptions()
            let permitted = kind == .withResponse
                ? characteristic.properties.contains(.write) : characteristic.properties.contains(.writeWithoutResponse)
            guard permitted else { throw BluetoothError.notPermitted("\(characteristic.uuid) does not accept \(kind)") }
            logger.trace("write", metadata: ["uuid": "\(characteristic.uuid)", "bytes": "\(bytes.count)", "kind": "\(kind)"])
            do {
                try await backend.write(bytes, to: characteristic, kind: kind, timeout: timeout ?? defaultTimeout)
            } catch {
                logger.debug("write failed", metadata: ["uuid": "\(characteristic.uuid)", "error": "\(error)"])
                throw error
            }
        }
    }

    /// Subscribes to a discovered characteristic, decoding values as `Value` (`[UInt8]` for raw).
    public func subscribe<Value: ByteDecodable & Sendable>(
        _ characteristic: DiscoveredCharacteristic, as: Value.Type, buffering: UpdateBuffering = .default,
        onDecodingFailure: DecodingFailurePolicy = .skip, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Subscription<Value> {
        try await withBluetoothErrors {
            try await releaseAbandonedSubscriptions()
            guard characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate) else {
                throw BluetoothError.notPermitted("\(characteristic.uuid) neither notifies nor indicates")
            }
            let id = characteristic.id
            // Open the stream before enabling, so nothing sent right after the CCCD write is lost.
            let updates = await backend.valueUpdates(for: characteristic, buffering: buffering)
            let ended = EndFlag(false)
            let subscription = Subscription<Value>(
                updates: updates, failures: FailureCounter(DecodingFailures()), policy: onDecodingFailure, ended: ended)
            if (subscriptionCounts[id] ?? 0) == 0 {
                try await backend.setNotifications(true, for: characteristic, timeout: timeout ?? defaultTimeout)
            }
            subscriptionCounts[id, default: 0] += 1
            updates.onEnd { [released] in released.withLock { $0.append(characteristic) } }
            return subscription
        }
    }

    // MARK: Connection

    /// The ATT_MTU in effect.
    public func mtu() async -> Int { await backend.mtu() }

    /// Waits until the connection ends and returns why.
    public func disconnection() async -> DisconnectReason { await backend.disconnection() }

    /// Disconnects. Subscriptions end with ``BluetoothError/disconnected(_:)``.
    public func disconnect() async { await backend.disconnect() }

    // MARK: Internals

    private func encode<Value: ByteEncodable>(_ value: Value) throws -> [UInt8] {
        do { return try value.encodedBytes() } catch { throw BluetoothError.encoding(error) }
    }

    private nonisolated func unsubscribeLater<Value>(_ subscription: Subscription<Value>) {
        subscription.ended.withLock { $0 = true }
        subscription.updates.finish()
    }

    /// Turns notifications off for characteristics whose last subscription has ended.
    private func releaseAbandonedSubscriptions(timeout: Duration? = nil) async throws {
        for characteristic in released.withLock({ taken in defer { taken.removeAll() }; return taken }) {
            let id = characteristic.id
            let remaining = (subscriptionCounts[id] ?? 1) - 1
            subscriptionCounts[id] = remaining
            if remaining == 0 {
                subscriptionCounts[id] = nil
                // The link may be gone already; then there is nothing to turn off.
                do {
                    try await backend.setNotifications(false, for: characteristic, timeout: timeout ?? defaultTimeout)
                } catch {
                    // (A `catch BluetoothError.disconnected` clause here crashes Swift 6.3.1's SILGen.)
                    guard case .disconnected = error else { throw error }
                }
            }
        }
    }
}

/// Which characteristics of a service a connection has asked its backend for.
private enum CharacteristicsAsked {
    /// Every characteristic (discovery without a UUID filter).
    case all
    /// Only these.
    case some(Set<BluetoothUUID>)
}
