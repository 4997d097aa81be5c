import Foundation
import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore

extension Bumble {
    /// scripts/bumble/signaling_peer.py: sends LE signaling and SMP requests once connected.
    static let signaling = BluetoothAddress("C0:00:00:00:00:07", kind: .random)!
}

extension BumbleIntegrationTests {
    /// The signaling peer's report (characteristic 0xFFD1), read with Read By Type.
    static func signalingReport(_ att: RawATT) async throws -> [String: String] {
        let response = try await att.request([0x08] + RawATT.le16(0x0001) + RawATT.le16(0xFFFF) + RawATT.le16(0xFFD1))
        guard response.first == 0x09, response.count >= 4 else { throw ATTFailure(response) }
        let text = String(decoding: response[4...], as: UTF8.self)
        return Dictionary(
            text.split(separator: " ").compactMap { field in
                let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { _, last in last })
    }

    @Test func peerSignalingAndPairingRequestsGetTheHostsAnswers() async throws {
        let (report, interval) = try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.signaling)
            let att = RawATT(connection)
            _ = try await att.exchangeMTU(247)
            // The peer sends its requests right after connecting; read its report until every
            // answer is in and the accepted update reached both controllers (bounded by the
            // suite's deadline, not timed).
            var report = try await Self.signalingReport(att)
            while report.values.contains("none") || report["updated"] != "yes" || connection.parameters.interval != 32 {
                try await Task.sleep(for: .milliseconds(20))
                report = try await Self.signalingReport(att)
            }
            let interval = connection.parameters.interval
            _ = try await connection.disconnect()
            return (report, interval)
        }
        #expect(report["update"] == "0000", "Connection Parameter Update Response: accepted")
        #expect(report["reject"] == "0000", "Command Reject: command not understood")
        #expect(report["pairing"] == "05", "Pairing Failed: Pairing Not Supported")
        #expect(report["updated"] == "yes")
        #expect(interval == 32, "the host applied the requested interval (32 x 1.25 ms)")
    }
}
