import Benchmark
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
