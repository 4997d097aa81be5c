import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

@testable import HaraldHCI

/// Bytes from hex text written in a test; records an issue (and gives no bytes) if the text is bad.
func bytes(_ hex: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    do {
        return try Hex.decode(hex)
    } catch {
        Issue.record("bad hex in test: \(error)", sourceLocation: sourceLocation)
        return []
    }
}

/// Yields until `condition` holds, at most `attempts` times: a bound against hangs, not a timing
/// assertion.
func eventually(_ attempts: Int = 100_000, _ condition: () async -> Bool) async -> Bool {
    for _ in 0..<attempts {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Starts a host with `configuration` on `controller`, then has the controller complete a
/// connection to `peer` (handle 0x0040) when asked, and answer every other command the standard way.
func startedHost(
    on controller: FakeController, completingConnectionsTo peer: BluetoothAddress, configuration: HCIHost.Configuration = HCIHost.Configuration(),
    clock: ManualClock = ManualClock()
) async throws -> HCIHost {
    let host = HCIHost(transport: controller, clock: clock, configuration: configuration)
    try await host.start()
    controller.answer { controller, command in
        var replies = controller.standardAnswer(command)
        if command.opcode == .leCreateConnection, command.parameters[6..<12].elementsEqual(peer.littleEndianBytes) {
            replies.append(FakeController.connectionComplete(handle: 0x40, peer: peer))
        }
        return replies
    }
    return host
}

/// Lets a connection attempt to a controller that never connects time out: the attempt's own
/// timeout (`timeout`) fires, the host sends LE Create Connection Cancel, and the controller
/// never confirms it either, so the host's 5 s wait for the confirmation runs out too.
///
/// The attempt's timer is armed when the connecting task resumes after the command's status,
/// which can come after the host's command queue is empty, and a sleeper left from an earlier
/// timer can already be waiting: one advance could then come before the timer exists, and the
/// timer would count from the later time. So time moves on by `timeout` until the host cancels.
/// The confirmation's bound is added before the cancel is sent, so one advance ends it.
func letAttemptTimeOut(on controller: FakeController, host: HCIHost, clock: ManualClock, after timeout: Duration) async {
    await controller.waitForCommand(.leCreateConnection)
    while !controller.sentCommands.contains(where: { $0.opcode == .leCreateConnectionCancel }) {
        await host.settleCommands()
        await clock.waitForSleepers(atLeast: 1)  // the connection timeout (or an earlier sleeper)
        clock.advance(by: timeout)
        await Task.yield()
    }
    await host.settleCommands()
    await clock.waitForSleepers(atLeast: 1)  // the wait for the controller's confirmation
    clock.advance(by: .seconds(5))
}
