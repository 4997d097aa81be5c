import HaraldCodec
import HaraldCore

extension GATTClient {
    // MARK: MTU

    /// Exchange MTU (Core spec Vol 3 Part G §4.3.1): offers this side's receive MTU and settles
    /// ATT_MTU = max(23, min(client, server)). Sent at most once per connection. A call made
    /// while the exchange is in flight waits for it (within its own timeout) and returns the MTU
    /// it settled; later calls return the current MTU without a round trip. After a failed
    /// exchange the MTU stays 23, and that is what waiting and later callers get (a disconnection
    /// fails them with ``GATTError/disconnected`` instead).
    @discardableResult
    public func exchangeMTU(timeout: Duration? = nil) async throws(GATTError) -> Int {
        switch mtuExchange {
        case .finished: return mtu
        case .inFlight: return try await waitForMTUExchange(deadline: deadline(timeout))
        case .notStarted: break
        }
        mtuExchange = .inFlight
        let offered = max(ATT.defaultMTU, min(Int(UInt16.max), configuration.preferredMTU ?? bearer.localMTU))
        let settled: Int
        // From the request on, the server may answer at any ATT_MTU up to the offer.
        offeredMTU = offered
        defer { offeredMTU = nil }
        do {
            let response = try await transact(
                ATTExchangeMTURequest(clientRxMTU: UInt16(offered)), expecting: ATTExchangeMTUResponse.self, deadline: deadline(timeout))
            settled = max(ATT.defaultMTU, min(offered, Int(response.serverRxMTU)))
        } catch {
            mtuExchange = .finished
            mtuExchangeEnded(error == .disconnected ? .failure(.disconnected) : .success(mtu))
            throw error
        }
        await setMTU(settled)
        mtuExchange = .finished
        mtuExchangeEnded(.success(settled))
        return settled
    }

    // MARK: Services

    /// Discover All Primary Services (§4.4.1): Read By Group Type (0x2800) from handle 1 until
    /// Attribute Not Found or the last group ends at 0xFFFF.
    ///
    /// A response that breaks the ordering rules (see `serviceGroupViolation(_:in:lowest:requestedFrom:)`)
    /// is a ``GATTError/protocolViolation(_:)`` and closes the bearer.
    public func discoverPrimaryServices(timeout: Duration? = nil) async throws(GATTError) -> [GATTService] {
        let deadline = deadline(timeout)
        return try await closingOnViolation { () async throws(GATTError) -> [GATTService] in
            var services: [GATTService] = []
            var start: UInt16 = 0x0001
            while true {
                let response: ATTReadByGroupTypeResponse
                do throws(GATTError) {
                    response = try await transact(
                        ATTReadByGroupTypeRequest(range: ATTHandleRange(start: start, end: 0xFFFF), groupType: GATTAttributeType.primaryService),
                        expecting: ATTReadByGroupTypeResponse.self, deadline: deadline)
                } catch .attribute(.attributeNotFound, _, _) {
                    break
                }
                var lowest = Int(start)  // the lowest handle the next group may start at
                for entry in response.entries {
                    if let violation = Self.serviceGroupViolation(entry.range, in: .readByGroupTypeResponse, lowest: lowest, requestedFrom: start) {
                        throw .protocolViolation(violation)
                    }
                    services.append(GATTService(uuid: try Self.uuid(entry.value), handles: entry.range, isPrimary: true))
                    lowest = Int(entry.range.end) + 1
                }
                guard let last = response.entries.last?.range.end, last < 0xFFFF else { break }
                start = last + 1
            }
            return services
        }
    }

    /// A service group of a discovery response must lie in the requested range, start after the
    /// previous group of the same procedure ended (groups never overlap and come in increasing
    /// handle order, Core spec Vol 3 Part G §4.4), not start at handle 0 and not end before it
    /// starts. Anything else is the peer breaking the protocol, reported with the offending
    /// handle; nil when the group is fine.
    static func serviceGroupViolation(
        _ range: ATTHandleRange, in pdu: ATTOpcode, lowest: Int, requestedFrom start: UInt16
    ) -> ATTProtocolViolation? {
        if range.start == 0 { return .zeroHandle(pdu, "service group \(range) starts") }
        guard Int(range.start) >= lowest, range.start >= start else {
            let previousEnd = lowest - 1
            if previousEnd >= Int(start) {
                return ATTProtocolViolation(
                    pdu: pdu, handle: range.start,
                    rule: "service group \(range) starts inside or before the previous group, which ended at 0x\(Hex.word(UInt16(clamping: previousEnd)))")
            }
            return .outside(pdu, "service group \(range) starts", handle: range.start, requested: ATTHandleRange(start: start, end: 0xFFFF))
        }
        guard range.start <= range.end else {
            return ATTProtocolViolation(pdu: pdu, handle: range.start, rule: "service group \(range) ends at 0x\(Hex.word(range.end)), before it starts")
        }
        return nil
    }

