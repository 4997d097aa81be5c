import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: radio state and scanning", CoreBluetoothRules())
struct ScanTests {
    @Test func radioStatesStartWithTheCurrentStateThenFollowChanges() async {
        let world = FakeWorld.make(poweredOn: false)
        var states = world.backend.radioStates().makeAsyncIterator()
        #expect(await states.next() == .unknown)
        await world.settle()
        world.central.setRadio(.poweredOn)
        world.central.setRadio(.unauthorized)
        #expect(await states.next() == .poweredOn)
        #expect(await states.next() == .unauthorized)
    }

    @Test func advertisementDictionaryIsMappedToAdvertisingData() async throws {
        let world = FakeWorld.make()
        var scan = await world.scan().makeAsyncIterator()
        world.central.advertise(
            world.peripheral,
            data: [
                fakeKeys.localName: "Harald-HR",
                fakeKeys.serviceUUIDs: [FakeUUID(BluetoothUUID(0x180D)), FakeUUID(ScenarioProfile.service)],
                fakeKeys.manufacturerData: Data([0x59, 0x00, 0xAB, 0xCD]),
                fakeKeys.serviceData: [FakeUUID(BluetoothUUID(0xFEAA)): Data([0x10, 0x20])],
                fakeKeys.txPowerLevel: NSNumber(value: -8),
                fakeKeys.isConnectable: NSNumber(value: false),
            ], rssi: -61)
        let advertisement = try #require(try await scan.next())
        #expect(advertisement.peripheral == world.identifier)
        #expect(advertisement.rssi == -61)
        #expect(advertisement.isConnectable == false)
        #expect(advertisement.localName == "Harald-HR")
        #expect(advertisement.serviceUUIDs == [BluetoothUUID(0x180D), ScenarioProfile.service])
        #expect(advertisement.data.manufacturerData == ManufacturerData(companyID: 0x0059, data: [0xAB, 0xCD]))
        #expect(advertisement.data.serviceData == [BluetoothUUID(0xFEAA): [0x10, 0x20]])
        #expect(advertisement.data.txPowerLevel == -8)
    }

    @Test func rebuiltStructuresSurviveAWireRoundTrip() async throws {
        let world = FakeWorld.make()
        var scan = await world.scan().makeAsyncIterator()
        world.central.advertise(
            world.peripheral,
            data: [
                fakeKeys.localName: "Band", fakeKeys.solicitedServiceUUIDs: [FakeUUID(BluetoothUUID(0x1812))],
                fakeKeys.overflowServiceUUIDs: [FakeUUID(ScenarioProfile.service)],
            ], rssi: -40)
        let data = try #require(try await scan.next()).data
        #expect(AdvertisingData(parsing: data.bytes) == data)
        #expect(data.solicitedServiceUUIDs == [BluetoothUUID(0x1812)])
        #expect(data.serviceUUIDs == [ScenarioProfile.service])
    }

    @Test func missingConnectableFlagMeansConnectable() async throws {
        let world = FakeWorld.make()
        var scan = await world.scan().makeAsyncIterator()
        world.central.advertise(world.peripheral, data: [:], rssi: -50)
        #expect(try await scan.next()?.isConnectable == true)
    }

    @Test func reportOnceSkipsRepeatsOfTheSameDevice() async throws {
        let world = FakeWorld.make()
        let other = world.central.makePeripheral(name: nil, gatt: FakeGATT(services: []))
        var scan = await world.scan(ScanRequest(duplicates: .reportOnce)).makeAsyncIterator()
        world.central.advertise(world.peripheral, data: [:], rssi: -50)
        world.central.advertise(world.peripheral, data: [:], rssi: -49)
        world.central.advertise(other, data: [:], rssi: -70)
        #expect(try await scan.next()?.rssi == -50)
        #expect(try await scan.next()?.rssi == -70)
    }

    @Test func reportChangesSkipsRepeatsWithTheSameData() async throws {
        let world = FakeWorld.make()
        var scan = await world.scan(ScanRequest(duplicates: .reportChanges)).makeAsyncIterator()
        world.central.advertise(world.peripheral, data: [fakeKeys.localName: "A"], rssi: -50)
        world.central.advertise(world.peripheral, data: [fakeKeys.localName: "A"], rssi: -51)
        world.central.advertise(world.peripheral, data: [fakeKeys.localName: "B"], rssi: -52)
        #expect(try await scan.next()?.rssi == -50)
        #expect(try await scan.next()?.rssi == -52)
    }

    @Test func scanAppliesNameAndSignalFilters() async throws {
        let world = FakeWorld.make()
        var scan = await world.scan(ScanRequest(namePrefix: "Har", minimumRSSI: -60, duplicates: .reportAll)).makeAsyncIterator()
        world.central.advertise(world.peripheral, data: [fakeKeys.localName: "Other"], rssi: -40)
        world.central.advertise(world.peripheral, data: [fakeKeys.localName: "Harald"], rssi: -80)
        world.central.advertise(world.peripheral, data: [fakeKeys.localName: "Harald"], rssi: -45)
        #expect(try await scan.next()?.rssi == -45)
    }

    @Test func concurrentScansAskCoreBluetoothForTheUnionOfTheirServices() async {
        let world = FakeWorld.make()
        let first = world.backend.scan(ScanRequest(services: [BluetoothUUID(0x180D)]))
        let second = world.backend.scan(ScanRequest(services: [BluetoothUUID(0x180F)], duplicates: .reportAll))
        await world.settle()
        #expect(world.central.calls.last == .scan([BluetoothUUID(0x180D), BluetoothUUID(0x180F)], allowDuplicates: true))
        _ = (first, second)
    }

    @Test func endingTheLastScanStopsCoreBluetoothScanning() async {
        let world = FakeWorld.make()
        let scan = await world.scan()
        let consumer = Task { for try await _ in scan {} }
        #expect(world.central.isScanning)
        consumer.cancel()
        _ = await consumer.result
        await until { !world.central.isScanning }
        #expect(world.central.calls.last == .stopScan)
        #expect(world.backend.liveStreamCount == 0)
    }

    @Test func scanStartedBeforeTheRadioIsReadyWaitsForPowerOn() async throws {
        let world = FakeWorld.make(poweredOn: false)
        var scan = await world.scan().makeAsyncIterator()
        #expect(!world.central.isScanning)
        world.central.setRadio(.poweredOn)
        #expect(world.central.isScanning)
        world.central.advertise(world.peripheral, data: [:], rssi: -30)
        #expect(try await scan.next()?.rssi == -30)
    }

    @Test func scanFailsWhenTheRadioIsOff() async {
        let world = FakeWorld.make(poweredOn: false)
        world.central.setRadio(.poweredOff)
        var scan = await world.scan().makeAsyncIterator()
        await #expect(throws: BluetoothError.radioUnavailable(.poweredOff)) { _ = try await scan.next() }
    }

    @Test func runningScanFailsWhenTheRadioTurnsOff() async {
        let world = FakeWorld.make()
        var scan = await world.scan().makeAsyncIterator()
        world.central.setRadio(.poweredOff)
        await #expect(throws: BluetoothError.radioUnavailable(.poweredOff)) { _ = try await scan.next() }
    }
}
