import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldHeartRateMonitor
import HaraldSimulator
import Testing

/// A small definition with a characteristic of each kind the tests need.
enum TestDevice {
    static let service = BluetoothUUID(0xFFF0)
    /// Read through a handler: 20 bytes 0…19, or the handler's error.
    static let counter = BluetoothUUID(0xFFF1)
    /// Read and written, no handler.
    static let setting = BluetoothUUID(0xFFF2)
    /// Written through a handler that refuses 0xFF with 0x80.
    static let command = BluetoothUUID(0xFFF3)
    /// Notified and indicated.
    static let stream = BluetoothUUID(0xFFF4)
    /// Read-only with a value: cached by CoreBluetooth.
    static let model = BluetoothUUID(0xFFF5)
    /// Read-only, encrypted.
    static let secret = BluetoothUUID(0xFFF6)

    /// What the handlers saw, in order.
    final class Log: Sendable {
        let commands = Locked<[[UInt8]]>([])
        let reads = Locked<[AttributeRequest]>([])
    }

    static func definition(_ log: Log = Log(), readError: ATTErrorCode? = nil) -> PeripheralDefinition {
        PeripheralDefinition(
            advertisement: PeripheralAdvertisement(
                name: "Test", services: [service], manufacturer: ManufacturerData(companyID: 0x004C, data: [1, 2]), appearance: 0x0341,
                txPower: -4),
            services: [
                ServiceDefinition(
                    uuid: service,
                    characteristics: [
                        CharacteristicDefinition(
                            uuid: counter, properties: .read,
                            onRead: { request throws(ATTErrorCode) in
                                log.reads.withLock { $0.append(request) }
                                if let readError { throw readError }
                                return Array(0..<20)
                            }),
                        CharacteristicDefinition(uuid: setting, properties: [.read, .write], value: [7]),
                        CharacteristicDefinition(
                            uuid: command, properties: [.write, .writeWithoutResponse],
                            onWrite: { _, bytes throws(ATTErrorCode) in
                                if bytes.first == 0xFF { throw ATTErrorCode(rawValue: 0x80) }
                                log.commands.withLock { $0.append(bytes) }
                            }),
                        CharacteristicDefinition(uuid: stream, properties: [.notify, .indicate]),
                        CharacteristicDefinition(uuid: model, properties: .read, value: Array("M-1".utf8), userDescription: "Model"),
                        CharacteristicDefinition(uuid: secret, properties: .read, readSecurity: .authenticated, value: [42]),
                    ])
            ])
    }
}

