import HaraldATT
import HaraldCodec
import HaraldTestSupport

extension GATTServer.Configuration {
    /// A server that serves exactly the services a test defines: the engine's tests pin layouts
    /// and request counts, so the Generic Attribute service a server adds by default would only
    /// be in their way. The Service Changed tests ask for it.
    static func exactLayout(maximumPreparedWrites: Int = 64, supportsReadMultipleVariable: Bool = true) -> Self {
        .init(maximumPreparedWrites: maximumPreparedWrites, supportsReadMultipleVariable: supportsReadMultipleVariable, addsGenericAttributeService: false)
    }
}

/// A GATT client and server joined by an in-memory bearer pair.
struct Link {
    let client: GATTClient
    let server: GATTServer
    let connection: GATTConnectionID
    let clock: ManualClock

    init(
        services: [GATTServiceDefinition], mtu: Int = 23, security: GATTSecurity = .none,
        serverConfiguration: GATTServer.Configuration = .exactLayout(), clientConfiguration: GATTClient.Configuration = .init(),
        authorize: GATTAuthorizationHandler? = nil
    ) async throws {
        let clock = ManualClock()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: mtu)
        server = try GATTServer(services: services, clock: clock, configuration: serverConfiguration, authorize: authorize)
        connection = await server.attach(peripheral, security: security)
        client = GATTClient(bearer: central, clock: clock, configuration: clientConfiguration)
        self.clock = clock
    }

    var database: GATTDatabase {
        get async { await server.database }
    }

    func valueHandle(_ uuid: BluetoothUUID) async -> UInt16 {
        await database.characteristic(uuid)!.valueHandle
    }
}

/// A GATT client whose peer is the test itself, sending and reading raw PDUs.
struct ScriptedLink {
    let client: GATTClient
    let peer: ATTMemoryBearer
    let clock: ManualClock
    var peerEvents: AsyncStream<ATTBearerEvent>.Iterator

    init(mtu: Int = 23, configuration: GATTClient.Configuration = .init()) {
        let clock = ManualClock()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: mtu)
        client = GATTClient(bearer: central, clock: clock, configuration: configuration)
        peer = peripheral
        peerEvents = peripheral.events.makeAsyncIterator()
        self.clock = clock
    }

    /// The next PDU the client sent (nil once the bearer closed).
    mutating func nextPDU() async -> [UInt8]? {
        while let event = await peerEvents.next() {
            if case .received(let bytes) = event { return bytes }
            return nil
        }
        return nil
    }

    func reply(_ pdu: some ATTPDUCodable) async throws {
        try await peer.send(pdu.pduBytes())
    }

    func reply(raw bytes: [UInt8]) async throws {
        try await peer.send(bytes)
    }
}

/// The service set most tests use: GAP, Heart Rate, Battery and a 128-bit vendor service.
enum SampleDevice {
    static let vendorService: BluetoothUUID = "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"
    static let vendorLong: BluetoothUUID = "6E400002-B5A3-F393-E0A9-E50E24DCCA9E"
    static let longValue: [UInt8] = (0..<100).map { UInt8($0) }

    static var services: [GATTServiceDefinition] {
        [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1800),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: .read, value: Array("Harald".utf8)),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A01), properties: .read, value: [0x40, 0x03]),
                ]),
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180D),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A37), properties: .notify),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A38), properties: .read, value: [0x01]),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A39), properties: .write),
                ]),
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180F),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify, .indicate], value: [85])
                ]),
            GATTServiceDefinition(
                uuid: vendorService,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: vendorLong, properties: [.read, .write, .writeWithoutResponse], value: longValue,
                        descriptors: [.userDescription("long value")])
                ]),
        ]
    }
}

func ceilDiv(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }
