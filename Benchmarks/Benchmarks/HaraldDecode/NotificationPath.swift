import Benchmark
import Harald
import HaraldATT
import HaraldCodec

/// The notification path of the GATT client (issue 4): Handle Value Notification bytes arrive on
/// the bearer → parsed as an ATT PDU → routed by handle → delivered on the subscriber's stream,
/// where the benchmark awaits them. Per notification: wall clock and mallocs (the PDU byte array
/// the bearer hands over is made before measuring, so it is not counted).
///
/// The peer end of an in-memory bearer pair plays the server; each iteration sends one 20-byte
/// notification (the largest at the default ATT_MTU) and waits for it on the stream, so the
/// figure is the latency of one notification through the client, not a pipelined throughput.
func registerNotificationPathBenchmark() {
    let pdu: [UInt8] = [0x1B, 0x2A, 0x00] + [UInt8](repeating: 0x5A, count: 20)
    Benchmark("Notification/PDU to subscriber stream", configuration: decodeConfiguration) { benchmark in
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
        let client = GATTClient(bearer: central)
        let subscription = await client.subscribe(handle: 0x002A, bufferingPolicy: .unbounded)
        var values = subscription.values.makeAsyncIterator()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try? await peripheral.send(pdu)
            blackHole(await values.next())
        }
        benchmark.stopMeasurement()
        await client.disconnect()
    }
}

/// The simulator's notification path, as the public API uses it: a Handle Value Notification PDU
/// handed to the GATT client's inbox (where the simulated link's delivery timer hands it, on the
/// simulation's thread) → routed by handle → the connection's value sink → the subscription's
/// queue → taken by the subscriber's iterator. The value is queued before the iterator asks, so
/// the loop never suspends: the figure is the synchronous cost of the path, per notification,
/// with its allocations (the PDU array is made before measuring).
func registerSimulatorNotificationPathBenchmark() {
    let pdu: [UInt8] = [0x1B, 0x2A, 0x00] + [UInt8](repeating: 0x5A, count: 20)
    Benchmark("Notification/simulator: PDU to subscriber", configuration: decodeConfiguration) { benchmark in
        let bearer = InboxCapturingBearer()
        let client = GATTClient(bearer: bearer)
        let (updates, continuation) = ValueUpdates.makeStream(buffering: .newest(64))
        _ = await client.addSink(
            GATTClient.ValueSink(deliver: { continuation.yield($0.value) }, finish: { _ in continuation.finish() }), handle: 0x002A)
        guard let inbox = bearer.inbox else { fatalError("the client did not attach its inbox") }
        var values = updates.makeAsyncIterator()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            inbox.yield(.received(pdu))
            blackHole(await values.next())
        }
        benchmark.stopMeasurement()
        await client.disconnect()
    }
}

/// A bearer that only keeps the inbox its engine attaches, so the benchmark can deliver into it
/// as the simulated link does.
final class InboxCapturingBearer: ATTInboxBearer, @unchecked Sendable {
    // @unchecked Sendable: `inbox` is written once, by `deliverEvents(to:)`, which the client
    // calls in its initialiser, before the benchmark reads it; nothing writes it afterwards.
    private(set) var inbox: ATTEventInbox?
    let localMTU = 23
    var events: AsyncStream<ATTBearerEvent> { AsyncStream { $0.finish() } }
    func deliverEvents(to inbox: ATTEventInbox) { self.inbox = inbox }
    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws(ATTBearerError) {}
    func close(_ reason: ATTCloseReason) async { inbox?.yield(.closed(reason)); inbox?.finish() }
    func didNegotiateMTU(_ mtu: Int) async {}
}
