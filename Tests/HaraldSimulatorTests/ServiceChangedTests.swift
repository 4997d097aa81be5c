@testable import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSimulator
import Testing

/// A device with a Battery service and a vendor sensor service after it; tests move the sensor
/// service to new handles while connected (and the Generic Attribute service the server adds
/// sits between its old and new place).
private enum ChangingDevice {
    static let sensor: BluetoothUUID = "5EC70001-6A1B-4C2D-8E3F-5A6B7C8D9E0F"
    static let reading: BluetoothUUID = "5EC70002-6A1B-4C2D-8E3F-5A6B7C8D9E0F"
    static let label: BluetoothUUID = "5EC70003-6A1B-4C2D-8E3F-5A6B7C8D9E0F"
    static let battery = BluetoothUUID(0x180F)
    static let level = BluetoothUUID(0x2A19)

    static var sensorService: GATTServiceDefinition {
        GATTServiceDefinition(
            uuid: sensor,
            characteristics: [
                GATTCharacteristicDefinition(uuid: reading, properties: [.read, .notify], value: [0x11]),
                GATTCharacteristicDefinition(uuid: label, properties: .read, value: Array("left".utf8)),
            ])
    }

    /// `outOfSync`: reading the label answers Database Out Of Sync, as a server with robust
    /// caching does to a client that missed a change. `serverConfiguration` decides whether the
    /// server adds its Service Changed characteristic.
    static func peripheral(outOfSync: Bool = false, serverConfiguration: GATTServer.Configuration = .init()) -> VirtualPeripheral {
        VirtualPeripheral(address: BluetoothAddress("B0:00:00:00:00:5C", kind: .random)!, advertisingData: .device(name: "Changing")) { _ in
            var sensor = sensorService
            if outOfSync { sensor.characteristics[1].onRead = { _ in throw ATTErrorCode.databaseOutOfSync } }
            return PeripheralBehaviour(
                services: [
                    GATTServiceDefinition(
                        uuid: battery,
                        characteristics: [
                            GATTCharacteristicDefinition(uuid: level, properties: [.read, .notify], value: [90])
                        ]),
                    sensor,
                ], serverConfiguration: serverConfiguration)
        }
    }
}

/// One connection to the changing device, seen through the backend protocol (the public API's
/// connection-level handling of changes is tested with the scenario suite).
private struct World: Sendable {
    let simulator: Simulator
    let device: VirtualPeripheral
    let backend: GATTConnection

    var runtime: PeripheralRuntime { simulator.runtime(of: device.address)! }
    var simulated: SimulatedConnection { simulator.connection(to: device.address)! }

    /// Services and their characteristics, as the app would discover them.
    func discover() async throws -> [BluetoothUUID: (service: DiscoveredService, characteristics: [DiscoveredCharacteristic])] {
        let services = try await backend.discoverServices(nil, timeout: .seconds(5))
        let characteristics = try await backend.discoverCharacteristics(ofAll: services, timeout: .seconds(5))
        return Dictionary(uniqueKeysWithValues: zip(services, characteristics).map { ($0.uuid, ($0, $1)) })
    }

    func characteristic(_ uuid: BluetoothUUID, in found: [BluetoothUUID: (service: DiscoveredService, characteristics: [DiscoveredCharacteristic])]) throws
        -> DiscoveredCharacteristic
    {
        try #require(found.values.flatMap(\.characteristics).first { $0.uuid == uuid })
    }

    /// Moves the sensor service to new handles; returns the range the device indicated.
    func moveSensorService() async throws -> ATTHandleRange {
        try #require(try await runtime.changeServices(removing: [ChangingDevice.sensor], adding: [ChangingDevice.sensorService]))
    }

    func requests() async -> [ATTOpcode: Int] { await simulated.client.counters.roundTrips }
}

private func inWorld<T: Sendable>(
    _ device: VirtualPeripheral = ChangingDevice.peripheral(), watchesServiceChanged: Bool = true,
    _ body: @escaping @Sendable (World) async throws -> T
) async throws -> T {
    let simulation = Simulation()
    let simulator = try Simulator(clock: simulation.clock, devices: [device], watchesServiceChanged: watchesServiceChanged)
    return try await simulation.run {
        _ = try await simulator.backend.connect(to: device.identifier, timeout: .seconds(5))
        return try await body(World(simulator: simulator, device: device, backend: simulator.connection(to: device.address)!.connection))
    }
}

@Suite("Service Changed on an ATT backend (simulator)")
struct ServiceChangedTests {
    @Test func aValueStreamInTheChangedServiceEndsWithServiceChangedNamingItsCharacteristic() async throws {
        let (end, reading) = try await inWorld { world in
            let reading = try world.characteristic(ChangingDevice.reading, in: try await world.discover())
            let updates = await world.backend.valueUpdates(for: reading, buffering: .default)
            try await world.backend.setNotifications(true, for: reading, timeout: .seconds(5))
            _ = try await world.moveSensorService()
            for await _ in updates {}
            return (updates.endError, reading)
        }
        #expect(end == .serviceChanged(reading.id))
    }

