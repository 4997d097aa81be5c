import HaraldCodec
import HaraldCore

/// A request the server refuses: the error code and the handle to name in the Error Response.
struct ATTRequestFailure: Error {
    let code: ATTErrorCode
    let handle: UInt16
    init(_ code: ATTErrorCode, _ handle: UInt16) {
        self.code = code
        self.handle = handle
    }
}

extension GATTServer {
    func received(_ bytes: [UInt8], from connection: GATTConnectionID) async {
        countReceived(bytes, from: connection)
        guard let first = bytes.first else {
            countIgnored(from: connection)
            return
        }
        let opcode = ATTOpcode(first)
        if let mtu = connections[connection]?.mtu, bytes.count > mtu, opcode.kind == .request || opcode.kind == .command {
            // No PDU may exceed ATT_MTU (Core Vol 3 Part F §3.2.8): a request that does is refused
            // as an Invalid PDU (answering a Prepare Write would echo it back oversized), a command
            // is dropped.
            if opcode.kind == .request {
                await answer(opcode, with: .failure(ATTRequestFailure(.invalidPDU, 0)), to: connection)
            } else {
                countIgnored(from: connection)
            }
            return
        }
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: bytes)
        } catch {
            if opcode.kind == .request {
                await answer(opcode, with: .failure(ATTRequestFailure(.invalidPDU, 0)), to: connection)
            } else {
                countIgnored(from: connection)
            }
            return
        }
        switch pdu {
        case .handleValueConfirmation:
            confirmationReceived(connection)
        case .writeCommand(let command):
            // No answer either way: a refused Write Command is dropped.
            if (try? await write(command.value, handle: command.handle, connection: connection)) == nil { countIgnored(from: connection) }
        case .signedWriteCommand:
            countIgnored(from: connection)
        case .unknown(let opcode, _):
            if opcode.isCommand {
                countIgnored(from: connection)
            } else {
                await answer(opcode, with: .failure(ATTRequestFailure(.requestNotSupported, 0)), to: connection)
            }
        default:
            guard opcode.kind == .request else {
                countIgnored(from: connection)
                return
            }
            let result: Result<any ATTPDUCodable, ATTRequestFailure>
            do {
                result = .success(try await respond(to: pdu, connection: connection))
            } catch {
                result = .failure(error)
            }
            await answer(opcode, with: result, to: connection)
        }
    }

    private func answer(_ opcode: ATTOpcode, with result: Result<any ATTPDUCodable, ATTRequestFailure>, to connection: GATTConnectionID) async {
        countRoundTrip(opcode, for: connection)
        switch result {
        case .success(let response):
            await send(response, to: connection)
        case .failure(let failure):
            await send(ATTErrorResponse(requestOpcode: opcode, handle: failure.handle, error: failure.code), to: connection)
        }
    }

    private func respond(to pdu: ATTPDU, connection: GATTConnectionID) async throws(ATTRequestFailure) -> any ATTPDUCodable {
        guard let mtu = connections[connection]?.mtu else { throw ATTRequestFailure(.unlikelyError, 0) }
        switch pdu {
        case .exchangeMTURequest(let request):
            let offered = max(ATT.defaultMTU, min(Int(UInt16.max), configuration.preferredMTU ?? (connections[connection]?.bearer.localMTU ?? ATT.defaultMTU)))
            let settled = max(ATT.defaultMTU, min(offered, Int(request.clientRxMTU)))
            connections[connection]?.mtu = settled
            notificationTable.setMTU(settled, for: connection)
            await connections[connection]?.bearer.didNegotiateMTU(settled)
            return ATTExchangeMTUResponse(serverRxMTU: UInt16(offered))
        case .findInformationRequest(let request):
            return try findInformation(request.range, mtu: mtu)
        case .findByTypeValueRequest(let request):
            return try findByTypeValue(request, mtu: mtu, security: connections[connection]?.security ?? .none)
        case .readByTypeRequest(let request):
            return try await readByType(request, mtu: mtu, connection: connection)
        case .readByGroupTypeRequest(let request):
            return try readByGroupType(request, mtu: mtu)
        case .readRequest(let request):
            let value = try await read(request.handle, connection: connection)
            keepLongRead(value, handle: request.handle, mtu: mtu, connection: connection)
            return ATTReadResponse(value: Array(value.prefix(mtu - 1)))
        case .readBlobRequest(let request):
            // The rest of a long read: the Read Request before it was the read to report.
            let offset = Int(request.offset)
            let value = try await longReadValue(request.handle, offset: offset, connection: connection)
            if offset == 0 { keepLongRead(value, handle: request.handle, mtu: mtu, connection: connection) }
            guard offset <= value.count else { throw ATTRequestFailure(.invalidOffset, request.handle) }
            guard value.count > mtu - 1 else { throw ATTRequestFailure(.attributeNotLong, request.handle) }
            // A part shorter than ATT_MTU − 1 is the last: the central's read ends with it.
            if offset + mtu - 1 > value.count { connections[connection]?.longReads[request.handle] = nil }
            return ATTReadBlobResponse(value: Array(value[offset..<min(value.count, offset + mtu - 1)]))
        case .readMultipleRequest(let request):
            var values: [UInt8] = []
            for handle in request.handles { values += try await read(handle, connection: connection) }
            return ATTReadMultipleResponse(values: Array(values.prefix(mtu - 1)))
        case .readMultipleVariableRequest(let request):
            guard configuration.supportsReadMultipleVariable else { throw ATTRequestFailure(.requestNotSupported, 0) }
            var entries: [ATTReadMultipleVariableResponse.Entry] = []
            var room = mtu - 1
            for handle in request.handles {
                let value = try await read(handle, connection: connection)
                guard room >= 2 else { continue }
                let present = Array(value.prefix(room - 2))
                entries.append(.init(length: UInt16(value.count), value: present))
                room -= 2 + present.count
            }
            return ATTReadMultipleVariableResponse(entries: entries)
        case .writeRequest(let request):
            try await write(request.value, handle: request.handle, connection: connection)
            return ATTWriteResponse()
        case .prepareWriteRequest(let request):
            guard let attribute = database.attribute(request.handle) else { throw ATTRequestFailure(.invalidHandle, request.handle) }
            try await checkAccess(attribute, isWrite: true, connection: connection)
            guard let queued = connections[connection]?.prepareQueue.count else { throw ATTRequestFailure(.unlikelyError, 0) }
            guard queued < configuration.maximumPreparedWrites else { throw ATTRequestFailure(.prepareQueueFull, request.handle) }
            connections[connection]?.prepareQueue.append(request)
            return ATTPrepareWriteResponse(handle: request.handle, offset: request.offset, value: request.value)
        case .executeWriteRequest(let request):
            let queue = connections[connection]?.prepareQueue ?? []
            connections[connection]?.prepareQueue.removeAll()
            if request.flags == .write { try await execute(queue, connection: connection) }
            return ATTExecuteWriteResponse()
        default:
            throw ATTRequestFailure(.requestNotSupported, 0)
        }
    }

    // MARK: Discovery requests

    private func checkRange(_ range: ATTHandleRange) throws(ATTRequestFailure) {
        guard range.isValid else { throw ATTRequestFailure(.invalidHandle, range.start) }
    }

    private func findInformation(_ range: ATTHandleRange, mtu: Int) throws(ATTRequestFailure) -> ATTFindInformationResponse {
        try checkRange(range)
        var entries: [ATTFindInformationResponse.Entry] = []
        var is16Bit = true
        for index in database.indices(in: range) {
            let attribute = database.attributes[index]
            let short = attribute.type.uuid16 != nil
            if entries.isEmpty { is16Bit = short } else if short != is16Bit { break }
            guard 2 + (entries.count + 1) * (is16Bit ? 4 : 18) <= mtu else { break }
            entries.append(.init(handle: attribute.handle, type: attribute.type))
        }
        guard !entries.isEmpty else { throw ATTRequestFailure(.attributeNotFound, range.start) }
        return ATTFindInformationResponse(entries: entries)
    }

    /// Find By Type Value compares stored values, so it matches only attributes the link could
    /// read now without an authorization hook: otherwise a client could confirm a guess of a
    /// protected value without ever reading it (a value oracle).
    private func findByTypeValue(_ request: ATTFindByTypeValueRequest, mtu: Int, security: GATTSecurity) throws(ATTRequestFailure)
        -> ATTFindByTypeValueResponse
    {
        try checkRange(request.range)
        let type = BluetoothUUID(request.attributeType)
        var found: [ATTHandleRange] = []
        for index in database.indices(in: request.range) {
            let attribute = database.attributes[index]
            guard attribute.type == type, attribute.value == request.value, Self.isReadableForComparison(attribute, at: security) else { continue }
            guard 1 + (found.count + 1) * 4 <= mtu else { break }
            if case .serviceDeclaration(let end) = attribute.role {
                found.append(ATTHandleRange(start: attribute.handle, end: end))
            } else {
                found.append(ATTHandleRange(start: attribute.handle, end: attribute.handle))
            }
        }
        guard !found.isEmpty else { throw ATTRequestFailure(.attributeNotFound, request.range.start) }
        return ATTFindByTypeValueResponse(handles: found)
    }

    private func readByType(_ request: ATTReadByTypeRequest, mtu: Int, connection: GATTConnectionID) async throws(ATTRequestFailure) -> ATTReadByTypeResponse {
        try checkRange(request.range)
        var entries: [ATTHandleValue] = []
        var length = 0
        // Handles first: a read handler may suspend, and the database may change meanwhile.
        let matching = database.attributes[database.indices(in: request.range)].filter { $0.type == request.attributeType }.map(\.handle)
        for handle in matching {
            let value: [UInt8]
            do {
                value = try await read(handle, connection: connection)
            } catch {
                // The first match's error is the answer; a later one ends the list before it.
                if entries.isEmpty { throw error }
                break
            }
            let cut = Array(value.prefix(min(mtu - 4, 253)))
            if entries.isEmpty { length = cut.count } else if cut.count != length { break }
            guard 2 + (entries.count + 1) * (2 + length) <= mtu else { break }
            entries.append(ATTHandleValue(handle: handle, value: cut))
        }
        guard !entries.isEmpty else { throw ATTRequestFailure(.attributeNotFound, request.range.start) }
        return ATTReadByTypeResponse(entries: entries)
    }

    private func readByGroupType(_ request: ATTReadByGroupTypeRequest, mtu: Int) throws(ATTRequestFailure) -> ATTReadByGroupTypeResponse {
        try checkRange(request.range)
        guard request.groupType == GATTAttributeType.primaryService || request.groupType == GATTAttributeType.secondaryService else {
            throw ATTRequestFailure(.unsupportedGroupType, request.range.start)
        }
        var entries: [ATTReadByGroupTypeResponse.Entry] = []
        for index in database.indices(in: request.range) {
            let attribute = database.attributes[index]
            guard attribute.type == request.groupType, case .serviceDeclaration(let end) = attribute.role else { continue }
            if let first = entries.first, first.value.count != attribute.value.count { break }
            let length = 4 + attribute.value.count
            guard 2 + (entries.count + 1) * length <= mtu else { break }
            entries.append(.init(range: ATTHandleRange(start: attribute.handle, end: end), value: attribute.value))
        }
        guard !entries.isEmpty else { throw ATTRequestFailure(.attributeNotFound, request.range.start) }
        return ATTReadByGroupTypeResponse(entries: entries)
    }

    // MARK: Access

    /// Whether a link with `security` may read `attribute` without asking anyone: the read
    /// permission, the read security met, no authorization needed.
    static func isReadableForComparison(_ attribute: GATTDatabase.Attribute, at security: GATTSecurity) -> Bool {
        guard attribute.permissions.contains(.read), !attribute.permissions.contains(.readAuthorized), attribute.authorize == nil else {
            return false
        }
        return attribute.securityRequirement(isWrite: false).refusal(for: security) == nil
    }

    private func checkAccess(_ attribute: GATTDatabase.Attribute, isWrite: Bool, connection: GATTConnectionID) async throws(ATTRequestFailure) {
        let permissions = attribute.permissions
        let handle = attribute.handle
        guard permissions.contains(isWrite ? .write : .read) else {
            throw ATTRequestFailure(isWrite ? .writeNotPermitted : .readNotPermitted, handle)
        }
        let security = connections[connection]?.security ?? .none
        // Part C §10.3 and Part F §3.4.1.1: 0x05 without a key (or with an unauthenticated one
        // where authentication is needed), 0x0F with a key not used yet, 0x0C for a short key.
        if let refusal = attribute.securityRequirement(isWrite: isWrite).refusal(for: security) {
            throw ATTRequestFailure(refusal, handle)
        }
        if permissions.contains(isWrite ? .writeAuthorized : .readAuthorized) {
            guard let authorize, await authorize(connection, handle, isWrite) else {
                throw ATTRequestFailure(.insufficientAuthorization, handle)
            }
        }
        if let hook = attribute.authorize {
            let access: GATTAccess
            switch attribute.role {
            case .clientConfiguration:
                guard isWrite else { return }  // reading a CCCD tells nothing
                access = .configure
            default: access = isWrite ? .write : .read
            }
            let context = GATTRequestContext(connection: connection, handle: handle, security: security)
            guard await hook(context, access) else { throw ATTRequestFailure(.insufficientAuthorization, handle) }
        }
    }

    /// The whole value of the attribute at `handle`, after the access checks.
    /// A characteristic value read is reported as ``GATTServerEvent/valueRead(_:handle:)`` unless
    /// `reporting` is false.
    func read(_ handle: UInt16, connection: GATTConnectionID, reporting: Bool = true) async throws(ATTRequestFailure) -> [UInt8] {
        guard let attribute = database.attribute(handle) else { throw ATTRequestFailure(.invalidHandle, handle) }
        try await checkAccess(attribute, isWrite: false, connection: connection)
        if reporting, case .characteristicValue = attribute.role { emit(.valueRead(connection, handle: handle)) }
        if case .clientConfiguration = attribute.role {
            let bits = connections[connection]?.clientConfigurations[handle] ?? 0
            return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
        }
        if let onRead = attribute.onRead {
            let context = GATTRequestContext(connection: connection, handle: handle, security: connections[connection]?.security ?? .none)
            do { return try await onRead(context) } catch { throw ATTRequestFailure(error as? ATTErrorCode ?? .unlikelyError, handle) }
        }
        return attribute.value
    }

    /// The value a Read Blob at `offset` reads: the one kept from the start of the connection's
    /// long read of `handle` (after the access checks, which every request passes again), else
    /// the attribute's value read now (a read starting again at 0, or a central that started at
    /// another offset).
    private func longReadValue(_ handle: UInt16, offset: Int, connection: GATTConnectionID) async throws(ATTRequestFailure) -> [UInt8] {
        if offset > 0, connections[connection]?.longReads[handle] != nil, let attribute = database.attribute(handle) {
            try await checkAccess(attribute, isWrite: false, connection: connection)
            // Unless a write dropped it while the access checks ran.
            if let kept = connections[connection]?.longReads[handle] { return kept }
        }
        return try await read(handle, connection: connection, reporting: false)
    }

    /// Keeps `value`, just read through a read handler at offset 0, for the Read Blobs that
    /// follow when the answer is cut (longer than ATT_MTU − 1); otherwise drops what was kept.
    private func keepLongRead(_ value: [UInt8], handle: UInt16, mtu: Int, connection: GATTConnectionID) {
        guard connections[connection] != nil else { return }
        guard value.count > mtu - 1, database.attribute(handle)?.onRead != nil else {
            connections[connection]?.longReads[handle] = nil
            return
        }
        connections[connection]?.longReads[handle] = Array(value.prefix(ATT.maximumValueLength))
    }

    /// Writes a whole value to the attribute at `handle`, after the access and length checks.
    func write(_ value: [UInt8], handle: UInt16, connection: GATTConnectionID) async throws(ATTRequestFailure) {
        guard let attribute = database.attribute(handle) else { throw ATTRequestFailure(.invalidHandle, handle) }
        try await checkAccess(attribute, isWrite: true, connection: connection)
        guard value.count <= ATT.maximumValueLength else { throw ATTRequestFailure(.invalidAttributeValueLength, handle) }
        if case .clientConfiguration(let valueHandle, let properties) = attribute.role {
            guard value.count == 2 else { throw ATTRequestFailure(.invalidAttributeValueLength, handle) }
            let bits = UInt16(value[0]) | UInt16(value[1]) << 8
            var allowed: UInt16 = 0
            if properties.contains(.notify) { allowed |= ClientCharacteristicConfiguration.notifications.rawValue }
            if properties.contains(.indicate) { allowed |= ClientCharacteristicConfiguration.indications.rawValue }
            guard bits & ~allowed == 0 else { throw ATTRequestFailure(.cccdImproperlyConfigured, handle) }
            guard connections[connection] != nil else { return }
            connections[connection]?.clientConfigurations[handle] = bits
            notificationTable.setNotifications(bits & ClientCharacteristicConfiguration.notifications.rawValue != 0, cccd: handle, for: connection)
            emit(.clientConfigurationChanged(connection, valueHandle: valueHandle, ClientCharacteristicConfiguration(rawValue: bits)))
            return
        }
        if let onWrite = attribute.onWrite {
            let context = GATTRequestContext(connection: connection, handle: handle, security: connections[connection]?.security ?? .none)
            do { try await onWrite(context, value) } catch { throw ATTRequestFailure(error as? ATTErrorCode ?? .unlikelyError, handle) }
        }
        storeValue(value, handle: handle)
        emit(.valueWritten(connection, handle: handle))
    }

    /// Applies a prepare queue: parts are assembled per handle, in queue order, on top of the
    /// stored value when the first part does not start at 0; each assembled value is written once.
    private func execute(_ queue: [ATTPrepareWriteRequest], connection: GATTConnectionID) async throws(ATTRequestFailure) {
        var order: [UInt16] = []
        var assembled: [UInt16: [UInt8]] = [:]
        for part in queue {
            var value: [UInt8]
            if let current = assembled[part.handle] {
                value = current
            } else {
                order.append(part.handle)
                value = part.offset == 0 ? [] : (database.attribute(part.handle)?.value ?? [])
            }
            let offset = Int(part.offset)
            guard offset <= value.count else { throw ATTRequestFailure(.invalidOffset, part.handle) }
            let tail = offset + part.value.count < value.count ? Array(value[(offset + part.value.count)...]) : []
            value = Array(value[..<offset]) + part.value + tail
            guard value.count <= ATT.maximumValueLength else { throw ATTRequestFailure(.invalidAttributeValueLength, part.handle) }
            assembled[part.handle] = value
        }
        for handle in order {
            try await write(assembled[handle] ?? [], handle: handle, connection: connection)
        }
    }
}
