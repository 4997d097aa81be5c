import Harald
import HaraldATT
import HaraldCodec
import HaraldCore

/// A ``ConnectionBackend`` over Harald's own GATT client, for every backend that speaks ATT
/// itself: the simulator and the HCI host stack. Only the bearer differs between them.
public final class GATTConnection: ConnectionBackend {
    public let peripheral: PeripheralIdentifier
    /// The GATT client doing the work (its counters report protocol cost).
    public let client: GATTClient
    private let signal = DisconnectionSignal()
    /// Value handle → CCCD handle, learned from descriptor discovery.
    private let cccdHandles = Locked<[UInt16: UInt16]>([:])

    private init(peripheral: PeripheralIdentifier, client: GATTClient) {
        self.peripheral = peripheral
        self.client = client
    }

    /// Starts a GATT client on `bearer` and, when `exchangeMTU` is set, raises the ATT_MTU once
    /// (Exchange MTU, offering the bearer's receive MTU).
    public static func open(
        bearer: any ATTBearer, peripheral: PeripheralIdentifier, clock: any Clock<Duration>,
        exchangeMTU: Bool = true, timeout: Duration = .seconds(30)
    ) async throws -> GATTConnection {
        let client = GATTClient(bearer: bearer, clock: clock, configuration: .init(defaultTimeout: timeout))
        let connection = GATTConnection(peripheral: peripheral, client: client)
        // A sink on handle 0 (never a valid attribute) is finished when the bearer closes.
        let signal = connection.signal
        _ = await client.addSink(
            GATTClient.ValueSink(deliver: { _ in true }, finish: { signal.set(GATTConnection.reason(for: $0)) }), handle: 0)
        if exchangeMTU {
            do { _ = try await client.exchangeMTU(timeout: timeout) } catch { throw await connection.translate(error, "MTU exchange", timeout) }
        }
        return connection
    }

    public func mtu() async -> Int { await client.mtu }