    /// Discover Primary Service by Service UUID (§4.4.2): Find By Type Value (0x2800, `uuid`)
    /// until Attribute Not Found or a group ends at 0xFFFF.
    public func discoverPrimaryServices(uuid: BluetoothUUID, timeout: Duration? = nil) async throws(GATTError) -> [GATTService] {
        let deadline = deadline(timeout)
        let uuidBytes = uuid.uuid16.map { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } ?? Self.bytes128(uuid)
        return try await closingOnViolation { () async throws(GATTError) -> [GATTService] in
            var services: [GATTService] = []
            var start: UInt16 = 0x0001
            while true {
                let response: ATTFindByTypeValueResponse
                do throws(GATTError) {
                    response = try await transact(
                        ATTFindByTypeValueRequest(range: ATTHandleRange(start: start, end: 0xFFFF), attributeType: 0x2800, value: uuidBytes),
                        expecting: ATTFindByTypeValueResponse.self, deadline: deadline)
                } catch .attribute(.attributeNotFound, _, _) {
                    break
                }
                var lowest = Int(start)
                for range in response.handles {
                    if let violation = Self.serviceGroupViolation(range, in: .findByTypeValueResponse, lowest: lowest, requestedFrom: start) {
                        throw .protocolViolation(violation)
                    }
                    services.append(GATTService(uuid: uuid, handles: range, isPrimary: true))
                    lowest = Int(range.end) + 1
                }
                guard let last = response.handles.last?.end, last < 0xFFFF else { break }
                start = last + 1
            }
            return services
        }
    }

    /// Find Included Services (§4.5.1): Read By Type (0x2802) over the service's handles, plus a
    /// Read of the included service declaration for each included service with a 128-bit UUID.
    public func discoverIncludedServices(of service: GATTService, timeout: Duration? = nil) async throws(GATTError) -> [GATTIncludedService] {
        let deadline = deadline(timeout)
        return try await closingOnViolation { () async throws(GATTError) -> [GATTIncludedService] in
            try await includedServices(of: service, deadline: deadline)
        }
    }

    private func includedServices(of service: GATTService, deadline: Duration) async throws(GATTError) -> [GATTIncludedService] {
        var found: [GATTIncludedService] = []
        for entry in try await readByTypeLoop(GATTAttributeType.include, in: service.handles, deadline: deadline) {
            let reader = entry.value
            guard reader.count == 4 || reader.count == 6 else {
                throw .invalidResponse("include declaration of \(reader.count) bytes")
            }
            let start = UInt16(reader[0]) | UInt16(reader[1]) << 8
            let end = UInt16(reader[2]) | UInt16(reader[3]) << 8
            guard start != 0, start <= end else {
                throw .protocolViolation(
                    ATTProtocolViolation(
                        pdu: .readByTypeResponse, handle: entry.handle,
                        rule: "include declaration names the service group 0x\(Hex.word(start))-0x\(Hex.word(end)), which no service can have"))
            }
            let uuid: BluetoothUUID
            if reader.count == 6 {
                uuid = BluetoothUUID(UInt16(reader[4]) | UInt16(reader[5]) << 8)
            } else {
                let declaration = try await transact(ATTReadRequest(handle: start), expecting: ATTReadResponse.self, deadline: deadline)
                guard declaration.value.count == 16 else { throw .invalidResponse("included service UUID of \(declaration.value.count) bytes") }
                uuid = try Self.uuid(declaration.value)
            }
            found.append(
                GATTIncludedService(
                    declarationHandle: entry.handle, service: GATTService(uuid: uuid, handles: ATTHandleRange(start: start, end: end), isPrimary: false)))
        }
        return found
    }

    // MARK: Characteristics and descriptors

    /// Discover All Characteristics of a Service (§4.6.1): Read By Type (0x2803) over the
    /// service's handles; with `uuid`, Discover Characteristics by UUID (same PDUs, filtered here).
    public func discoverCharacteristics(
        of service: GATTService, uuid: BluetoothUUID? = nil, timeout: Duration? = nil
    ) async throws(GATTError) -> [GATTCharacteristic] {
        let deadline = deadline(timeout)
        return try await closingOnViolation { () async throws(GATTError) -> [GATTCharacteristic] in
            let entries = try await readByTypeLoop(GATTAttributeType.characteristic, in: service.handles, deadline: deadline)
            var characteristics = try Self.characteristics(declaredBy: entries, in: service)
            if let uuid { characteristics.removeAll { $0.uuid != uuid } }
            return characteristics
        }
    }

