#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HaraldCodec
import HaraldCore
import Testing

@testable import HaraldHCI

/// The controller's process dies mid-run: scripts/integration starts a pair of controllers in a
/// process of their own, with a heart-rate peer on one, and names that process here.
enum DoomedController {
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_DOOMED_TRANSPORT"] }
    static var pid: Int32? { ProcessInfo.processInfo.environment["HARALD_DOOMED_CONTROLLER_PID"].flatMap { Int32($0) } }
    static let peer = BluetoothAddress("C0:00:00:00:00:0E", kind: .random)!
    static let absent = BluetoothAddress("C0:00:00:00:00:7F", kind: .random)!
}

extension BumbleIntegrationTests {
    /// Killed by SIGKILL, the controller's process closes its end of the TCP link: the host
    /// closes with the transport error, and every operation that was waiting (a connection
    /// attempt to an absent peer, the ATT channel of a live link waiting for notifications) ends
    /// with an error within one second; nothing hangs.
    @Test func aControllerKilledMidRunFailsEveryPendingOperationWithinOneSecond() async throws {
        let specification = try #require(DoomedController.transport, "HARALD_DOOMED_TRANSPORT names the doomed controller")
        let pid = try #require(DoomedController.pid, "HARALD_DOOMED_CONTROLLER_PID names its process")
        let host = HCIHost(transport: try openHCITransport(specification))
        try await host.start()
        let connection = try await host.connect(to: DoomedController.peer)
        let att = RawATT(connection)
        let measurement = try #require(try await att.characteristics().first { $0.uuid == "2A37" })
        #expect(try await att.request([0x12] + RawATT.le16(measurement.handle + 1) + [0x01, 0x00]) == [0x13])
        _ = try await att.nextNotification()
        let closes = await host.closeEvents()
        let attempt = Task { try await host.connect(to: DoomedController.absent, timeout: nil) }
        while await host.liveContinuations < 2 { await Task.yield() }  // the attempt and the close watcher

        let clock = ContinuousClock()
        let killed = clock.now
        #expect(kill(pid, SIGKILL) == 0)
        var reasons: [HCIError] = []
        for await reason in closes { reasons.append(reason) }
        await #expect(throws: HCIError.transport(.closed)) { _ = try await attempt.value }
        while (try? await att.nextNotification()) != nil {}
        let elapsed = clock.now - killed

        #expect(reasons == [.transport(.closed)])
        #expect(connection.disconnectReason == .hardwareFailure)
        #expect(elapsed < .seconds(1), "pending operations took \(elapsed) to fail")
        await host.close()
        #expect(await host.liveContinuations == 0)
        #expect(await host.liveTaskCount == 0)
    }
}
