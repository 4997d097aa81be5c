import Foundation
import Harald
import HaraldCodec
import HaraldScenarioSuite

/// ``ScenarioPeer`` over the Bumble scenario peer's control channel. Waiting for the peer to
/// reach a state polls it on real time (the peer runs on real time too), with a cap that only
/// guards against hangs.
struct BumbleScenarioPeer: ScenarioPeer {
    let identifier: PeripheralIdentifier
    let control: ScenarioControlChannel

    /// Longest wait for a state of the peer before the scenario fails (a hang guard).
    static let patience = Duration.seconds(30)

    func reset() async throws { _ = try await control.send(["op": "reset"]) }
    func holdAnswers() async throws { _ = try await control.send(["op": "hold"]) }
    func resumeAnswering() async throws { _ = try await control.send(["op": "resume"]) }

    func waitForHeldRequests(_ count: Int) async throws {
        try await poll("\(count) held requests") { (try await control.send(["op": "held"])["count"] as? Int ?? 0) >= count }
    }

    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async throws {
        _ = try await control.send(["op": "notify", "uuid": uuid.uuidString, "hex": value.hexString])
    }

    func value(of uuid: BluetoothUUID) async throws -> [UInt8] {
        try Self.bytes(try await control.send(["op": "value", "uuid": uuid.uuidString])["hex"])
    }

    func writesWithoutResponse(to uuid: BluetoothUUID, count: Int) async throws -> [[UInt8]] {
        var values: [[UInt8]] = []
        try await poll("\(count) writes without response") {
            let answer = try await control.send(["op": "writes", "uuid": uuid.uuidString])
            values = try (answer["values"] as? [Any] ?? []).map(Self.bytes)
            return values.count >= count
        }
        return values
    }

    func disconnectFromPeer() async throws { _ = try await control.send(["op": "disconnect"]) }

    func notificationsEnabled(on uuid: BluetoothUUID) async throws -> Bool {
        try await control.send(["op": "subscribed", "uuid": uuid.uuidString])["enabled"] as? Bool ?? false
    }

    private func poll(_ what: String, until done: () async throws -> Bool) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        while try await !done() {
            guard clock.now - start < Self.patience else { throw ScenarioFailure("the Bumble peer never reached \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private static func bytes(_ hex: Any?) throws -> [UInt8] {
        guard let text = hex as? String, let bytes = try? [UInt8](hex: text) else { throw ScenarioFailure("bad hex from the peer: \(hex ?? "nil")") }
        return bytes
    }
}
