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

/// A caller of the host waiting for an outcome (a command's answer, the answer to a signaling
/// request of ours), and the timer that ends the wait.
struct HostWaiter<Success: Sendable> {
    let continuation: CheckedContinuation<Result<Success, HCIError>, Never>
    var timer: HostTimer?
}

extension HCIHost {
    /// Stops a waiter's timer and resumes its caller with `result`.
    func finish<Success>(_ waiter: HostWaiter<Success>?, _ result: Result<Success, HCIError>) {
        guard let waiter else { return }
        cancelDeadline(waiter.timer)
        waiter.continuation.resume(returning: result)
    }
}

// The host's side of command flow control: HCICommandFlow decides which command goes next and
// whose an answer is; the host writes the commands and resumes their callers.
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
            let timer = addDeadline(after: configuration.commandTimeout) { host in
                host.commandTimedOut(id: id, opcode: command.opcode)
            }
            commandWaiters[id] = HostWaiter(continuation: continuation, timer: timer)
            commandFlow.enqueue(command, id: id)
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
        while closedError == nil, let (id, command) = commandFlow.nextCommand() {
            do {
                try await transmit(command.packet)
            } catch {
                commandFlow.sendFailed(id)
                finishCommand(id, .failure(error))
                backgroundFailed(error, activity: "sending \(command.opcode)", handle: nil)
            }
        }
    }

    /// Command Complete or Command Status: the answer goes to its command's caller.
    func commandAnswered(opcode: HCIOpcode, credits: UInt8, response: HCICommandResponse) {
        guard let id = commandFlow.answered(opcode: opcode, credits: credits) else { return }
        finishCommand(id, .success(response))
    }

    func commandTimedOut(id: UInt64, opcode: HCIOpcode) {
        guard commandFlow.timedOut(id) else { return }
        finishCommand(id, .failure(.commandTimedOut(opcode)))
        if commandFlow.canSend, !isSendingCommands {
            startBackground { host in await host.sendQueuedCommands() }
        }
    }

    /// Resumes command `id`'s caller and stops its timer.
    func finishCommand(_ id: UInt64, _ result: Result<HCICommandResponse, HCIError>) {
        finish(commandWaiters.removeValue(forKey: id), result)
    }
}
