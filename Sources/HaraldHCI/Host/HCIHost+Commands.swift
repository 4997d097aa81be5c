import HaraldCodec

/// The controller's first answer to a command.
public enum HCICommandResponse: Sendable, Hashable {
    /// Command Complete with the return parameters.
    case complete(CommandComplete)
    /// Command Status: accepted (or refused); the outcome comes later in its own event.
    case status(CommandStatus)

    /// The status byte at the start of the return parameters (Command Complete) or the Command Status status.
    public var status: HCIStatus {
        switch self {
        case let .complete(complete): return complete.status
        case let .status(status): return status.status
        }
    }
}

/// A command waiting for a credit or for its answer.
struct PendingCommand {
    let id: UInt64
    let command: HCICommand
    let continuation: CheckedContinuation<Result<HCICommandResponse, HCIError>, Never>
    var timer: Task<Void, Never>?
}

extension HCIHost {
    /// Sends a command and returns the controller's first answer (Command Complete or Command
    /// Status), whatever its status.
    ///
    /// Commands wait for a credit (Num_HCI_Command_Packets) and go out in call order. An answer is
    /// matched to the oldest outstanding command with its opcode. Throws
    /// ``HCIError/commandTimedOut(_:)`` after ``Configuration/commandTimeout``.
    public func send(_ command: HCICommand) async throws(HCIError) -> HCICommandResponse {
        try ensureOpen()
        let id = newRequestID()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HCICommandResponse, HCIError>, Never>) in
            // The timeout covers the wait for a credit as well as the wait for the answer.
            let timer = after(configuration.commandTimeout) { host in
                host.commandTimedOut(id: id, opcode: command.opcode)
            }
            commandQueue.append(PendingCommand(id: id, command: command, continuation: continuation, timer: timer))
            if !isSendingCommands {
                // Start the sender; it runs on this actor once this call has suspended.
                startBackground { host in await host.sendQueuedCommands() }
            }
        }
        return try result.get()
    }

    /// Sends a command that answers with Command Complete; returns its return parameters after the
    /// status byte. A non-zero status throws ``HCIError/commandFailed(_:_:)``.
    @discardableResult
    public func execute(_ command: HCICommand) async throws(HCIError) -> [UInt8] {
        switch try await send(command) {
        case let .complete(complete):
            guard complete.status.isSuccess else { throw .commandFailed(command.opcode, complete.status) }
            return Array(complete.returnParameters.dropFirst())
        case let .status(status):
            throw status.status.isSuccess
                ? .unexpectedResponse(command.opcode, "Command Status instead of Command Complete")
                : .commandFailed(command.opcode, status.status)
        }
    }

    /// Sends a command that answers with Command Status and completes later with its own event;
    /// throws ``HCIError/commandFailed(_:_:)`` unless the controller accepted it.
    public func executeAccepted(_ command: HCICommand) async throws(HCIError) {
        let response = try await send(command)
        guard response.status.isSuccess else { throw .commandFailed(command.opcode, response.status) }
    }

    /// Sends queued commands while the controller has credits. A command the transport fails to
    /// take closes the host (see ``backgroundFailed(_:activity:handle:)``): every command then
    /// fails with that transport error.
    func sendQueuedCommands() async {
        guard !isSendingCommands else { return }
        isSendingCommands = true
        defer { isSendingCommands = false }
        while closedError == nil, commandCredits > 0, !commandQueue.isEmpty {
            let pending = commandQueue.removeFirst()
            commandCredits -= 1
            let id = pending.id
            awaitingResponse.append(pending)
            do {
                try await transmit(pending.command.packet)
            } catch {
                if let index = awaitingResponse.firstIndex(where: { $0.id == id }) {
                    let failed = awaitingResponse.remove(at: index)
                    failed.timer?.cancel()
                    failed.continuation.resume(returning: .failure(error))
                }
                backgroundFailed(error, activity: "sending \(pending.command.opcode)", handle: nil)
                commandCredits = max(commandCredits, 1)
            }
        }
    }

    /// Matches an answer to the oldest command with its opcode and updates the credits.
    func commandAnswered(opcode: HCIOpcode, credits: UInt8, response: HCICommandResponse) {
        commandCredits = Int(credits)
        guard opcode.rawValue != 0, let index = awaitingResponse.firstIndex(where: { $0.command.opcode == opcode }) else {
            return  // a credit update only, or an answer to nothing we sent
        }
        let pending = awaitingResponse.remove(at: index)
        pending.timer?.cancel()
        pending.continuation.resume(returning: .success(response))
    }

    func commandTimedOut(id: UInt64, opcode: HCIOpcode) {
        if let index = commandQueue.firstIndex(where: { $0.id == id }) {
            commandQueue.remove(at: index).continuation.resume(returning: .failure(.commandTimedOut(opcode)))
            return
        }
        guard let index = awaitingResponse.firstIndex(where: { $0.id == id }) else { return }
        let pending = awaitingResponse.remove(at: index)
        pending.continuation.resume(returning: .failure(.commandTimedOut(opcode)))
        // The controller lost the command; allow the next one rather than stall forever.
        if awaitingResponse.isEmpty { commandCredits = max(commandCredits, 1) }
        if !commandQueue.isEmpty, !isSendingCommands {
            startBackground { host in await host.sendQueuedCommands() }
        }
    }
}
