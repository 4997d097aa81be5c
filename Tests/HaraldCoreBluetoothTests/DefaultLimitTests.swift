import Foundation
import Harald
import HaraldCore
import HaraldScenarioSuite
import Testing

@testable import HaraldCoreBluetooth

/// The limits RELIABILITY.md lists for the CoreBluetooth backend, each at the default a user gets
/// without configuring anything (scripts/check-limits ties the figures here to the document).
@Suite("CoreBluetooth backend: documented limits at their defaults", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct CoreBluetoothDefaultLimitTests {
    @Test func aScanWithTheDefaultBufferKeepsTheNewest256ReportsForASlowLoop() async throws {
        #expect(ScanRequest().bufferLimit == 256)
        let world = FakeWorld.make()
        let scan = await world.scan(ScanRequest(duplicates: .reportAll))
        // 300 reports of one advertiser, told apart by their strength: -1, -2, … -100, -1, …
        func strength(_ n: Int) -> Int { -1 - n % 100 }
        for n in 0..<300 { world.central.advertise(world.peripheral, data: [:], rssi: strength(n)) }
        #expect(scan.droppedCount == 300 - 256)
        var reports = scan.makeAsyncIterator()
        for n in 44..<300 { #expect(try await reports.next()?.rssi == RSSI(dBm: Int8(strength(n)))) }
        world.central.advertise(world.peripheral, data: [:], rssi: -30)
        #expect(try await reports.next()?.rssi == -30, "nothing else was waiting")
    }

    @Test func aConnectionsServiceChangeAndNameStreamsHoldTheNewest16() {
        #expect(CoreBluetoothBackend<FakeCentral>.connectionStreamBufferLimit == 16)
    }

    @Test func recordsGrowTo640AndAnUnusedFloodIsPrunedBackTo512() async throws {
        #expect(CoreBluetoothBackend<FakeCentral>.recordLimit == 512)
        #expect(CoreBluetoothBackend<FakeCentral>.pruneBatch == 128)
        let world = FakeWorld.make()
        let scan = await world.scan(ScanRequest(duplicates: .reportAll, bufferLimit: 16))
        let crowd = (0..<641).map { _ in world.central.makePeripheral(name: nil, gatt: FakeGATT(services: [])) }
        for peripheral in crowd.prefix(640) { world.central.advertise(peripheral, data: [:], rssi: -70) }
        #expect(world.backend.recordCount == 512 + 128)
        world.central.advertise(crowd[640], data: [:], rssi: -70)
        #expect(world.backend.recordCount == 512)
        _ = scan
    }
}
