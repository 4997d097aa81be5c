import HaraldCodec
import HaraldCore

extension GATTClient {
    // MARK: Reads

    /// Read Characteristic Value / Read Characteristic Descriptor (§4.8.1, §4.12.1): one Read
    /// Request; returns at most ATT_MTU − 1 bytes.
    public func read(handle: UInt16, timeout: Duration? = nil) async throws(GATTError) -> [UInt8] {
        try Self.checkHandle(handle)
        return try await transact(ATTReadRequest(handle: handle), expecting: ATTReadResponse.self, deadline: deadline(timeout)).value
    }

    /// One Read Blob Request: up to ATT_MTU − 1 bytes of the value from `offset`.
    public func readBlob(handle: UInt16, offset: UInt16, timeout: Duration? = nil) async throws(GATTError) -> [UInt8] {
        try Self.checkHandle(handle)
        return try await transact(ATTReadBlobRequest(handle: handle, offset: offset), expecting: ATTReadBlobResponse.self, deadline: deadline(timeout)).value
    }

    /// Read Long Characteristic Value (§4.8.3): a Read, then Read Blobs from the end of what was
    /// read while each answer is full (ATT_MTU − 1 bytes). Attribute Not Long, or Invalid
    /// Offset at the value's end, ends the loop, and so does reaching 512 bytes, the most an
    /// attribute value holds; a server whose parts go past that fails the read with
    /// `GATTError.invalidResponse`.
    public func readLong(handle: UInt16, timeout: Duration? = nil) async throws(GATTError) -> [UInt8] {
        try Self.checkHandle(handle)
        let deadline = deadline(timeout)
        var value = try await transact(ATTReadRequest(handle: handle), expecting: ATTReadResponse.self, deadline: deadline).value
        var lastPart = value.count
        while try Self.longReadContinues(valueLength: value.count, lastPart: lastPart, mtu: mtu) {
            let part: [UInt8]
            do {
                part = try await transact(
                    ATTReadBlobRequest(handle: handle, offset: UInt16(value.count)), expecting: ATTReadBlobResponse.self, deadline: deadline
                ).value
            } catch .attribute(.attributeNotLong, _, _) {
                break
            } catch .attribute(.invalidOffset, _, _) {
                break
            }
            value += part
            lastPart = part.count
        }
        return value
    }

    /// Whether a long read asks for more after a part of `lastPart` bytes left it holding
    /// `valueLength`: while each part fills the Read Blob Response and the value is shorter than
    /// 512 bytes, the most an attribute value may hold (Core Vol 3 Part F §3.2.9). A value that
    /// grew past 512 is the server's mistake: `GATTError.invalidResponse`, and no more requests.
    static func longReadContinues(valueLength: Int, lastPart: Int, mtu: Int) throws(GATTError) -> Bool {
        guard valueLength <= ATT.maximumValueLength else {
            throw .invalidResponse("value longer than \(ATT.maximumValueLength) bytes, the most an attribute holds")
        }
        return lastPart == mtu - 1 && valueLength < ATT.maximumValueLength
    }

    /// Read Multiple Characteristic Values (§4.8.4): the values of two or more handles,
    /// concatenated (cut to ATT_MTU − 1 bytes); the caller must know their lengths.
    public func readMultiple(handles: [UInt16], timeout: Duration? = nil) async throws(GATTError) -> [UInt8] {
        guard handles.count >= 2 else { throw .invalidArgument("Read Multiple needs two or more handles") }
        for handle in handles { try Self.checkHandle(handle) }
        return try await transact(ATTReadMultipleRequest(handles: handles), expecting: ATTReadMultipleResponse.self, deadline: deadline(timeout)).values
    }

    /// Read Multiple Variable Length Characteristic Values (§4.8.5): each value with its length.
    /// The response is cut to ATT_MTU − 1 bytes, so the last entries may be truncated or missing.
    public func readMultipleVariable(handles: [UInt16], timeout: Duration? = nil) async throws(GATTError) -> [ATTReadMultipleVariableResponse.Entry] {
        guard handles.count >= 2 else { throw .invalidArgument("Read Multiple Variable needs two or more handles") }
        for handle in handles { try Self.checkHandle(handle) }
        let response = try await transact(
            ATTReadMultipleVariableRequest(handles: handles), expecting: ATTReadMultipleVariableResponse.self, deadline: deadline(timeout))
        guard response.entries.count <= handles.count else { throw .invalidResponse("\(response.entries.count) values for \(handles.count) handles") }
        return response.entries
    }

    /// Read Using Characteristic UUID (§4.8.2): one Read By Type over `range`; returns the
    /// handle/value pairs of the first response.
    public func read(type: BluetoothUUID, in range: ATTHandleRange = .all, timeout: Duration? = nil) async throws(GATTError) -> [ATTHandleValue] {
        guard range.isValid else { throw .invalidArgument("invalid handle range \(range)") }
        return try await transact(ATTReadByTypeRequest(range: range, attributeType: type), expecting: ATTReadByTypeResponse.self, deadline: deadline(timeout))
            .entries
    }