    /// Discover All Characteristic Descriptors (§4.7.1): Find Information over the handles after
    /// the value up to the characteristic's end. No request when there is no room for one.
    public func discoverDescriptors(of characteristic: GATTCharacteristic, timeout: Duration? = nil) async throws(GATTError) -> [GATTDescriptor] {
        guard let range = characteristic.descriptorHandles else { return [] }
        let deadline = deadline(timeout)
        return try await closingOnViolation { () async throws(GATTError) -> [GATTDescriptor] in
            var descriptors: [GATTDescriptor] = []
            var start = range.start
            while start <= range.end {
                let response: ATTFindInformationResponse
                let requested = ATTHandleRange(start: start, end: range.end)
                do throws(GATTError) {
                    response = try await transact(
                        ATTFindInformationRequest(range: requested), expecting: ATTFindInformationResponse.self, deadline: deadline)
                } catch .attribute(.attributeNotFound, _, _) {
                    break
                }
                var previous: UInt16?
                for entry in response.entries {
                    if let violation = Self.handleViolation(entry.handle, in: .findInformationResponse, "descriptor", requested: requested, previous: previous)
                    {
                        throw .protocolViolation(violation)
                    }
                    previous = entry.handle
                    descriptors.append(GATTDescriptor(uuid: entry.type, handle: entry.handle))
                }
                guard let last = response.entries.last?.handle, last < range.end else { break }
                start = last + 1
            }
            return descriptors
        }
    }

    /// An answer's handle must not be 0, must lie in the requested range and must come after the
    /// previous answer's (Read By Type and Find Information list attributes in increasing handle
    /// order, Core spec Vol 3 Part F §3.4.3.2 and §3.4.4.2); nil when it does.
    static func handleViolation(
        _ handle: UInt16, in pdu: ATTOpcode, _ what: String, requested: ATTHandleRange, previous: UInt16?
    ) -> ATTProtocolViolation? {
        if handle == 0 { return .zeroHandle(pdu, what) }
        guard requested.contains(handle) else { return .outside(pdu, what, handle: handle, requested: requested) }
        if let previous, handle <= previous { return .notIncreasing(pdu, what, handle: handle, previous: previous) }
        return nil
    }

    /// Read By Type over `range` until Attribute Not Found or the range is covered.
    func readByTypeLoop(_ type: BluetoothUUID, in range: ATTHandleRange, deadline: Duration) async throws(GATTError) -> [ATTHandleValue] {
        var entries: [ATTHandleValue] = []
        var start = range.start
        let what =
            type == GATTAttributeType.characteristic
            ? "characteristic declaration"
            : type == GATTAttributeType.include ? "include declaration" : "attribute of type \(type)"
        while start <= range.end {
            let response: ATTReadByTypeResponse
            let requested = ATTHandleRange(start: start, end: range.end)
            do {
                response = try await transact(
                    ATTReadByTypeRequest(range: requested, attributeType: type), expecting: ATTReadByTypeResponse.self, deadline: deadline)
            } catch .attribute(.attributeNotFound, _, _) {
                break
            }
            for entry in response.entries {
                if let violation = Self.handleViolation(entry.handle, in: .readByTypeResponse, what, requested: requested, previous: entries.last?.handle) {
                    throw .protocolViolation(violation)
                }
                entries.append(entry)
            }
            guard let last = response.entries.last?.handle, last < range.end else { break }
            start = last + 1
        }
        return entries
    }

    /// Characteristics from the characteristic declarations (Read By Type 0x2803 entries, in
    /// handle order) that lie in `service`; each ends before the next declaration or at the
    /// service's end.
    static func characteristics(declaredBy entries: [ATTHandleValue], in service: GATTService) throws(GATTError) -> [GATTCharacteristic] {
        var declarations: [(handle: UInt16, properties: UInt8, valueHandle: UInt16, uuid: BluetoothUUID)] = []
        for entry in entries {
            let value = entry.value
            guard value.count == 5 || value.count == 19 else {
                throw .invalidResponse("characteristic declaration of \(value.count) bytes")
            }
            let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
            // The value attribute immediately follows its declaration (Core spec Vol 3 Part G §3.3)
            // and lies in the service.
            guard entry.handle < service.handles.end, valueHandle == entry.handle + 1 else {
                throw .protocolViolation(
                    ATTProtocolViolation(
                        pdu: .readByTypeResponse, handle: entry.handle,
                        rule: "characteristic declaration gives value handle 0x\(Hex.word(valueHandle)), not the next handle"
                            + (entry.handle < service.handles.end ? "" : " inside its service \(service.handles)")))
            }
            declarations.append((entry.handle, value[0], valueHandle, try Self.uuid(Array(value[3...]))))
        }
        var characteristics: [GATTCharacteristic] = []
        for (index, declaration) in declarations.enumerated() {
            let end = index + 1 < declarations.count ? declarations[index + 1].handle - 1 : service.handles.end
            characteristics.append(
                GATTCharacteristic(
                    uuid: declaration.uuid, properties: CharacteristicProperties(rawValue: declaration.properties),
                    declarationHandle: declaration.handle, valueHandle: declaration.valueHandle, endHandle: max(end, declaration.valueHandle)))
        }
        return characteristics
    }

    // MARK: Helpers

    static func uuid(_ bytes: [UInt8]) throws(GATTError) -> BluetoothUUID {
        guard bytes.count == 2 || bytes.count == 16 else { throw .invalidResponse("UUID of \(bytes.count) bytes") }
        do { return try BluetoothUUID(decoding: bytes) } catch { throw .invalidResponse(error.description) }
    }

    static func bytes128(_ uuid: BluetoothUUID) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(uuid.low)
        writer.write(uuid.high)
        return writer.bytes
    }
}
