import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: bounded memory in a crowded place", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct ScanMemoryTests {
    let timeout = Duration.seconds(10)

    /// Peripherals that advertise once each, known to the system (reachable by retrieval).
    func crowd(_ world: FakeWorld, _ count: Int) -> [FakePeripheral] {
        (0..<count).map { _ in world.central.makePeripheral(name: nil, gatt: FakeGATT(services: [])) }
    }

    @Test
    func aFloodOfDistinctAdvertisersLeavesABoundedNumberOfRecords() async throws {
        let world = FakeWorld.make()
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let scan = await world.scan(ScanRequest(duplicates: .reportAll, bufferLimit: 16))
        for peripheral in crowd(world, 10_000) { world.central.advertise(peripheral, data: [:], rssi: -70) }
        let bound = CoreBluetoothBackend<FakeCentral>.recordLimit + 128 + 1
        #expect(world.backend.recordCount <= bound)
        #expect(try await connection.discoverServices(nil, timeout: timeout).count == 2, "the connected peripheral's record is kept")
        _ = scan
    }

    @Test func aPrunedAdvertiserIsFoundAgainWhenTheAppConnects() async throws {
        let world = FakeWorld.make()
        let scan = await world.scan(ScanRequest(duplicates: .reportAll, bufferLimit: 16))
        let first = world.central.makePeripheral(name: "First", gatt: FakeWorld.profileGATT)
        world.central.advertise(first, data: [:], rssi: -60)
        for peripheral in crowd(world, 2_000) { world.central.advertise(peripheral, data: [:], rssi: -70) }
        let identifier = PeripheralIdentifier(rawValue: first.identifier.uuidString)
        let connection = try await world.backend.connect(to: identifier, timeout: timeout)
        #expect(world.central.calls.contains(.retrieve([first.identifier])))
        #expect(try await connection.discoverServices(nil, timeout: timeout).count == 2)
        _ = scan
    }

    @Test func aScanRemembersABoundedNumberOfDevicesForReportingOnce() async throws {
        let world = FakeWorld.make()
        let scan = await world.scan(ScanRequest(duplicates: .reportOnce, bufferLimit: 1))
        let devices = crowd(world, AdvertisementScan.rememberedDevices + 1)
        for peripheral in devices { world.central.advertise(peripheral, data: [:], rssi: -70) }
        #expect(scan.droppedCount == AdvertisementScan.rememberedDevices)
        var reports = scan.makeAsyncIterator()
        _ = try await reports.next()
        world.central.advertise(devices[0], data: [:], rssi: -71)
        #expect(try await reports.next()?.rssi == -71, "the device heard least recently was forgotten, so it is reported again")
    }

    @Test func aSlowLoopSeesABoundedBufferOfTheNewestReportsAndADropCount() async throws {
        let world = FakeWorld.make()
        let scan = await world.scan(ScanRequest(duplicates: .reportAll, bufferLimit: 8))
        for strength in -100..<0 { world.central.advertise(world.peripheral, data: [:], rssi: strength) }
        #expect(scan.droppedCount == 92)
        var reports = scan.makeAsyncIterator()
        for strength in -8..<0 { #expect(try await reports.next()?.rssi == RSSI(dBm: Int8(strength))) }
        world.central.advertise(world.peripheral, data: [:], rssi: -30)
        #expect(try await reports.next()?.rssi == -30, "nothing else was waiting")
    }
}
