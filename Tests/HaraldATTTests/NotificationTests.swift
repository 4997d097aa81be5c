import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

@Suite("Notifications and indications")
struct NotificationTests {
    func enable(_ link: Link, _ uuid: BluetoothUUID, _ configuration: ClientCharacteristicConfiguration) async throws -> UInt16 {
        let valueHandle = await link.valueHandle(uuid)
        let cccd = try #require(await link.database.clientConfigurationHandle(forValueHandle: valueHandle))
        try await link.client.configureNotifications(cccdHandle: cccd, configuration)
        return valueHandle
    }

    @Test func cccdIsAddedAutomaticallyForNotifyAndIndicate() async throws {
        let link = try await Link(services: SampleDevice.services)
        let database = await link.database
        for uuid in [BluetoothUUID(0x2A37), BluetoothUUID(0x2A19)] {
            #expect(database.clientConfigurationHandle(forValueHandle: database.characteristic(uuid)!.valueHandle) != nil)
        }
        #expect(database.clientConfigurationHandle(forValueHandle: database.characteristic(BluetoothUUID(0x2A38))!.valueHandle) == nil)
    }

    @Test func cccdWriteIsKeptPerConnectionAndReadBack() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = try await enable(link, BluetoothUUID(0x2A19), [.notifications, .indications])
        let state = await link.server.clientConfiguration(valueHandle: handle, connection: link.connection)
        #expect(state == [.notifications, .indications])
        let cccd = try #require(await link.database.clientConfigurationHandle(forValueHandle: handle))
        #expect(try await link.client.read(handle: cccd) == [0x03, 0x00])
    }

    @Test func enablingIndicationsOnANotifyOnlyCharacteristicIsImproperlyConfigured() async throws {
        let link = try await Link(services: SampleDevice.services)
        await #expect(throws: GATTError.self) {
            _ = try await enable(link, BluetoothUUID(0x2A37), .indications)
        }
    }

    @Test func notificationsReachTheSubscriberOfTheirHandle() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = try await enable(link, BluetoothUUID(0x2A37), .notifications)
        let subscription = await link.client.subscribe(handle: handle)
        let other = await link.client.subscribe(handle: handle &+ 40)
        let observed1 = await link.server.notify(handle: handle, value: [0x00, 0x55])
        #expect(observed1 == 1)
        var values = subscription.values.makeAsyncIterator()
        let observed2 = await values.next()
        #expect(observed2 == GATTNotification(handle: handle, value: [0x00, 0x55], isIndication: false))
        await link.client.unsubscribe(other)
        let observed3 = await link.client.droppedValueCount(subscription)
        #expect(observed3 == 0)
    }

    @Test func cccdStateIsKeptPerClient() async throws {
        let clock = ManualClock()
        let server = try GATTServer(services: SampleDevice.services, clock: clock)
        let (centralA, peripheralA) = ATTMemoryBearer.pair()
        let (centralB, peripheralB) = ATTMemoryBearer.pair()
        let connectionA = await server.attach(peripheralA)
        let connectionB = await server.attach(peripheralB)
        let clientA = GATTClient(bearer: centralA, clock: clock)
        let clientB = GATTClient(bearer: centralB, clock: clock)
        let database = await server.database
        let handle = try #require(database.characteristic(BluetoothUUID(0x2A37))).valueHandle
        let cccd = try #require(database.clientConfigurationHandle(forValueHandle: handle))
        try await clientA.configureNotifications(cccdHandle: cccd, .notifications)
        #expect(try await clientB.read(handle: cccd) == [0, 0])
        let stateA = await server.clientConfiguration(valueHandle: handle, connection: connectionA)
        let stateB = await server.clientConfiguration(valueHandle: handle, connection: connectionB)
        #expect(stateA == .notifications)
        #expect(stateB == [])
        let subscriptionA = await clientA.subscribe(handle: handle)
        let sent = await server.notify(handle: handle, value: [0, 60])
        #expect(sent == 1)
        var valuesA = subscriptionA.values.makeAsyncIterator()
        #expect(await valuesA.next()?.value == [0, 60])
        _ = try await clientB.read(handle: cccd)
        let receivedB = await clientB.counters.pdusReceived[.handleValueNotification]
        #expect(receivedB == nil)
    }

    @Test func noNotificationIsSentToAClientThatDidNotEnableThem() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(BluetoothUUID(0x2A37))
        let observed4 = await link.server.notify(handle: handle, value: [1])
        #expect(observed4 == 0)
    }

    @Test func indicationWaitsForTheClientsConfirmation() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = try await enable(link, BluetoothUUID(0x2A19), .indications)
        let subscription = await link.client.subscribe(handle: handle)
        try await link.server.indicate(handle: handle, value: [42], connection: link.connection)
        var values = subscription.values.makeAsyncIterator()
        let observed5 = await values.next()
        #expect(observed5 == GATTNotification(handle: handle, value: [42], isIndication: true))
        let observed6 = await link.server.counters.roundTrips[.handleValueIndication]
        #expect(observed6 == 1)
        let observed7 = await link.client.counters.pdusSent[.handleValueConfirmation]
        #expect(observed7 == 1)
        let observed8 = await link.server.liveContinuations
        #expect(observed8 == 0)
    }

    @Test func indicationWithoutEnabledCCCDIsRefused() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(BluetoothUUID(0x2A19))
        await #expect(throws: GATTError.self) {
            try await link.server.indicate(handle: handle, value: [1], connection: link.connection)
        }
    }

    @Test func aSlowSubscriberDropsTheOldestValuesAndTheDropsAreCounted() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = try await enable(link, BluetoothUUID(0x2A37), .notifications)
        let subscription = await link.client.subscribe(handle: handle, bufferingPolicy: .bufferingNewest(2))
        for beat in 1...5 { await link.server.notify(handle: handle, value: [0, UInt8(beat)]) }
        // The read is answered after the notifications sent before it were handled.
        _ = try await link.client.read(handle: link.valueHandle(BluetoothUUID(0x2A38)))
        let observed9 = await link.client.droppedValueCount(subscription)
        #expect(observed9 == 3)
        let observed10 = await link.client.counters.droppedValues
        #expect(observed10 == 3)
        var values = subscription.values.makeAsyncIterator()
        let observed11 = await values.next()?.value
        #expect(observed11 == [0, 4])
        let observed12 = await values.next()?.value
        #expect(observed12 == [0, 5])
    }

    @Test func multipleHandleValueNotificationIsSplitPerHandle() async throws {
        let link = ScriptedLink()
        let first = await link.client.subscribe(handle: 0x0C)
        let second = await link.client.subscribe(handle: 0x0E)
        try await link.reply(ATTMultipleHandleValueNotification(values: [.init(handle: 0x0C, value: [1]), .init(handle: 0x0E, value: [2, 3])]))
        var firstValues = first.values.makeAsyncIterator()
        var secondValues = second.values.makeAsyncIterator()
        let observed13 = await firstValues.next()?.value
        #expect(observed13 == [1])
        let observed14 = await secondValues.next()?.value
        #expect(observed14 == [2, 3])
    }

    @Test func subscriberStreamsFinishWhenTheBearerCloses() async throws {
        let link = try await Link(services: SampleDevice.services)
        let subscription = await link.client.subscribe(handle: 0x0C)
        await link.server.disconnect(link.connection)
        var values = subscription.values.makeAsyncIterator()
        let observed15 = await values.next()
        #expect(observed15 == nil)
        let observed16 = await link.client.subscriberCount
        #expect(observed16 == 0)
    }

    @Test func serverReportsSubscriptionChanges() async throws {
        let link = try await Link(services: SampleDevice.services)
        var events = link.server.events.makeAsyncIterator()
        let observed17 = await events.next()
        #expect(observed17 == .connected(link.connection))
        let handle = try await enable(link, BluetoothUUID(0x2A37), .notifications)
        let observed18 = await events.next()
        #expect(observed18 == .clientConfigurationChanged(link.connection, valueHandle: handle, .notifications))
    }
}
