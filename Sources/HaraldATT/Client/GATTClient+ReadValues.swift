import HaraldCodec

/// Reading many values in few round trips.
extension GATTClient {
    /// Reads the whole values of many attributes, batching them with Read Multiple Variable
    /// (0x20, §4.8.5, servers of ATT 5.2 and later) as far as the ATT_MTU allows.
    ///
    /// - Each request carries as many of the handles still unread as fit one PDU; values the
    ///   server left out of a full response go into the next request.
    /// - A value that arrives truncated (fewer bytes than the length the server declared for it)
    ///   is completed with Read Blob from where it stopped — unless it is the last of several in
    ///   its response, cut where the PDU filled up: then it is asked for again, first in the next
    ///   request. The spec only lets the server cut the response at ATT_MTU − 1 bytes; a value
    ///   cut in a response shorter than that is not trusted and read again on its own.
    /// - When the server answers Request Not Supported, this client remembers it
    ///   (``readMultipleVariableRefused``) and reads one value at a time (Read, then Read Blob
    ///   for long values), now and for the rest of the connection. A single handle is read that
    ///   way too.
    /// - When a batch fails because one of its attributes cannot be read, the server names that
    ///   handle: it gets the error, the others are asked for again.
    ///
    /// Returns one result per handle, in order: the value, or the ``GATTError/attribute(_:handle:request:)``
    /// error the server gave for it. Failures of the whole link (disconnection, timeout,
    /// cancellation, a malformed answer) are thrown.
    public func readValues(handles: [UInt16], timeout: Duration? = nil) async throws(GATTError) -> [Result<[UInt8], GATTError>] {
        for handle in handles { try Self.checkHandle(handle) }
        let deadline = deadline(timeout)
        var results = Array(repeating: Result<[UInt8], GATTError>.success([]), count: handles.count)
        var pending = Array(handles.indices)
        while !readMultipleVariableRefused, pending.count >= 2 {
            // Opcode plus two bytes per handle must fit one PDU.
            let batch = Array(pending.prefix((mtu - 1) / 2))
            let response: ATTReadMultipleVariableResponse
            do {
                response = try await transact(
                    ATTReadMultipleVariableRequest(handles: batch.map { handles[$0] }),
                    expecting: ATTReadMultipleVariableResponse.self, deadline: deadline)
            } catch .attribute(.requestNotSupported, _, _) {
                readMultipleVariableRefused = true
                break
            } catch .attribute(.databaseOutOfSync, let handle, let request) {
                // Not about one value: every handle asked for may name something else now.
                throw .attribute(.databaseOutOfSync, handle: handle, request: request)
            } catch .attribute(let code, let handle, let request) {
                if let failed = batch.first(where: { handles[$0] == handle }) {
                    results[failed] = .failure(.attribute(code, handle: handle, request: request))
                    pending.removeAll { $0 == failed }
                } else {
                    // The error names no handle of the batch: ask for each value on its own.
                    for index in batch { results[index] = try await readWholeValue(handles[index], deadline: deadline) }
                    pending.removeFirst(batch.count)
                }
                continue
            }
            guard response.entries.count <= batch.count else {
                throw .invalidResponse("\(response.entries.count) values for \(batch.count) handles")
            }
            guard !response.entries.isEmpty else {
                for index in batch { results[index] = try await readWholeValue(handles[index], deadline: deadline) }
                pending.removeFirst(batch.count)
                continue
            }
            // A value shorter than its length can only be the last one parsed: the response's
            // bytes end inside it.
            let responseLength = response.entries.reduce(1) { $0 + 2 + $1.value.count }
            var answered = 0
            for (position, (index, entry)) in zip(batch, response.entries).enumerated() {
                if !entry.isTruncated {
                    results[index] = .success(entry.value)
                } else if position > 0 {
                    // Cut where the PDU filled up: ask again, first in the next request, rather
                    // than spend Read Blobs on the rest of a value that may fit a request whole.
                    break
                } else if responseLength != mtu {
                    // Cut although the PDU is not full: the server cut the value itself (Bumble
                    // cuts each value to 251 bytes) and the bytes after it belong to other values
                    // that cannot be told apart. Read this one alone; ask for the others again.
                    results[index] = try await readWholeValue(handles[index], deadline: deadline)
                } else {
                    results[index] = try await completeValue(handles[index], entry, deadline: deadline)
                }
                answered += 1
            }
            pending.removeFirst(answered)
        }
        for index in pending { results[index] = try await readWholeValue(handles[index], deadline: deadline) }
        return results
    }

    /// Read, then Read Blob while the value may go on (``readLong(handle:timeout:)``); an ATT
    /// error for the attribute becomes its result.
    private func readWholeValue(_ handle: UInt16, deadline: Duration) async throws(GATTError) -> Result<[UInt8], GATTError> {
        var value = [UInt8]()
        do {
            value = try await transact(ATTReadRequest(handle: handle), expecting: ATTReadResponse.self, deadline: deadline).value
        } catch let error {
            guard error.isAboutOneAttribute else { throw error }
            return .failure(error)
        }
        var lastPart = value.count
        while true {
            do {
                guard try Self.longReadContinues(valueLength: value.count, lastPart: lastPart, mtu: mtu) else { break }
            } catch let error {
                return .failure(error)
            }
            let part: [UInt8]
            do {
                part = try await transact(
                    ATTReadBlobRequest(handle: handle, offset: UInt16(value.count)), expecting: ATTReadBlobResponse.self, deadline: deadline
                ).value
            } catch .attribute(.attributeNotLong, _, _) {
                break
            } catch .attribute(.invalidOffset, _, _) {
                break
            } catch let error {
                guard error.isAboutOneAttribute else { throw error }
                return .failure(error)
            }
            value += part
            lastPart = part.count
        }
        return .success(value)
    }

    /// Completes a value a Read Multiple Variable response truncated: Read Blob from the end of
    /// what arrived until the declared length is reached or a part comes back short. A server
    /// that refuses the Read Blob (Attribute Not Long, Invalid Offset) gets a fresh whole read.
    private func completeValue(
        _ handle: UInt16, _ entry: ATTReadMultipleVariableResponse.Entry, deadline: Duration
    ) async throws(GATTError) -> Result<[UInt8], GATTError> {
        var value = entry.value
        while value.count < Int(entry.length) {
            let part: [UInt8]
            do {
                part = try await transact(
                    ATTReadBlobRequest(handle: handle, offset: UInt16(value.count)), expecting: ATTReadBlobResponse.self, deadline: deadline
                ).value
            } catch .attribute(.attributeNotLong, _, _) {
                // Servers may refuse Read Blob on values that fit one Read Response (≤ ATT_MTU − 1).
                return try await readWholeValue(handle, deadline: deadline)
            } catch .attribute(.invalidOffset, _, _) {
                // The value shrank since the batch read it.
                return try await readWholeValue(handle, deadline: deadline)
            } catch let error {
                guard error.isAboutOneAttribute else { throw error }
                return .failure(error)
            }
            value += part
            // A part shorter than a full PDU means the value ended (it may have shrunk meanwhile).
            if part.count < mtu - 1 { break }
        }
        return .success(value)
    }
}