    @Test func serviceChangesYieldsTheRangeTheDeviceIndicated() async throws {
        let (changes, range) = try await inWorld { world in
            _ = try await world.discover()
            let stream = world.backend.serviceChanges()
            let range = try await world.moveSensorService()
            var changes = stream.makeAsyncIterator()
            return (await changes.next(), range)
        }
        #expect(changes == ServiceChange(handles: range))
    }

    @Test func everyServiceChangesStreamGetsTheChange() async throws {
        let (first, second) = try await inWorld { world in
            _ = try await world.discover()
            let (one, two) = (world.backend.serviceChanges(), world.backend.serviceChanges())
            _ = try await world.moveSensorService()
            var (a, b) = (one.makeAsyncIterator(), two.makeAsyncIterator())
            return (await a.next(), await b.next())
        }
        #expect(first != nil)
        #expect(first == second)
    }

    @Test func theRangeCoversTheServicesOldAndNewHandles() async throws {
        let (before, after, range) = try await inWorld { world in
            let before = try #require(try await world.discover()[ChangingDevice.sensor]?.service.handles)
            let range = try await world.moveSensorService()
            let after = try #require(try await world.discover()[ChangingDevice.sensor]?.service.handles)
            return (before, after, range)
        }
        #expect(after.start > before.end)
        #expect(range == ATTHandleRange(start: before.start, end: after.end))
    }

    @Test func aReadAfterTheChangeWorksOnceTheServiceIsDiscoveredAgain() async throws {
        let value = try await inWorld { world in
            _ = try await world.discover()
            _ = try await world.moveSensorService()
            let label = try world.characteristic(ChangingDevice.label, in: try await world.discover())
            return try await world.backend.read(label, timeout: .seconds(5))
        }
        #expect(value == Array("left".utf8))
    }

    @Test func anIdentityFromBeforeTheChangeIsRefusedUntilServicesAreDiscoveredAgain() async throws {
        let (stale, fresh) = try await inWorld { world in
            let old = try world.characteristic(ChangingDevice.label, in: try await world.discover())
            _ = try await world.moveSensorService()
            let stale: BluetoothError?
            do {
                _ = try await world.backend.read(old, timeout: .seconds(5))
                stale = nil
            } catch { stale = BluetoothError(error) }
            let label = try world.characteristic(ChangingDevice.label, in: try await world.discover())
            return (stale, try await world.backend.read(label, timeout: .seconds(5)))
        }
        #expect(stale.map { if case .serviceChanged = $0 { true } else { false } } == true, "got \(String(describing: stale))")
        #expect(fresh == Array("left".utf8))
    }

    @Test func aSubscriptionOutsideTheChangeKeepsItsValuesAndItsCCCD() async throws {
        let (value, findInformation) = try await inWorld { world in
            let level = try world.characteristic(ChangingDevice.level, in: try await world.discover())
            let updates = await world.backend.valueUpdates(for: level, buffering: .default)
            try await world.backend.setNotifications(true, for: level, timeout: .seconds(5))
            _ = try await world.moveSensorService()
            await world.runtime.notify(ChangingDevice.level, [77])
            var values = updates.makeAsyncIterator()
            let value = await values.next()
            let before = await world.requests()[.findInformationRequest, default: 0]
            // The CCCD handle is still known: turning notifications off is one write, no discovery.
            try await world.backend.setNotifications(false, for: level, timeout: .seconds(5))
            return (value, await world.requests()[.findInformationRequest, default: 0] - before)
        }
        #expect(value == [77])
        #expect(findInformation == 0)
    }

    @Test func theCCCDOfACharacteristicInTheChangeIsForgottenAndNotWrittenAgain() async throws {
        let (error, writes, reading) = try await inWorld { world in
            let reading = try world.characteristic(ChangingDevice.reading, in: try await world.discover())
            try await world.backend.setNotifications(true, for: reading, timeout: .seconds(5))
            _ = try await world.moveSensorService()
            let before = await world.requests()[.writeRequest, default: 0]
            var failure: BluetoothError?
            do throws(BluetoothError) { try await world.backend.setNotifications(false, for: reading, timeout: .seconds(5)) } catch { failure = error }
            return (failure, await world.requests()[.writeRequest, default: 0] - before, reading.id)
        }
        // The stale identity is refused before anything is sent: no CCCD to write.
        #expect(error == .serviceChanged(reading))
        #expect(writes == 0)
    }

