import HaraldCore

/// The key for an LE Long Term Key Request on a link we are peripheral of: `rand` and `ediv`
/// name a legacy key (both 0 for Secure Connections). Nil answers the Negative Reply.
public typealias LongTermKeyProvider = @Sendable (_ peer: BluetoothAddress, _ rand: UInt64, _ ediv: UInt16) async -> SecretKey128?

/// The host's LE Enable Encryption requests: the callers' continuations and the host's timers.
typealias HostEncryptionRequests = LEEncryptionRequests<CheckedContinuation<Result<LinkEncryption, HCIError>, Never>, HostTimer>

extension HCIHost {
    /// Sets where LE Long Term Key Requests (peripheral role) get their keys; without a provider
    /// the host answers every request with the Negative Reply.
    public func setLongTermKeyProvider(_ provider: LongTermKeyProvider?) {
        longTermKeyProvider = provider
    }

    /// Encrypts (or re-encrypts) the link `handle`, which we are central of, with `key`: LE Enable
    /// Encryption, then waits for Encryption Change (Encryption Key Refresh Complete on an
    /// encrypted link). A refusal throws ``HCIError/encryptionFailed(_:)`` — 0x06 PIN or Key
    /// Missing when the peer has no key (it lost the bond); the link stays up then. No outcome
    /// within `timeout` throws ``HCIError/commandTimedOut(_:)``.
    func encrypt(handle: UInt16, key: SecretKey128, rand: UInt64, ediv: UInt16, timeout: Duration) async throws(HCIError) -> LinkEncryption {
        try ensureOpen()
        guard let state = connections[handle] else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        guard state.connection.role == .central else { throw .unsupported("only the central starts encryption") }
        guard encryption.requests[handle] == nil else { throw .busy("encryption of this link is already under way") }
        let id = newRequestID()
        let command = HCICommand.leEnableEncryption(handle: handle, rand: rand, ediv: ediv, key: key)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<LinkEncryption, HCIError>, Never>) in
            // Not busy: checked above, with no suspension since.
            _ = encryption.begin(handle: handle, id: id, waiter: continuation)
            let timer = addDeadline(after: timeout) { host in
                host.finishEncryption(handle: handle, id: id, .failure(.commandTimedOut(.leEnableEncryption)))
            }
            _ = encryption.arm(timer, handle: handle, id: id)
            startBackground { host in
                do throws(HCIError) { try await host.executeAccepted(command) } catch {
                    host.finishEncryption(handle: handle, id: id, .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Resumes the encryption waiter of `handle` (the one with `id`, when given) with `result`.
    func finishEncryption(handle: UInt16, id: UInt64? = nil, _ result: Result<LinkEncryption, HCIError>) {
        guard let request = encryption.end(handle: handle, id: id) else { return }
        cancelDeadline(request.timer)
        request.waiter.resume(returning: result)
    }

    func encryptionChanged(_ change: EncryptionChange) {
        if change.status.isSuccess, let connection = connections[change.handle]?.connection {
            connection.info.withLock {
                $0.isEncrypted = change.isEncrypted
                if let size = change.keySize { $0.keySize = size }
            }
        }
        let outcome = HostEncryptionRequests.outcome(of: change)
        if case .success(let encryption) = outcome { connections[change.handle]?.connection.reportEncryption(encryption) }
        finishEncryption(handle: change.handle, outcome)
    }

    func encryptionRefreshed(_ refresh: EncryptionKeyRefreshComplete) {
        let size = connections[refresh.handle]?.connection.info.value.keySize
        let outcome = HostEncryptionRequests.outcome(of: refresh, keySize: size)
        if case .success(let encryption) = outcome { connections[refresh.handle]?.connection.reportEncryption(encryption) }
        finishEncryption(handle: refresh.handle, outcome)
    }

    /// Answers the controller's LE Long Term Key Request from the provider, or refuses it.
    func answerLongTermKeyRequest(_ request: LELongTermKeyRequest) async {
        guard let peer = connections[request.handle]?.connection.peer else { return }
        let key = await longTermKeyProvider?(peer, request.rand, request.ediv)
        do {
            if let key {
                try await execute(.leLongTermKeyRequestReply(handle: request.handle, key: key))
            } else {
                try await execute(.leLongTermKeyRequestNegativeReply(handle: request.handle))
            }
        } catch {
            // The link may have gone meanwhile; the controller then refuses the reply. Logged,
            // never with the key.
            logger.debug("answering an LTK request failed", metadata: ["handle": "\(request.handle)", "error": "\(error)"])
        }
    }
}
