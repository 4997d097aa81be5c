import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// The GATT server keeps protected values protected against a hostile client that sends raw
/// PDUs: the error codes of Core Vol 3 Part C §10.3 and Part F §3.4.1.1 by bond state and key
/// size, CCCD writes that need the value's read security, notifications and indications only to
/// links that meet it, and no Find By Type Value oracle.
@Suite("GATT server security")
struct ServerSecurityTests {
    static let secret = BluetoothUUID(0x2B10)  // read, notify, indicate; encrypted
    static let guarded = BluetoothUUID(0x2B11)  // read, notify; authenticated
    static let level4 = BluetoothUUID(0x2B12)  // read; authenticated LE Secure Connections
    static let open = BluetoothUUID(0x2B13)  // read, notify; no security
    static let notifyOnly = BluetoothUUID(0x2B14)  // notify only; encrypted
    static let shortKey = BluetoothUUID(0x2B15)  // read; encrypted, keys of 7 octets accepted
    static let gated = BluetoothUUID(0x2B16)  // read; encrypted and the hook's authorization
    static let guess: [UInt8] = [0x42, 0x42]

    static var services: [GATTServiceDefinition] {
        var shortKeyDefinition = GATTCharacteristicDefinition(uuid: shortKey, properties: .read, permissions: [.read, .readEncrypted], value: guess)
        shortKeyDefinition.minimumReadKeySize = 7
        return [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1815),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: secret, properties: [.read, .notify, .indicate], permissions: [.read, .readEncrypted], value: guess),
                    GATTCharacteristicDefinition(uuid: guarded, properties: [.read, .notify], permissions: [.read, .readAuthenticated], value: guess),
                    GATTCharacteristicDefinition(uuid: level4, properties: .read, permissions: [.read, .readSecureConnections], value: guess),
                    GATTCharacteristicDefinition(uuid: open, properties: [.read, .notify], value: [0x01]),
                    GATTCharacteristicDefinition(uuid: notifyOnly, properties: .notify, permissions: [.readEncrypted]),
                    shortKeyDefinition,
                    GATTCharacteristicDefinition(
                        uuid: gated, properties: .read, permissions: [.read, .readEncrypted], value: guess, authorize: { _, _ in false }),
                ])
        ]
    }

    /// Links as the server sees them.
    static let unbonded = GATTSecurity.none
    static let bondedNotEncrypted = GATTSecurity(bondedLevel: .encrypted)
    static let authenticatedBondNotEncrypted = GATTSecurity(bondedLevel: .authenticatedSecureConnections)
    static let shortKeyLink = GATTSecurity(isEncrypted: true, keySize: 7, bondedLevel: .encrypted)
    static let justWorks = GATTSecurity(isEncrypted: true, bondedLevel: .encrypted)
    static let legacyAuthenticated = GATTSecurity(isEncrypted: true, isAuthenticated: true, bondedLevel: .authenticated)
    static let level4Link = GATTSecurity(isEncrypted: true, isAuthenticated: true, isSecureConnections: true, bondedLevel: .authenticatedSecureConnections)

    /// A server of ``services`` with a raw client at `security`.
    static func client(_ security: GATTSecurity = .none) async throws -> RawClient {
        let client = try await RawClient(services: services)
        await client.server.setSecurity(security, for: client.connection)
        return client
    }

    static func handles(_ uuid: BluetoothUUID, on server: GATTServer) async throws -> (value: UInt16, cccd: UInt16?) {
        let database = await server.database
        let value = try #require(database.characteristic(uuid)?.valueHandle)
        return (value, database.clientConfigurationHandle(forValueHandle: value))
    }

    /// What a Read Request of `uuid` gets at `security`.
    static func read(_ uuid: BluetoothUUID, at security: GATTSecurity) async throws -> ATTPDU? {
        var client = try await client(security)
        let handle = try await handles(uuid, on: client.server).value
        return try await client.exchange(ATTReadRequest(handle: handle))
    }

    static func readError(_ uuid: BluetoothUUID, _ code: ATTErrorCode, on server: GATTServer) async throws -> ATTPDU {
        errorPDU(.readRequest, try await handles(uuid, on: server).value, code)
    }

    // MARK: Error codes (Part C §10.3, Part F §3.4.1.1)

    @Test("an encrypted value: 0x05 without a bond, 0x0F with one, 0x0C for a short key, the value at 16 octets")
    func encryptedValueAnswersByBondStateAndKeySize() async throws {
        let server = try await Self.client().server
        #expect(try await Self.read(Self.secret, at: Self.unbonded) == Self.readError(Self.secret, .insufficientAuthentication, on: server))
        #expect(try await Self.read(Self.secret, at: Self.bondedNotEncrypted) == Self.readError(Self.secret, .insufficientEncryption, on: server))
        #expect(try await Self.read(Self.secret, at: Self.shortKeyLink) == Self.readError(Self.secret, .encryptionKeySizeTooShort, on: server))
        #expect(try await Self.read(Self.secret, at: Self.justWorks) == .readResponse(.init(value: Self.guess)))
    }

    @Test("an authenticated value: 0x05 for an unauthenticated bond or link, 0x0F for an authenticated bond not used yet")
    func authenticatedValueAnswersByTheBondsLevel() async throws {
        let server = try await Self.client().server
        #expect(try await Self.read(Self.guarded, at: Self.bondedNotEncrypted) == Self.readError(Self.guarded, .insufficientAuthentication, on: server))
        #expect(
            try await Self.read(Self.guarded, at: Self.authenticatedBondNotEncrypted) == Self.readError(Self.guarded, .insufficientEncryption, on: server))
        #expect(try await Self.read(Self.guarded, at: Self.justWorks) == Self.readError(Self.guarded, .insufficientAuthentication, on: server))
        #expect(try await Self.read(Self.guarded, at: Self.legacyAuthenticated) == .readResponse(.init(value: Self.guess)))
    }

    @Test("Level 4: a legacy authenticated key is 0x05, a short Secure Connections key 0x0C, 16 octets of Secure Connections pass")
    func level4NeedsSecureConnectionsAndSixteenOctets() async throws {
        let server = try await Self.client().server
        #expect(try await Self.read(Self.level4, at: Self.legacyAuthenticated) == Self.readError(Self.level4, .insufficientAuthentication, on: server))
        var shortSC = Self.level4Link
        shortSC.keySize = 15
        #expect(try await Self.read(Self.level4, at: shortSC) == Self.readError(Self.level4, .encryptionKeySizeTooShort, on: server))
        #expect(try await Self.read(Self.level4, at: Self.level4Link) == .readResponse(.init(value: Self.guess)))
        #expect(shortSC.level == .authenticated)
        #expect(Self.level4Link.level == .authenticatedSecureConnections)
    }

    @Test func aSmallerMinimumKeySizeIsAnExplicitOptIn() async throws {
        let server = try await Self.client().server
        #expect(try await Self.read(Self.shortKey, at: Self.shortKeyLink) == .readResponse(.init(value: Self.guess)))
        #expect(try await Self.read(Self.secret, at: Self.shortKeyLink) == Self.readError(Self.secret, .encryptionKeySizeTooShort, on: server))
    }

    @Test("authorization (0x08) is asked only once the link's security is met")
    func authorizationComesAfterSecurity() async throws {
        let server = try await Self.client().server
        #expect(try await Self.read(Self.gated, at: Self.unbonded) == Self.readError(Self.gated, .insufficientAuthentication, on: server))
        #expect(try await Self.read(Self.gated, at: Self.justWorks) == Self.readError(Self.gated, .insufficientAuthorization, on: server))
    }

    // MARK: CCCD writes

    @Test("subscribing to a protected value needs what reading it needs: 0x05, 0x0F, 0x0C as due")
    func cccdWriteNeedsTheValuesReadSecurity() async throws {
        for (security, expected) in [
            (Self.unbonded, ATTErrorCode.insufficientAuthentication), (Self.bondedNotEncrypted, .insufficientEncryption),
            (Self.shortKeyLink, .encryptionKeySizeTooShort),
        ] {
            var client = try await Self.client(security)
            for uuid in [Self.secret, Self.notifyOnly] {
                let cccd = try #require(try await Self.handles(uuid, on: client.server).cccd)
                let reply = try await client.exchange(ATTWriteRequest(handle: cccd, value: [0x01, 0x00]))
                #expect(reply == errorPDU(.writeRequest, cccd, expected), "\(uuid) at \(security)")
            }
            let (value, _) = try await Self.handles(Self.secret, on: client.server)
            #expect(await client.server.clientConfiguration(valueHandle: value, connection: client.connection).isEmpty)
        }
        var encrypted = try await Self.client(Self.justWorks)
        let cccd = try #require(try await Self.handles(Self.secret, on: encrypted.server).cccd)
        #expect(try await encrypted.exchange(ATTWriteRequest(handle: cccd, value: [0x01, 0x00])) == .writeResponse(.init()))
        var plain = try await Self.client(Self.unbonded)
        let openCCCD = try #require(try await Self.handles(Self.open, on: plain.server).cccd)
        #expect(try await plain.exchange(ATTWriteRequest(handle: openCCCD, value: [0x01, 0x00])) == .writeResponse(.init()))
    }

    @Test func anAuthenticatedValuesCCCDRefusesAJustWorksLink() async throws {
        var client = try await Self.client(Self.justWorks)
        let cccd = try #require(try await Self.handles(Self.guarded, on: client.server).cccd)
        #expect(try await client.exchange(ATTWriteRequest(handle: cccd, value: [0x01, 0x00])) == errorPDU(.writeRequest, cccd, .insufficientAuthentication))
    }

    // MARK: Notifications and indications

    @Test("a subscription left from an encrypted link gets no notification once encryption is gone; counted, never sent")
    func notificationsSkipALinkThatLostItsEncryption() async throws {
        var client = try await Self.client(Self.justWorks)
        let (value, cccd) = try await Self.handles(Self.secret, on: client.server)
        #expect(try await client.exchange(ATTWriteRequest(handle: cccd!, value: [0x03, 0x00])) == .writeResponse(.init()))
        #expect(await client.server.notify(handle: value, value: Self.guess) == 1)
        #expect(await client.next() == [0x1B, UInt8(value & 0xFF), UInt8(value >> 8)] + Self.guess)
        // The link's encryption is lost (a new link of the same client, say): the subscription stays.
        await client.server.setSecurity(Self.bondedNotEncrypted, for: client.connection)
        #expect(await client.server.notify(handle: value, value: Self.guess) == 0)
        #expect(await client.server.notify(handle: value, value: Self.guess, to: client.connection) == 0)
        #expect(client.server.withheldNotifications(valueHandle: value) == 2)
        do {
            try await client.server.indicate(handle: value, value: Self.guess, connection: client.connection, timeout: .seconds(1))
            Issue.record("an indication went to a link without encryption")
        } catch {
            #expect(error == .attribute(.insufficientEncryption, handle: value, request: .handleValueIndication))
        }
        #expect(client.server.withheldNotifications(valueHandle: value) == 3)
        // Nothing was sent: the next PDU the client gets answers its read of an open value.
        let openValue = try await Self.handles(Self.open, on: client.server).value
        #expect(try await client.exchange(ATTReadRequest(handle: openValue)) == .readResponse(.init(value: [0x01])))
        #expect(await client.server.counters.pdusSent[.handleValueNotification] == 1)
    }

    @Test func onlyTheLinksThatMeetTheReadSecurityGetTheValue() async throws {
        let clock = ManualClock()
        let server = try GATTServer(services: Self.services, clock: clock, configuration: .exactLayout())
        let (value, cccd) = try await Self.handles(Self.notifyOnly, on: server)
        var bearers: [ATTMemoryBearer] = []
        var ids: [GATTConnectionID] = []
        for _ in 0..<2 {
            let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
            ids.append(await server.attach(peripheral, security: Self.justWorks))
            bearers.append(central)
        }
        var iterators = bearers.map { $0.events.makeAsyncIterator() }
        for index in 0..<2 {
            try await bearers[index].send(ATTWriteRequest(handle: cccd!, value: [0x01, 0x00]).pduBytes())
            #expect(await iterators[index].next() == .received([0x13]))
        }
        await server.setSecurity(Self.unbonded, for: ids[1])
        #expect(await server.notify(handle: value, value: [7]) == 1)
        #expect(await iterators[0].next() == .received([0x1B, UInt8(value & 0xFF), UInt8(value >> 8), 7]))
        #expect(server.withheldNotifications(valueHandle: value) == 1)
        let openValue = try await Self.handles(Self.open, on: server).value
        try await bearers[1].send(ATTReadRequest(handle: openValue).pduBytes())
        #expect(await iterators[1].next() == .received([0x0B, 0x01]))
    }

    // MARK: No value oracle

    @Test("Find By Type Value confirms no guess of a protected value; an encrypted link finds it")
    func findByTypeValueMatchesOnlyReadableValues() async throws {
        for uuid in [Self.secret, Self.gated] {
            var client = try await Self.client(Self.unbonded)
            let request = ATTFindByTypeValueRequest(range: ATTHandleRange(start: 1, end: 0xFFFF), attributeType: uuid.uuid16!, value: Self.guess)
            #expect(try await client.exchange(request) == errorPDU(.findByTypeValueRequest, 1, .attributeNotFound), "\(uuid)")
        }
        var encrypted = try await Self.client(Self.justWorks)
        let value = try await Self.handles(Self.secret, on: encrypted.server).value
        let request = ATTFindByTypeValueRequest(range: ATTHandleRange(start: 1, end: 0xFFFF), attributeType: Self.secret.uuid16!, value: Self.guess)
        #expect(try await encrypted.exchange(request) == .findByTypeValueResponse(.init(handles: [ATTHandleRange(start: value, end: value)])))
        // The gated value stays hidden: its hook would have to be asked.
        let gated = ATTFindByTypeValueRequest(range: ATTHandleRange(start: 1, end: 0xFFFF), attributeType: Self.gated.uuid16!, value: Self.guess)
        #expect(try await encrypted.exchange(gated) == errorPDU(.findByTypeValueRequest, 1, .attributeNotFound))
        // Primary service discovery by UUID (Find By Type Value on 0x2800) still works unencrypted.
        var plain = try await Self.client(Self.unbonded)
        let services = ATTFindByTypeValueRequest(range: ATTHandleRange(start: 1, end: 0xFFFF), attributeType: 0x2800, value: [0x15, 0x18])
        guard case .findByTypeValueResponse(let found) = try await plain.exchange(services) else {
            Issue.record("primary service discovery by UUID failed")
            return
        }
        #expect(found.handles.first?.start == 1)
    }

    @Test func readByTypeOfAProtectedValueAnswersAsARead() async throws {
        var client = try await Self.client(Self.bondedNotEncrypted)
        let value = try await Self.handles(Self.secret, on: client.server).value
        let request = ATTReadByTypeRequest(range: ATTHandleRange(start: 1, end: 0xFFFF), attributeType: Self.secret)
        #expect(try await client.exchange(request) == errorPDU(.readByTypeRequest, value, .insufficientEncryption))
        await client.server.setSecurity(Self.justWorks, for: client.connection)
        #expect(try await client.exchange(request) == .readByTypeResponse(.init(entries: [ATTHandleValue(handle: value, value: Self.guess)])))
    }
}
