import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// A Handle Value Notification or Indication carries at most ATT_MTU − 3 bytes of a value
/// (Core Vol 3 Part F §3.4.7): the server never sends one cut.
@Suite("Notifications and indications longer than a link's ATT_MTU")
struct NotificationLengthTests {
    /// A server with two clients subscribed to 0x2A37 (notifications) and 0x2A19 (indications):
    /// `wide` exchanged an ATT_MTU of 517, `narrow` kept the default 23.
    struct TwoClients {
        let server: GATTServer
        let wide: GATTClient
        let narrow: GATTClient
        let narrowConnection: GATTConnectionID
        let measurement: UInt16
        let battery: UInt16

        init() async throws {
            let clock = ManualClock()
            server = try GATTServer(services: SampleDevice.services, clock: clock)
            let (wideCentral, widePeripheral) = ATTMemoryBearer.pair()
            let (narrowCentral, narrowPeripheral) = ATTMemoryBearer.pair()
            _ = await server.attach(widePeripheral)
            narrowConnection = await server.attach(narrowPeripheral)
            wide = GATTClient(bearer: wideCentral, clock: clock)
            narrow = GATTClient(bearer: narrowCentral, clock: clock)
            #expect(try await wide.exchangeMTU() == 517)
            let database = await server.database
            measurement = try #require(database.characteristic(BluetoothUUID(0x2A37))).valueHandle
            battery = try #require(database.characteristic(BluetoothUUID(0x2A19))).valueHandle
            for client in [wide, narrow] {
                try await client.configureNotifications(
                    cccdHandle: try #require(database.clientConfigurationHandle(forValueHandle: measurement)), .notifications)
                try await client.configureNotifications(cccdHandle: try #require(database.clientConfigurationHandle(forValueHandle: battery)), .indications)
            }
        }

        /// Notifications `client` has received (after a round trip, so none is in flight).
        func notificationsReceived(by client: GATTClient) async throws -> Int {
            _ = try await client.read(handle: battery)
            return await client.counters.pdusReceived[.handleValueNotification] ?? 0
        }
    }

    @Test func aNotificationToEverySubscriberGoesWholeOnlyToTheClientsWhoseATTMTUCarriesIt() async throws {
        let clients = try await TwoClients()
        let subscription = await clients.wide.subscribe(handle: clients.measurement)
        let value = [UInt8](repeating: 0x4C, count: 30)
        #expect(await clients.server.notify(handle: clients.measurement, value: value) == 1)
        var values = subscription.values.makeAsyncIterator()
        #expect(await values.next()?.value == value)
        #expect(try await clients.notificationsReceived(by: clients.narrow) == 0)
        #expect(clients.server.withheldNotifications(valueHandle: clients.measurement) == 1)
    }

    @Test func aNotificationToOneClientWhoseATTMTUIsTooShortIsNotSent() async throws {
        let clients = try await TwoClients()
        let value = [UInt8](repeating: 0x4C, count: 21)
        #expect(await clients.server.notify(handle: clients.measurement, value: value, to: clients.narrowConnection) == 0)
        #expect(clients.server.notifyWithoutWaiting(handle: clients.measurement, value: value, to: clients.narrowConnection) == 0)
        #expect(try await clients.notificationsReceived(by: clients.narrow) == 0)
        #expect(clients.server.withheldNotifications(valueHandle: clients.measurement) == 2)
    }

    @Test func aValueOfExactlyATTMTUMinusThreeBytesIsNotifiedWhole() async throws {
        let clients = try await TwoClients()
        let subscription = await clients.narrow.subscribe(handle: clients.measurement)
        let value = [UInt8](repeating: 0x4C, count: 20)
        #expect(await clients.server.notify(handle: clients.measurement, value: value, to: clients.narrowConnection) == 1)
        var values = subscription.values.makeAsyncIterator()
        #expect(await values.next()?.value == value)
    }

    @Test func anIndicationLongerThanTheATTMTUIsRefusedNotCut() async throws {
        let clients = try await TwoClients()
        await #expect {
            try await clients.server.indicate(handle: clients.battery, value: [UInt8](repeating: 0x4C, count: 21), connection: clients.narrowConnection)
        } throws: { error in
            if case .invalidArgument? = error as? GATTError { return true }
            return false
        }
        _ = try await clients.narrow.read(handle: clients.battery)
        #expect(await clients.narrow.counters.pdusReceived[.handleValueIndication] == nil)
    }
}
