import Foundation
import HaraldTestSupport
import NIOConcurrencyHelpers
import NIOSSL
import Testing

@testable import HaraldMQTT

/// The client against a real Mosquitto (started by `scripts/mosquitto`), with `mosquitto_sub` as
/// the independent consumer. Without HARALD_MQTT_BROKER=host:port these are skipped.
@Suite(.enabled(if: Mosquitto.broker != nil, "set HARALD_MQTT_BROKER=host:port (run scripts/mosquitto test) to test against Mosquitto"))
struct MosquittoIntegrationTests {
    private func client(_ id: String, will: MQTTLastWill? = nil) throws -> MQTTClient {
        let (host, port) = try #require(Mosquitto.broker)
        let configuration = MQTTClient.Configuration(host: host, port: port, clientIdentifier: id, keepAlive: .seconds(30), will: will)
        return MQTTClient(configuration: configuration, clock: ManualClock())
    }

    private let run = UUID().uuidString.prefix(8)

    @Test func aRetainedMessageReachesALaterSubscriberFlaggedRetained() async throws {
        let topic = "harald-test/\(run)/retained"
        let gateway = try client("harald-retained-\(run)")
        try await gateway.connect()
        try await gateway.publish(topic: topic, payload: Array("online".utf8), qos: .atLeastOnce, retain: true)
        let consumer = try MosquittoSub(topic: topic)
        let line = try await consumer.nextMessage()
        #expect(line == "MSG 1 0 \(topic) online")
        // Clear the retained value so the broker keeps nothing from the test.
        try await gateway.publish(topic: topic, payload: [], qos: .atLeastOnce, retain: true)
        await gateway.disconnect()
    }

    @Test func theLastWillIsPublishedWhenTheConnectionIsKilled() async throws {
        let topic = "harald-test/\(run)/LWT"
        let will = MQTTLastWill(topic: topic, payload: Array("offline".utf8), qos: .atLeastOnce, retain: false)
        let gateway = try client("harald-will-\(run)", will: will)
        try await gateway.connect()
        let consumer = try MosquittoSub(topic: topic, qos: 1)
        try await consumer.waitUntilSubscribed()
        await gateway.killConnection()
        let line = try await consumer.nextMessage()
        #expect(line == "MSG 0 1 \(topic) offline")
        await gateway.disconnect()
    }

    @Test func aQoS1MessageIsDeliveredAtQoS1() async throws {
        let topic = "harald-test/\(run)/state"
        let consumer = try MosquittoSub(topic: topic, qos: 1)
        try await consumer.waitUntilSubscribed()
        let gateway = try client("harald-qos1-\(run)")
        try await gateway.connect()
        try await gateway.publish(topic: topic, payload: Array("{\"rssi\":-60}".utf8), qos: .atLeastOnce)
        let line = try await consumer.nextMessage()
        #expect(line == "MSG 0 1 \(topic) {\"rssi\":-60}")
        await gateway.disconnect()
    }

    @Test(.enabled(if: Mosquitto.tlsBroker != nil, "set HARALD_MQTT_TLS_BROKER and HARALD_MQTT_CA_FILE (scripts/mosquitto test)"))
    func aClientConnectsOverTLSTrustingTheBrokersCA() async throws {
        let (host, port) = try #require(Mosquitto.tlsBroker)
        let caFile = try #require(ProcessInfo.processInfo.environment["HARALD_MQTT_CA_FILE"])
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        let topic = "harald-test/\(run)/tls"
        let consumer = try MosquittoSub(topic: topic, qos: 1)
        try await consumer.waitUntilSubscribed()
        let configuration = MQTTClient.Configuration(host: host, port: port, clientIdentifier: "harald-tls-\(run)", keepAlive: .seconds(30), tls: tls)
        let gateway = MQTTClient(configuration: configuration, clock: ManualClock())
        // A failed handshake is retried after a backoff the manual clock never ends: a guard.
        try await withHangGuard(seconds: 20) { try await gateway.connect() }
        try await gateway.publish(topic: topic, payload: Array("over TLS".utf8), qos: .atLeastOnce)
        let line = try await consumer.nextMessage()
        #expect(line == "MSG 0 1 \(topic) over TLS")
        await gateway.disconnect()
    }
}

/// Where the brokers are, from HARALD_MQTT_BROKER (plain) and HARALD_MQTT_TLS_BROKER (TLS).
enum Mosquitto {
    static var broker: (host: String, port: Int)? { address("HARALD_MQTT_BROKER") }
    static var tlsBroker: (host: String, port: Int)? { address("HARALD_MQTT_TLS_BROKER") }

    private static func address(_ variable: String) -> (host: String, port: Int)? {
        guard let value = ProcessInfo.processInfo.environment[variable],
            let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...])
        else { return nil }
        return (String(value[..<colon]), port)
    }
}

/// `mosquitto_sub` on one topic, printing each message as `MSG <retain> <qos> <topic> <payload>`
/// (and, with -d, its protocol log, from which the SUBACK tells that it is subscribed). It is
/// killed after 20 s, so a missing message fails the test instead of hanging it. (Its own -W
/// timer does not fire here: the child inherits the test process's blocked SIGALRM, and SIGTERM
/// with it; hence SIGKILL.)
final class MosquittoSub {
    private let process: Process
    private let lines: AsyncStream<String>
    private let watchdog: Task<Void, Never>

    init(topic: String, qos: Int = 0) throws {
        let (host, port) = try #require(Mosquitto.broker)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            // stdbuf: line-buffered output, so the SUBACK line comes before the process ends.
            "stdbuf", "-oL", "mosquitto_sub", "-h", host, "-p", String(port), "-t", topic, "-q", String(qos), "-d", "-C", "1", "-F", "MSG %r %q %t %p",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let buffer = NIOLockedValueBox([UInt8]())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                continuation.finish()
                return
            }
            let complete: [String] = buffer.withLockedValue { bytes in
                bytes.append(contentsOf: data)
                var found: [String] = []
                while let newline = bytes.firstIndex(of: 0x0A) {
                    found.append(String(decoding: bytes[..<newline], as: UTF8.self))
                    bytes.removeSubrange(...newline)
                }
                return found
            }
            for line in complete { continuation.yield(line) }
        }
        try process.run()
        // The parent's copy of the write end, closed so that the child's exit ends the stream.
        try? pipe.fileHandleForWriting.close()
        let pid = process.processIdentifier
        watchdog = Task {
            try? await Task.sleep(for: .seconds(20))
            kill(pid, SIGKILL)
        }
        self.process = process
        self.lines = lines
    }

    deinit {
        watchdog.cancel()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Returns once the broker acknowledged the subscription.
    func waitUntilSubscribed() async throws {
        for await line in lines where line.contains("SUBACK") { return }
        Issue.record("mosquitto_sub ended before subscribing")
    }

    /// The next message line, or nil if mosquitto_sub gave up.
    func nextMessage() async throws -> String? {
        for await line in lines where line.hasPrefix("MSG ") { return line }
        return nil
    }
}