    @Test func theIndicationIsConfirmed() async throws {
        let (indications, confirmations) = try await inWorld { world in
            _ = try await world.discover()
            _ = try await world.moveSensorService()
            let server = await world.simulated.server.counters(for: world.simulated.serverConnection)
            return (server?.roundTrips[.handleValueIndication], await world.simulated.client.counters.pdusSent[.handleValueConfirmation])
        }
        #expect(indications == 1)
        #expect(confirmations == 1)
    }

    @Test func theFirstDiscoveryTurnsServiceChangedOnWithThreeRequestsAndLaterOnesSpendNone() async throws {
        let (first, second) = try await inWorld { world in
            let start = await world.requests()
            _ = try await world.backend.discoverServices(nil, timeout: .seconds(5))
            let afterFirst = await world.requests()
            _ = try await world.backend.discoverServices(nil, timeout: .seconds(5))
            let afterSecond = await world.requests()
            return (afterFirst.subtracting(start), afterSecond.subtracting(afterFirst))
        }
        // Read By Type 0x2A05, Find Information for its CCCD, the CCCD write; then Read By Group
        // Type until Attribute Not Found (all services fit two responses at ATT_MTU 247).
        #expect(first[.readByTypeRequest] == 1)
        #expect(first[.findInformationRequest] == 1)
        #expect(first[.writeRequest] == 1)
        #expect(second[.readByTypeRequest] == nil && second[.findInformationRequest] == nil && second[.writeRequest] == nil)
        #expect(second[.readByGroupTypeRequest] == first[.readByGroupTypeRequest])
    }

    @Test func aPeripheralWithoutServiceChangedCostsOneRequestAndIsUsedAsBefore() async throws {
        let device = ChangingDevice.peripheral(serverConfiguration: .init(addsGenericAttributeService: false))
        let measure = { (watches: Bool) async throws in
            try await inWorld(device, watchesServiceChanged: watches) { world in
                let start = await world.requests()
                let label = try world.characteristic(ChangingDevice.label, in: try await world.discover())
                let spent = await world.requests().subtracting(start)
                return (spent, try await world.backend.read(label, timeout: .seconds(5)))
            }
        }
        let (watching, notWatching) = (try await measure(true), try await measure(false))
        // One Read By Type, answered Attribute Not Found.
        #expect(watching.0.subtracting(notWatching.0) == [.readByTypeRequest: 1])
        #expect(watching.1 == Array("left".utf8))
    }

    @Test func withWatchingOffNoRequestIsSpentAndNoIndicationIsSent() async throws {
        let measure = { (watches: Bool) async throws in
            try await inWorld(watchesServiceChanged: watches) { world in
                let start = await world.requests()
                _ = try await world.discover()
                let spent = await world.requests().subtracting(start).values.reduce(0, +)
                _ = try await world.moveSensorService()
                let server = await world.simulated.server.counters(for: world.simulated.serverConnection)
                return (spent, server?.pdusSent[.handleValueIndication] ?? 0)
            }
        }
        let (watching, notWatching) = (try await measure(true), try await measure(false))
        #expect(watching.0 - notWatching.0 == 3)
        #expect(watching.1 == 1)
        #expect(notWatching.1 == 0)
    }

    @Test func databaseOutOfSyncFailsTheRequestWithServiceChangedAndReportsEveryHandle() async throws {
        let (error, change, end, reading) = try await inWorld(ChangingDevice.peripheral(outOfSync: true)) { world in
            let found = try await world.discover()
            let (label, reading) = (try world.characteristic(ChangingDevice.label, in: found), try world.characteristic(ChangingDevice.reading, in: found))
            let updates = await world.backend.valueUpdates(for: reading, buffering: .default)
            let changes = world.backend.serviceChanges()
            var failure: BluetoothError?
            do throws(BluetoothError) { _ = try await world.backend.read(label, timeout: .seconds(5)) } catch { failure = error }
            var iterator = changes.makeAsyncIterator()
            for await _ in updates {}
            return (failure, await iterator.next(), updates.endError, reading)
        }
        #expect(error == .serviceChanged(nil))
        #expect(change == ServiceChange(handles: .all))
        #expect(end == .serviceChanged(reading.id))
    }

    @Test func serviceChangesStreamsFinishWhenTheConnectionEnds() async throws {
        let (before, after) = try await inWorld { world in
            let early = world.backend.serviceChanges()
            await world.backend.disconnect()
            let late = world.backend.serviceChanges()
            var (a, b) = (early.makeAsyncIterator(), late.makeAsyncIterator())
            return (await a.next(), await b.next())
        }
        #expect(before == nil)
        #expect(after == nil)
    }
}

extension Dictionary where Key == ATTOpcode, Value == Int {
    /// The counts added since `earlier`, without the opcodes that did not change.
    fileprivate func subtracting(_ earlier: Self) -> Self {
        merging(earlier.mapValues { -$0 }, uniquingKeysWith: +).filter { $0.value != 0 }
    }
}