    public func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration) async throws -> [DiscoveredService] {
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
        return found.map { DiscoveredService(uuid: $0.uuid, isPrimary: $0.isPrimary, handles: $0.handles.start...$0.handles.end) }
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration) async throws
        -> [DiscoveredCharacteristic]
    {
        let found: [GATTCharacteristic]
        do { found = try await client.discoverCharacteristics(of: gattService(service), timeout: timeout) } catch {
            throw await translate(error, "characteristic discovery", timeout)
        }
        return found.filter { uuids == nil || uuids!.contains($0.uuid) }.map { discovered($0, in: service) }
    }

    /// One Read By Type sweep over every service (``GATTClient/discoverCharacteristics(ofAll:timeout:)``).
    public func discoverCharacteristics(ofAll services: [DiscoveredService], timeout: Duration) async throws -> [[DiscoveredCharacteristic]] {
        let found: [[GATTCharacteristic]]
        do { found = try await client.discoverCharacteristics(ofAll: services.map(gattService), timeout: timeout) } catch {
            throw await translate(error, "characteristic discovery", timeout)
        }
        return zip(services, found).map { service, characteristics in characteristics.map { discovered($0, in: service) } }
    }

    public func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration) async throws -> [DiscoveredDescriptor] {
        let found: [GATTDescriptor]
        do { found = try await client.discoverDescriptors(of: gattCharacteristic(characteristic), timeout: timeout) } catch {
            throw await translate(error, "descriptor discovery", timeout)
        }
        return discovered(found, of: characteristic)
    }

    /// One Find Information sweep over every characteristic (``GATTClient/discoverDescriptors(ofAll:timeout:)``).
    public func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws -> [[DiscoveredDescriptor]] {
        let found: [[GATTDescriptor]]
        do { found = try await client.discoverDescriptors(ofAll: characteristics.map(gattCharacteristic), timeout: timeout) } catch {
            throw await translate(error, "descriptor discovery", timeout)
        }
        return zip(characteristics, found).map { characteristic, descriptors in discovered(descriptors, of: characteristic) }
    }

    /// Read Multiple Variable batches (``GATTClient/readValues(handles:timeout:)``).
    public func read(_ characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws -> [Result<[UInt8], BluetoothError>] {
        let found: [Result<[UInt8], GATTError>]
        do { found = try await client.readValues(handles: characteristics.map(\.valueHandle), timeout: timeout) } catch {
            throw await translate(error, "read of \(characteristics.count) characteristics", timeout)
        }
        return found.map { result in
            result.mapError { error in
                if case let .attribute(code, handle, _) = error { return BluetoothError.attribute(code, handle: handle) }
                return BluetoothError.protocolViolation(error.description)
            }
        }
    }

    public func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration) async throws -> [UInt8] {
        do { return try await client.readLong(handle: characteristic.valueHandle, timeout: timeout) } catch {
            throw await translate(error, "read of \(characteristic.uuid)", timeout)
        }
    }

    public func write(_ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration) async throws {
        do {
            switch kind {
            case .withoutResponse:
                try await client.writeWithoutResponse(handle: characteristic.valueHandle, value: value)
            case .withResponse:
                if value.count <= (await client.mtu) - 3 {
                    try await client.write(handle: characteristic.valueHandle, value: value, timeout: timeout)
                } else {
                    try await client.writeLong(handle: characteristic.valueHandle, value: value, timeout: timeout)
                }
            }
        } catch { throw await translate(error, "write to \(characteristic.uuid)", timeout) }
    }

    public func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration) async throws -> [UInt8] {
        do { return try await client.readLong(handle: descriptor.handle, timeout: timeout) } catch {
            throw await translate(error, "read of descriptor \(descriptor.uuid)", timeout)
        }
    }

    public func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration) async throws {
        do { try await client.write(handle: descriptor.handle, value: value, timeout: timeout) } catch {
            throw await translate(error, "write to descriptor \(descriptor.uuid)", timeout)
        }
    }

    public func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration) async throws {
        var cccd = cccdHandles.withLock { $0[characteristic.valueHandle] }
        if cccd == nil {
            _ = try await discoverDescriptors(of: characteristic, timeout: timeout)
            cccd = cccdHandles.withLock { $0[characteristic.valueHandle] }
        }
        guard let cccd else { throw BluetoothError.notFound("CCCD of \(characteristic.uuid)") }
        let configuration: ClientCharacteristicConfiguration =
            !enabled ? [] : characteristic.properties.contains(.notify) ? .notifications : .indications
        do { try await client.configureNotifications(cccdHandle: cccd, configuration, timeout: timeout) } catch {
            throw await translate(error, "CCCD write for \(characteristic.uuid)", timeout)
        }
    }

    public func valueUpdates(for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering) async -> ValueUpdates {
        let (updates, continuation) = ValueUpdates.makeStream(buffering: buffering)
        let sink = GATTClient.ValueSink(
            deliver: { continuation.yield($0.value) },
            finish: { continuation.finish(throwing: .disconnected(GATTConnection.reason(for: $0))) })
        let client = self.client
        let handle = characteristic.valueHandle
        // A sink whose consumer has gone away is removed the next time a value arrives for it.
        _ = await client.addSink(sink, handle: handle)
        return updates
    }

    public func maximumWriteLength(for kind: WriteKind) async -> Int {
        let mtu = await client.mtu
        return kind == .withoutResponse ? mtu - 3 : ATT.maximumValueLength
    }

    public func disconnection() async -> DisconnectReason { await signal.wait() }

    /// Counted by the GATT client: every PDU this connection sent and received.
    public func protocolCost() async -> ProtocolCost? { ProtocolCost(await client.counters) }

    public func disconnect() async {
        signal.set(.localRequest)
        await client.disconnect()
    }

    // MARK: Internals

    private func gattService(_ service: DiscoveredService) -> GATTService {
        GATTService(
            uuid: service.uuid, handles: ATTHandleRange(start: service.handles.lowerBound, end: service.handles.upperBound),
            isPrimary: service.isPrimary)
    }

    private func discovered(_ characteristic: GATTCharacteristic, in service: DiscoveredService) -> DiscoveredCharacteristic {
        DiscoveredCharacteristic(
            uuid: characteristic.uuid, service: service.uuid, properties: CharacteristicProperties(rawValue: characteristic.properties.rawValue),
            valueHandle: characteristic.valueHandle, endHandle: characteristic.endHandle)
    }

    /// The public descriptors, remembering the CCCD's handle for ``setNotifications(_:for:timeout:)``.
    private func discovered(_ descriptors: [GATTDescriptor], of characteristic: DiscoveredCharacteristic) -> [DiscoveredDescriptor] {
        if let cccd = descriptors.first(where: { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }) {
            cccdHandles.withLock { $0[characteristic.valueHandle] = cccd.handle }
        }
        return descriptors.map { DiscoveredDescriptor(uuid: $0.uuid, handle: $0.handle, characteristicValueHandle: characteristic.valueHandle) }
    }

    private func gattCharacteristic(_ characteristic: DiscoveredCharacteristic) -> GATTCharacteristic {
        // The value attribute always follows its declaration (Core spec Vol 3 Part G §3.3).
        GATTCharacteristic(
            uuid: characteristic.uuid, properties: CharacteristicProperties(rawValue: characteristic.properties.rawValue),
            declarationHandle: characteristic.valueHandle - 1, valueHandle: characteristic.valueHandle,
            endHandle: characteristic.endHandle)
    }

    /// The public error for a GATT client failure.
    func translate(_ error: GATTError, _ operation: String, _ timeout: Duration) async -> any Error {
        switch error {
        case let .attribute(code, handle, _): return BluetoothError.attribute(code, handle: handle)
        case .timeout: return BluetoothError.timeout(operation: operation, after: timeout)
        case .cancelled: return CancellationError()
        case .disconnected:
            let reason = await Self.reason(for: client.closeReason)
            signal.set(reason)
            return BluetoothError.disconnected(signal.current ?? reason)
        case .unexpectedResponse, .invalidResponse: return BluetoothError.protocolViolation(error.description)
        case .invalidArgument: return BluetoothError.notPermitted(error.description)
        case .reliableWriteMismatch, .procedureInProgress: return BluetoothError.backend(error.description)
        }
    }

    static func reason(for close: ATTCloseReason?) -> DisconnectReason {
        switch close {
        case .closedLocally: .localRequest
        case .closedByPeer: .remoteRequest
        case .transactionTimeout: .attTimeout
        case let .linkLost(code): code.map(DisconnectReason.init(hciReason:)) ?? .connectionLost
        case nil: .connectionLost
        }
    }
}
