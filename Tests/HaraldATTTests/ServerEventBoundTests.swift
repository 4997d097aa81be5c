import HaraldATT
import HaraldCodec
import HaraldCore
import Testing

/// The server's event stream is fed by what clients do, so an app that stops reading it keeps
/// the newest events, not a backlog.
@Suite("GATT server: the event stream is bounded")
struct ServerEventBoundTests {
    @Test func anEventStreamNobodyReadsKeepsTheNewest1024Events() async throws {
        let link = try await Link(services: SampleDevice.services)
        let vendor = await link.valueHandle(SampleDevice.vendorLong)
        let control = await link.valueHandle(BluetoothUUID(0x2A39))
        // 1,500 writes reported as valueWritten(vendor), then one to the control point: with the
        // connection event first, 1,502 events for a stream that holds 1,024.
        for index in 0..<1_500 { try await link.client.write(handle: vendor, value: [UInt8(truncatingIfNeeded: index)]) }
        try await link.client.write(handle: control, value: [0x01])
        var events = link.server.events.makeAsyncIterator()
        var kept: [GATTServerEvent] = []
        for _ in 0..<1_024 { if let event = await events.next() { kept.append(event) } }
        #expect(kept.first == .valueWritten(link.connection, handle: vendor))  // the connection event was dropped
        #expect(kept.last == .valueWritten(link.connection, handle: control))  // the newest is there
        #expect(kept.dropLast().allSatisfy { $0 == .valueWritten(link.connection, handle: vendor) })
    }
}
