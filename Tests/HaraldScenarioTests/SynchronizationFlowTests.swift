import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator
import Testing

/// A virtual device that stores numbered records and sends them on request: write a start index
/// to the control point, and it notifies `[index u16][payload u32]` for each record from there on,
/// then an end marker with index 0xFFFF.
private enum RecordStore {
    static let address = BluetoothAddress("C0:DE:00:00:00:07", kind: .random)!
    static let service = BluetoothUUID(0xFFE0)
    static let count = Characteristic<UInt16, Read>(BluetoothUUID(0xFFE1), service: service)
    static let control = Characteristic<UInt16, Write>(BluetoothUUID(0xFFE2), service: service)
    static let records = Characteristic<StoredRecord, Notify>(BluetoothUUID(0xFFE3), service: service)

    static func payload(_ index: Int) -> UInt32 { UInt32(index) &* 2_654_435_761 }

    static func device(recordCount: Int) -> VirtualPeripheral {
        VirtualPeripheral(address: address, advertisingData: .device(name: "Records", services: [service])) { _ in
            let requests = StartRequests()
            return PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: count.uuid, properties: [.read], value: [UInt8(recordCount & 0xFF), UInt8(recordCount >> 8)]),
                        GATTCharacteristicDefinition(
                            uuid: control.uuid, properties: [.write],
                            onWrite: { _, value in
                                guard value.count == 2 else { throw ATTErrorCode.invalidAttributeValueLength }
                                requests.set(Int(value[0]) | Int(value[1]) << 8)
                            }),
                        GATTCharacteristicDefinition(uuid: records.uuid, properties: [.notify]),
                    ])
            ]) { session in
                // Poll for a start request, then stream one record per 20 ms.
                while await session.sleep(for: .milliseconds(20)) {
                    guard let start = requests.take() else { continue }
                    for index in start..<recordCount {
                        guard await session.sleep(for: .milliseconds(20)) else { return }
                        let bytes = (try? StoredRecord(index: UInt16(index), payload: payload(index)).encodedBytes()) ?? []
                        await session.notify(records.uuid, bytes)
                    }
                    let end = (try? StoredRecord(index: 0xFFFF, payload: 0).encodedBytes()) ?? []
                    await session.notify(records.uuid, end)
                }
            }
        }
    }
}

private struct StoredRecord: ByteCodable, Sendable, Equatable {
    var index: UInt16
    var payload: UInt32

    init(index: UInt16, payload: UInt32) {
        self.index = index
        self.payload = payload
    }

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        index = try reader.read(field: "index")
        payload = try reader.read(field: "payload")
    }

    func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(index)
        writer.write(payload)
    }
}

/// The latest start index written to the store's control point.
private final class StartRequests: @unchecked Sendable {
    // @unchecked Sendable: `pending` is only touched with `lock` held.
    private let lock = NSLock()
    private var pending: Int?
    func set(_ index: Int) { lock.withLock { pending = index } }
    func take() -> Int? {
        lock.withLock {
            defer { pending = nil }; return pending
        }
    }
}

/// The record store's transfer protocol, as a device kit would write it.
private struct RecordStoreTransfer: RecordTransfer {
    func recordCount(from index: Int, over connection: PeripheralConnection) async throws -> Int? {
        max(0, Int(try await connection.read(RecordStore.count)) - index)
    }

    func fetchRecords(from index: Int, over connection: PeripheralConnection, deliver: (UInt32) async throws -> Void) async throws {
        let records = try await connection.subscribe(RecordStore.records, buffering: .oldest(256), onDecodingFailure: .fail)
        try await connection.write(UInt16(index), to: RecordStore.control)
        var expected = index
        for try await record in records {
            if record.index == 0xFFFF { break }
            guard Int(record.index) == expected else { throw BluetoothError.protocolViolation("record \(record.index), expected \(expected)") }
            try await deliver(record.payload)
            expected += 1
        }
        await connection.unsubscribe(records)
    }
}

/// Collects progress reports.
private final class SyncLog: @unchecked Sendable {
    // @unchecked Sendable: `items` is only touched with `lock` held.
    private let lock = NSLock()
    private var items: [SynchronizationFlow<RecordStoreTransfer>.Progress] = []
    var all: [SynchronizationFlow<RecordStoreTransfer>.Progress] { lock.withLock { items } }
    func add(_ item: SynchronizationFlow<RecordStoreTransfer>.Progress) { lock.withLock { items.append(item) } }
}

@Suite("Synchronization flow on the simulator")
struct SynchronizationFlowTests {
    private func run(recordCount: Int, dropLinkAtPDU: Int? = nil, policy: ReconnectPolicy = ReconnectPolicy())
        async throws -> (records: Result<[UInt32], any Error>, progress: [SynchronizationFlow<RecordStoreTransfer>.Progress], linksOpen: Int)
    {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [RecordStore.device(recordCount: recordCount)])
        if let dropLinkAtPDU {
            simulator.injectOnNextConnection(
                to: RecordStore.address, link: [LinkFault(from: .peripheral, pduNumber: dropLinkAtPDU, action: .dropLink)])
        }
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let log = SyncLog()
        return try await simulation.run(timeLimit: .seconds(3600)) {
            let flow = SynchronizationFlow(
                central: central, peripheral: PeripheralIdentifier(address: RecordStore.address), transfer: RecordStoreTransfer(),
                reconnect: policy)
            let result: Result<[UInt32], any Error>
            do { result = .success(try await flow.run { log.add($0) }) } catch { result = .failure(error) }
            var open = 0
            for connection in simulator.connections where await connection.link.closedReason == nil { open += 1 }
            return (result, log.all, open)
        }
    }

    @Test func fetchesEveryRecordInOrderAndReportsProgress() async throws {
        let (records, progress, linksOpen) = try await run(recordCount: 40)
        #expect(try records.get() == (0..<40).map(RecordStore.payload))
        #expect(linksOpen == 0)
        let received = progress.compactMap { if case let .received(count, total) = $0 { return (count, total) } else { return nil } }
        #expect(received.map(\.0) == Array(1...40))
        #expect(received.allSatisfy { $0.1 == 40 })
        if case .finished(40) = progress.last {} else { Issue.record("last progress \(String(describing: progress.last))") }
    }

    @Test func aDroppedLinkIsResumedFromTheNextRecordWithoutDuplicates() async throws {
        // The peripheral's PDUs: discovery and read answers first, then records; PDU 30 falls
        // in the middle of the record stream.
        let (records, progress, linksOpen) = try await run(recordCount: 60, dropLinkAtPDU: 30)
        let fetched = try records.get()
        #expect(fetched == (0..<60).map(RecordStore.payload))
        #expect(progress.contains { if case .reconnecting = $0 { return true } else { return false } })
        #expect(progress.contains { if case .connected(attempt: 1) = $0 { return true } else { return false } })
        #expect(linksOpen == 0)
    }

    @Test func aPolicyThatVetoesReconnectingEndsTheFlowWithTheDisconnection() async throws {
        let never = ReconnectPolicy(maximumAttempts: 3, shouldReconnect: { _, _ in false })
        let (records, _, linksOpen) = try await run(recordCount: 60, dropLinkAtPDU: 30, policy: never)
        #expect(throws: BluetoothError.self) { try records.get() }
        #expect(linksOpen == 0)
    }
}