@Suite("CoreBluetooth peripheral backend", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralBackendTests {
    /// A fake manager, its backend, and the test device served on it.
    func served(_ definition: PeripheralDefinition = TestDevice.definition()) async throws -> (
        FakePeripheralManager, CoreBluetoothPeripheralBackend<FakePeripheralManager>, any ServingBackend
    ) {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(definition)
        return (manager, backend, serving)
    }

    /// The test device served on a virtual clock to one central subscribed to its stream, with
    /// CoreBluetooth's transmit queue full (updates wait for room).
    func servedToASubscriberWithNoRoom() async throws -> (
        VirtualClock, FakePeripheralManager, CoreBluetoothPeripheralBackend<FakePeripheralManager>, any ServingBackend, CentralIdentifier
    ) {
        let clock = VirtualClock()
        let (manager, backend) = FakePeripheralManager.make(clock: clock)
        let serving = try await backend.serve(TestDevice.definition())
        let phone = FakeRemoteCentral()
        manager.subscribe(phone, to: TestDevice.stream)
        manager.setRoom(false)
        return (clock, manager, backend, serving, CentralIdentifier(rawValue: phone.identifier.uuidString))
    }

    /// The next `count` events of `stream`.
    func next(_ count: Int, of stream: AsyncStream<PeripheralEvent>) async -> [PeripheralEvent] {
        var events: [PeripheralEvent] = []
        for await event in stream {
            events.append(event)
            if events.count == count { break }
        }
        return events
    }

    // MARK: Publishing

    @Test func theHeartRateMonitorsServicesArePublishedWithCoreBluetoothsPropertiesAndPermissions() async throws {
        let device = try HeartRateMonitorDevice(serialNumberSecurity: .encrypted)
        let (manager, _, serving) = try await served(device.definition)
        #expect(manager.published.map(\.uuid.value) == [BluetoothUUID(0x180D), BluetoothUUID(0x180F), BluetoothUUID(0x180A)])
        let specs = Dictionary(manager.published.flatMap(\.characteristics).map { ($0.spec.uuid, $0.spec) }) { first, _ in first }
        let measurement = try #require(specs[BluetoothUUID(0x2A37)])
        #expect(measurement.properties == 0x10 && measurement.permissions == 0x01 && measurement.value == nil, "readable, as Apple's samples")
        let location = try #require(specs[BluetoothUUID(0x2A38)])
        #expect(location.properties == 0x02 && location.permissions == 0x01 && location.value == Data([1]), "read-only with a value: cached")
        let controlPoint = try #require(specs[BluetoothUUID(0x2A39)])
        #expect(controlPoint.properties == 0x08 && controlPoint.permissions == 0x02 && controlPoint.value == nil)
        let battery = try #require(specs[BluetoothUUID(0x2A19)])
        #expect(battery.properties == 0x12 && battery.permissions == 0x01 && battery.value == nil, "notifies: dynamic")
        let serial = try #require(specs[BluetoothUUID(0x2A25)])
        #expect(serial.permissions == 0x04 && serial.value == nil, "encrypted: readEncryptionRequired, answered by the app")
        #expect(specs[BluetoothUUID(0x2A29)]?.value == Data("Harald Labs".utf8))
        await serving.stop()
    }

    @Test func aServedHeartRateMonitorAnswersABatteryReadAndNotifiesMeasurements() async throws {
        let device = try HeartRateMonitorDevice(battery: 64)
        let (manager, backend, serving) = try await served(device.definition)
        let served = ServedPeripheral(backend: serving, definition: device.definition)
        let phone = FakeRemoteCentral()
        let read = await manager.read(BluetoothUUID(0x2A19), by: phone)
        #expect(read.result == 0 && read.value == [64])
        manager.subscribe(phone, to: BluetoothUUID(0x2A37))
        #expect(try await served.notify(.heartRateMeasurement, device.nextMeasurement()) == 1)
        let update = try #require(manager.updates.first)
        #expect(update.characteristic == BluetoothUUID(0x2A37) && update.centrals == [phone.identifier] && update.value.count >= 2)
        #expect(backend.pendingOperationCount == 0)
        await serving.stop()
    }

    @Test func theHeartRateMonitorsControlPointTakesAResetAndRefusesOtherCommandsWithItsProfileError() async throws {
        let device = try HeartRateMonitorDevice()
        let (manager, _, serving) = try await served(device.definition)
        let events = serving.events()
        let phone = FakeRemoteCentral()
        #expect(await manager.write([(BluetoothUUID(0x2A39), 0, [0x01])], by: phone) == 0)
        #expect(await manager.write([(BluetoothUUID(0x2A39), 0, [0x02])], by: phone) == 0x80)
        #expect(await next(1, of: events) == [.wrote(CentralIdentifier(rawValue: phone.identifier.uuidString), characteristic: BluetoothUUID(0x2A39))])
        await serving.stop()
    }

    @Test func anEventStreamNobodyReadsKeepsTheNewest256Events() async throws {
        let device = try HeartRateMonitorDevice()
        let (manager, _, serving) = try await served(device.definition)
        let events = serving.events()
        // 300 centrals each reset the energy count once: 300 write events, nobody reading yet.
        let phones = (0..<300).map { _ in FakeRemoteCentral() }
        for phone in phones { #expect(await manager.write([(BluetoothUUID(0x2A39), 0, [0x01])], by: phone) == 0) }
        func wrote(_ phone: FakeRemoteCentral) -> PeripheralEvent {
            .wrote(CentralIdentifier(rawValue: phone.identifier.uuidString), characteristic: BluetoothUUID(0x2A39))
        }
        #expect(await next(256, of: events) == phones.suffix(256).map(wrote))
        let late = FakeRemoteCentral()
        #expect(await manager.write([(BluetoothUUID(0x2A39), 0, [0x01])], by: late) == 0)
        #expect(await next(1, of: events) == [wrote(late)], "nothing older was waiting")
        await serving.stop()
    }

    @Test func advertisingCarriesOnlyTheNameAndServiceUUIDs() async throws {
        let (manager, _, serving) = try await served()
        let advertisement = try #require(manager.advertisement)
        #expect(Set(advertisement.keys) == [fakeKeys.localName, fakeKeys.serviceUUIDs])
        #expect(advertisement[fakeKeys.localName] as? String == "Test")
        #expect((advertisement[fakeKeys.serviceUUIDs] as? [FakeUUID])?.map(\.value) == [TestDevice.service])
        await serving.stop()
    }

    @Test func aUserDescriptionIsPublishedWithItsCharacteristic() async throws {
        let (manager, _, serving) = try await served()
        #expect(manager.characteristic(TestDevice.model)?.spec.userDescription == "Model")
        await serving.stop()
    }

    @Test func servingWaitsForPowerOn() async throws {
        let (manager, backend) = FakePeripheralManager.make(poweredOn: false)
        let serve = Task { try await backend.serve(TestDevice.definition()) }
        await until { manager.madeCount == 1 && backend.pendingOperationCount == 1 }
        await manager.system.settle()
        #expect(manager.published.isEmpty)
        manager.setRadio(.poweredOff)
        await manager.system.settle()
        #expect(manager.published.isEmpty && manager.advertisement == nil)
        manager.setRadio(.poweredOn)
        let serving = try await serve.value
        #expect(manager.published.count == 1 && manager.advertisement != nil)
        await serving.stop()
    }

    @Test(arguments: [FakeManagerState.unauthorized, .unsupported])
    func aRadioThatCannotServeFailsServingWithATypedError(_ radio: FakeManagerState) async throws {
        let (manager, backend) = FakePeripheralManager.make(poweredOn: false)
        let serve = Task { try await backend.serve(TestDevice.definition()) }
        await until { manager.madeCount == 1 }
        manager.setRadio(radio)
        let expected: RadioState = radio == .unauthorized ? .unauthorized : .unsupported
        await #expect(throws: BluetoothError.radioUnavailable(expected)) { try await serve.value }
        #expect(backend.pendingOperationCount == 0)
    }

    @Test func aServiceCoreBluetoothRefusesFailsServingAndUndoesWhatWasPublished() async throws {
        let (manager, backend) = FakePeripheralManager.make()
        var definition = TestDevice.definition()
        definition.services.append(ServiceDefinition(uuid: BluetoothUUID(0xFEE0), characteristics: []))
        manager.lock.withLock { manager.addErrors[BluetoothUUID(0xFEE0)] = cbError(8) }
        await #expect(throws: BluetoothError.self) { try await backend.serve(definition) }
        await manager.system.settle()
        #expect(manager.published.isEmpty && manager.advertisement == nil)
        manager.lock.withLock { manager.addErrors = [:] }
        let serving = try await backend.serve(TestDevice.definition())
        await serving.stop()
    }

    @Test func servingWhileWaitingForPowerCanBeCancelled() async throws {
        let (manager, backend) = FakePeripheralManager.make(poweredOn: false)
        let serve = Task { try await backend.serve(TestDevice.definition()) }
        await until { manager.madeCount == 1 && backend.pendingOperationCount == 1 }
        serve.cancel()
        await #expect(throws: BluetoothError.cancelled) { try await serve.value }
        #expect(backend.pendingOperationCount == 0)
        manager.setRadio(.poweredOn)
        await manager.system.settle()
        #expect(manager.published.isEmpty, "nothing is published for a cancelled serve")
    }

    @Test func servingASecondDefinitionAtOnceIsMisuse() async throws {
        let (_, backend, serving) = try await served()
        await #expect(throws: BluetoothError.self) { try await backend.serve(TestDevice.definition()) }
        await serving.stop()
    }

    // MARK: Reads

    @Test func aReadIsAnsweredThroughTheHandlerFromTheRequestedOffset() async throws {
        let log = TestDevice.Log()
        let (manager, _, serving) = try await served(TestDevice.definition(log))
        let phone = FakeRemoteCentral()
        let read = await manager.read(TestDevice.counter, offset: 5, by: phone)
        #expect(read.result == 0)
        #expect(read.value == Array(5..<20))
        #expect(log.reads.withLock { $0 } == [AttributeRequest(central: CentralIdentifier(rawValue: phone.identifier.uuidString))])
        await serving.stop()
    }

    @Test func aReadAtTheEndIsEmptyAndPastTheEndIsAnInvalidOffset() async throws {
        let (manager, _, serving) = try await served()
        let phone = FakeRemoteCentral()
        let atEnd = await manager.read(TestDevice.counter, offset: 20, by: phone)
        #expect(atEnd.result == 0 && atEnd.value == [])
        let past = await manager.read(TestDevice.counter, offset: 21, by: phone)
        #expect(past.result == 0x07)
        await serving.stop()
    }

    @Test func aReadHandlersATTErrorIsTheReadsResult() async throws {
        let (manager, _, serving) = try await served(TestDevice.definition(readError: ATTErrorCode(rawValue: 0x81)))
        let read = await manager.read(TestDevice.counter, by: FakeRemoteCentral())
        #expect(read.result == 0x81)
        await serving.stop()
    }

    @Test func anEncryptedCharacteristicIsAnsweredByTheAppAndHandlersSeeAnEncryptedLink() async throws {
        let (manager, _, serving) = try await served()
        let spec = try #require(manager.characteristic(TestDevice.secret)?.spec)
        #expect(spec.permissions == CoreBluetoothCharacteristicSpec.readEncryptionRequired && spec.value == nil)
        let read = await manager.read(TestDevice.secret, by: FakeRemoteCentral())
        #expect(read.result == 0 && read.value == [42])
        #expect(
            CoreBluetoothPeripheralBackend<FakePeripheralManager>.attributeRequest(CentralIdentifier(rawValue: "x"), security: .authenticated)
                == AttributeRequest(central: CentralIdentifier(rawValue: "x"), isEncrypted: true, isAuthenticated: false))
        await serving.stop()
    }

    @Test func setValueChangesWhatADynamicCharacteristicReads() async throws {
        let (manager, _, serving) = try await served()
        try await serving.setValue([9, 9], characteristic: TestDevice.setting, service: TestDevice.service)
        let read = await manager.read(TestDevice.setting, by: FakeRemoteCentral())
        #expect(read.value == [9, 9])
        await serving.stop()
    }

    @Test func setValueOnACachedCharacteristicIsUnsupported() async throws {
        let (_, _, serving) = try await served()
        await #expect(throws: BluetoothError.self) {
            try await serving.setValue([1], characteristic: TestDevice.model, service: TestDevice.service)
        }
        await serving.stop()
    }

    // MARK: Writes

    @Test func anAcceptedWriteIsStoredAndReported() async throws {
        let (manager, _, serving) = try await served()
        let events = serving.events()
        let phone = FakeRemoteCentral()
        #expect(await manager.write([(TestDevice.setting, 0, [3, 4])], by: phone) == 0)
        #expect(await next(1, of: events) == [.wrote(CentralIdentifier(rawValue: phone.identifier.uuidString), characteristic: TestDevice.setting)])
        #expect(await manager.read(TestDevice.setting, by: phone).value == [3, 4])
        await serving.stop()
    }

    @Test func aWriteBatchWithOneBadRequestIsRefusedAsAWholeBeforeAnyHandlerRuns() async throws {
        let log = TestDevice.Log()
        let (manager, _, serving) = try await served(TestDevice.definition(log))
        let phone = FakeRemoteCentral()
        let result = await manager.write([(TestDevice.command, 0, [1]), (TestDevice.setting, 0, [5]), (TestDevice.model, 0, [0])], by: phone)
        #expect(result == 0x03, "the model is read-only: Write Not Permitted answers the batch")
        #expect(log.commands.withLock { $0 }.isEmpty)
        #expect(await manager.read(TestDevice.setting, by: phone).value == [7])
        await serving.stop()
    }

    @Test func aHandlerRefusingAWriteOfABatchAnswersItAndNothingIsStored() async throws {
        let (manager, _, serving) = try await served()
        let phone = FakeRemoteCentral()
        let result = await manager.write([(TestDevice.setting, 0, [5]), (TestDevice.command, 0, [0xFF])], by: phone)
        #expect(result == 0x80)
        #expect(await manager.read(TestDevice.setting, by: phone).value == [7])
        await serving.stop()
    }

    @Test func aWriteAtAnOffsetPastTheValueIsAnInvalidOffset() async throws {
        let (manager, _, serving) = try await served()
        #expect(await manager.write([(TestDevice.setting, 2, [1])], by: FakeRemoteCentral()) == 0x07)
        await serving.stop()
    }

    @Test func aLongWriteIsAssembledFromItsOffsetsBeforeTheHandlerSeesIt() async throws {
        let log = TestDevice.Log()
        let (manager, _, serving) = try await served(TestDevice.definition(log))
        let result = await manager.write([(TestDevice.command, 0, [1, 2, 3]), (TestDevice.command, 3, [4, 5])], by: FakeRemoteCentral())
        #expect(result == 0)
        #expect(log.commands.withLock { $0 } == [[1, 2, 3, 4, 5]])
        await serving.stop()
    }

    @Test func aValueLongerThan512BytesIsRefused() async throws {
        let (manager, _, serving) = try await served()
        #expect(await manager.write([(TestDevice.command, 0, Array(repeating: 1, count: 513))], by: FakeRemoteCentral()) == 0x0D)
        await serving.stop()
    }

    // MARK: Subscriptions and notifications

    @Test func subscriptionsAndUnsubscriptionsAreReportedAsEvents() async throws {
        let (manager, _, serving) = try await served()
        let events = serving.events()
        let phone = FakeRemoteCentral()
        let id = CentralIdentifier(rawValue: phone.identifier.uuidString)
        manager.subscribe(phone, to: TestDevice.stream)
        #expect(await serving.centrals() == [id])
        manager.unsubscribe(phone, from: TestDevice.stream)
        #expect(await serving.centrals() == [])
        #expect(
            await next(2, of: events) == [
                .subscriptionChanged(id, characteristic: TestDevice.stream, notifying: true),
                .subscriptionChanged(id, characteristic: TestDevice.stream, notifying: false),
            ])
        await serving.stop()
    }

    @Test func aReadOfACharacteristicThatOnlyNotifiesIsNotPermitted() async throws {
        let (manager, _, serving) = try await served()
        #expect(await manager.read(TestDevice.stream, by: FakeRemoteCentral()).result == 0x02)
        await serving.stop()
    }

    @Test func notifyWithNoSubscriberSendsNothing() async throws {
        let (manager, _, serving) = try await served()
        #expect(try await serving.notify([1], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) == 0)
        #expect(manager.updates.isEmpty)
        await serving.stop()
    }

    @Test func notifyWaitsForRoomWhenCoreBluetoothsQueueIsFullThenSendsInOrder() async throws {
        let (manager, backend, serving) = try await served()
        manager.subscribe(FakeRemoteCentral(), to: TestDevice.stream)
        manager.setRoom(false)
        let first = Task { try await serving.notify([1], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) }
        await until { manager.refusedUpdateCount == 1 }
        let second = Task { try await serving.notify([2], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) }
        await until { backend.pendingOperationCount == 2 }
        await manager.system.settle()
        #expect(manager.updates.isEmpty)
        manager.setRoom(true)
        #expect(try await first.value == 1)
        #expect(try await second.value == 1)
        #expect(manager.updates.map(\.value) == [[1], [2]])
        #expect(backend.pendingOperationCount == 0)
        await serving.stop()
    }

    @Test func aNotificationWaitingForRoomCanBeCancelled() async throws {
        let (manager, backend, serving) = try await served()
        manager.subscribe(FakeRemoteCentral(), to: TestDevice.stream)
        manager.setRoom(false)
        let waiting = Task { try await serving.notify([1], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) }
        await until { manager.refusedUpdateCount == 1 }
        waiting.cancel()
        await #expect(throws: BluetoothError.cancelled) { try await waiting.value }
        #expect(backend.pendingOperationCount == 0)
        await serving.stop()
    }

    @Test func aNotificationWaitingForACentralThatUnsubscribesReachesNoOneAndUnblocksTheRest() async throws {
        let (manager, backend, serving) = try await served()
        let leaving = FakeRemoteCentral()
        manager.subscribe(leaving, to: TestDevice.stream)
        manager.subscribe(FakeRemoteCentral(), to: TestDevice.stream)
        manager.setRoom(false)
        let toLeaving = Task {
            try await serving.notify(
                [1], characteristic: TestDevice.stream, service: TestDevice.service, to: CentralIdentifier(rawValue: leaving.identifier.uuidString))
        }
        await until { manager.refusedUpdateCount == 1 }
        let toAll = Task { try await serving.notify([2], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) }
        await until { backend.pendingOperationCount == 2 }
        manager.unsubscribe(leaving, from: TestDevice.stream)
        manager.setRoom(true)
        #expect(try await toLeaving.value == 0)
        #expect(try await toAll.value == 1)
        #expect(manager.updates.map(\.value) == [[2]])
        await serving.stop()
    }

    @Test func indicateReturnsOnceCoreBluetoothTakesTheValue() async throws {
        let (manager, _, serving) = try await served()
        let phone = FakeRemoteCentral()
        manager.subscribe(phone, to: TestDevice.stream)
        let id = CentralIdentifier(rawValue: phone.identifier.uuidString)
        try await serving.indicate([5], characteristic: TestDevice.stream, service: TestDevice.service, to: id, timeout: .seconds(5))
        #expect(manager.updates == [.init(value: [5], characteristic: TestDevice.stream, centrals: [phone.identifier])])
        await serving.stop()
    }

    @Test func anIndicationThatFindsNoRoomWithinItsTimeoutTimesOut() async throws {
        let (clock, manager, backend, serving, id) = try await servedToASubscriberWithNoRoom()
        let indication = Task {
            try await serving.indicate([5], characteristic: TestDevice.stream, service: TestDevice.service, to: id, timeout: .seconds(2))
        }
        await until { manager.refusedUpdateCount == 1 }
        await waitForSleepers(clock)
        clock.advance(by: .seconds(2))
        await #expect(throws: BluetoothError.timeout(operation: "indication of \(TestDevice.stream)", after: .seconds(2))) { try await indication.value }
        #expect(backend.pendingOperationCount == 0)
        manager.setRoom(true)
        await manager.system.settle()
        #expect(manager.updates.isEmpty, "a timed-out indication is not sent later")
        await serving.stop()
    }

    @Test func indicationsWaitingForRoomShareOneTimerAndEachTimesOutAtItsOwnDeadline() async throws {
        let (clock, _, backend, serving, id) = try await servedToASubscriberWithNoRoom()
        let indications = (1...5).map { seconds in
            Task {
                try await serving.indicate(
                    [UInt8(seconds)], characteristic: TestDevice.stream, service: TestDevice.service, to: id, timeout: .seconds(seconds))
            }
        }
        await until { backend.pendingOperationCount == 5 }
        await waitForSleepers(clock)
        #expect(clock.sleeperCount == 1, "five waiting indications, one sleeping timer")
        for (offset, indication) in indications.enumerated() {
            clock.advance(by: .seconds(1))
            let seconds = offset + 1
            await #expect(throws: BluetoothError.timeout(operation: "indication of \(TestDevice.stream)", after: .seconds(seconds))) {
                try await indication.value
            }
            #expect(backend.pendingOperationCount == 4 - offset)
        }
        #expect(clock.sleeperCount == 0, "no timer is left once nothing waits")
        await serving.stop()
    }

    @Test func notifyOnACharacteristicThatDoesNotNotifyIsMisuse() async throws {
        let (_, _, serving) = try await served()
        await #expect(throws: BluetoothError.self) {
            try await serving.notify([1], characteristic: TestDevice.setting, service: TestDevice.service, to: nil)
        }
        await serving.stop()
    }

    // MARK: Radio and stopping

    @Test func poweredOffWhileServingEndsSubscriptionsAndFailsWaitingNotifications() async throws {
        let (manager, backend, serving) = try await served()
        let events = serving.events()
        let phone = FakeRemoteCentral()
        let id = CentralIdentifier(rawValue: phone.identifier.uuidString)
        manager.subscribe(phone, to: TestDevice.stream)
        manager.setRoom(false)
        let waiting = Task { try await serving.notify([1], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) }
        await until { manager.refusedUpdateCount == 1 }
        manager.setRadio(.poweredOff)
        await #expect(throws: BluetoothError.radioUnavailable(.poweredOff)) { try await waiting.value }
        #expect(
            await next(2, of: events) == [
                .subscriptionChanged(id, characteristic: TestDevice.stream, notifying: true),
                .subscriptionChanged(id, characteristic: TestDevice.stream, notifying: false),
            ])
        #expect(await serving.centrals() == [])
        await #expect(throws: BluetoothError.radioUnavailable(.poweredOff)) {
            try await serving.notify([2], characteristic: TestDevice.stream, service: TestDevice.service, to: nil)
        }
        #expect(backend.pendingOperationCount == 0)
        await serving.stop()
    }

    @Test func theDefinitionIsPublishedAndAdvertisedAgainWhenThePowerComesBack() async throws {
        let (manager, _, serving) = try await served()
        manager.setRadio(.poweredOff)
        #expect(manager.published.isEmpty)
        manager.setRoom(true)
        manager.setRadio(.poweredOn)
        await until { manager.published.count == 1 && manager.advertisement != nil }
        let read = await manager.read(TestDevice.counter, by: FakeRemoteCentral())
        #expect(read.result == 0)
        await serving.stop()
    }

    @Test func stopStopsAdvertisingRemovesTheServicesAndEndsTheEvents() async throws {
        let (manager, backend, serving) = try await served()
        let events = serving.events()
        await serving.stop()
        #expect(manager.published.isEmpty && manager.advertisement == nil)
        for await _ in events {}
        let again = try await backend.serve(TestDevice.definition())
        #expect(manager.published.count == 1)
        await again.stop()
    }

    @Test func stopAnswersTheRequestsStillWaitingForAHandler() async throws {
        let gate = Locked<Bool>(false)
        let definition = PeripheralDefinition(
            advertisement: PeripheralAdvertisement(name: "Slow"),
            services: [
                ServiceDefinition(
                    uuid: TestDevice.service,
                    characteristics: [
                        CharacteristicDefinition(
                            uuid: TestDevice.counter, properties: .read,
                            onRead: { _ throws(ATTErrorCode) in
                                while !gate.withLock({ $0 }) { await Task.yield() }
                                return [1]
                            })
                    ])
            ])
        let (manager, backend, serving) = try await served(definition)
        let read = Task { await manager.read(TestDevice.counter, by: FakeRemoteCentral()) }
        await until { backend.pendingOperationCount == 1 }
        await serving.stop()
        #expect(await read.value.result == 0x0E)
        gate.withLock { $0 = true }
    }
}