    // MARK: Writes

    /// Write Characteristic Value / Descriptor (§4.9.3): one Write Request of at most
    /// ATT_MTU − 3 bytes (use ``writeLong(handle:value:offset:reliable:timeout:)`` beyond).
    public func write(handle: UInt16, value: [UInt8], timeout: Duration? = nil) async throws(GATTError) {
        try Self.checkHandle(handle)
        guard value.count <= mtu - 3 else { throw .invalidArgument("\(value.count) bytes exceed ATT_MTU − 3 = \(mtu - 3)") }
        _ = try await transact(ATTWriteRequest(handle: handle, value: value), expecting: ATTWriteResponse.self, deadline: deadline(timeout))
    }

    /// Write Without Response (§4.9.1): one Write Command of at most ATT_MTU − 3 bytes; returns
    /// once the bearer took it (no acknowledgement from the server).
    public func writeWithoutResponse(handle: UInt16, value: [UInt8]) async throws(GATTError) {
        try Self.checkHandle(handle)
        guard value.count <= mtu - 3 else { throw .invalidArgument("\(value.count) bytes exceed ATT_MTU − 3 = \(mtu - 3)") }
        try await sendCommand(ATTWriteCommand(handle: handle, value: value))
    }

    /// Write Long Characteristic Values (§4.9.4) or, with `reliable`, Reliable Writes (§4.9.5):
    /// Prepare Write Requests of ATT_MTU − 5 bytes, then Execute Write.
    ///
    /// When reliable, each echoed part is compared with what was sent; on a difference the
    /// queue is cancelled (Execute Write, flags 0x00) and ``GATTError/reliableWriteMismatch(handle:offset:)``
    /// thrown. On an error from the server after parts were queued, the queue is cancelled too.
    /// One long write at a time per client (``GATTError/procedureInProgress``).
    public func writeLong(handle: UInt16, value: [UInt8], offset: UInt16 = 0, reliable: Bool = false, timeout: Duration? = nil) async throws(GATTError) {
        try Self.checkHandle(handle)
        guard Int(offset) + value.count <= ATT.maximumValueLength else {
            throw .invalidArgument("offset \(offset) + \(value.count) bytes exceed \(ATT.maximumValueLength)")
        }
        guard !longWriteInProgress else { throw .procedureInProgress }
        longWriteInProgress = true
        defer { longWriteInProgress = false }
        let deadline = deadline(timeout)
        let chunk = mtu - 5
        var position = 0
        var queued = false
        do throws(GATTError) {
            repeat {
                let part = Array(value[position..<min(value.count, position + chunk)])
                let partOffset = offset + UInt16(position)
                let echo = try await transact(
                    ATTPrepareWriteRequest(handle: handle, offset: partOffset, value: part), expecting: ATTPrepareWriteResponse.self, deadline: deadline)
                queued = true
                if reliable, echo.handle != handle || echo.offset != partOffset || echo.value != part {
                    throw GATTError.reliableWriteMismatch(handle: handle, offset: partOffset)
                }
                position += part.count
            } while position < value.count
            _ = try await transact(ATTExecuteWriteRequest(flags: .write), expecting: ATTExecuteWriteResponse.self, deadline: deadline)
        } catch {
            if queued, error != .disconnected {
                await cancelPreparedWrites()
            }
            throw error
        }
    }

    /// Sends Execute Write (cancel) so the server drops its prepare queue. Best effort: it runs
    /// even when the calling task was cancelled, bounded by the transaction timeout.
    private func cancelPreparedWrites() async {
        let deadline = deadlines.now() + configuration.transactionTimeout
        let task = starter.start { [self] in
            _ = try? await self.transact(ATTExecuteWriteRequest(flags: .cancel), expecting: ATTExecuteWriteResponse.self, deadline: deadline)
        }
        await task.value
    }

    // MARK: Subscriptions

    /// Writes the Client Characteristic Configuration descriptor at `cccdHandle`: which pushes
    /// (notifications, indications, both, or none) the server should send for its
    /// characteristic. Routing them is ``subscribe(handle:bufferingPolicy:)``.
    public func configureNotifications(cccdHandle: UInt16, _ configuration: ClientCharacteristicConfiguration, timeout: Duration? = nil) async throws(GATTError)
    {
        try await write(handle: cccdHandle, value: configuration.bytes, timeout: timeout)
    }

    static func checkHandle(_ handle: UInt16) throws(GATTError) {
        guard handle != 0 else { throw .invalidArgument("handle 0x0000 is reserved") }
    }
}
