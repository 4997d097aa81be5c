import HaraldATT
import HaraldCodec
import HaraldCore
import Testing

@Suite("GATT server permissions and handlers")
struct PermissionTests {
    static let secret = BluetoothUUID(0x2B01)
    static let authenticated = BluetoothUUID(0x2B02)
    static let authorized = BluetoothUUID(0x2B03)
    static let readOnly = BluetoothUUID(0x2B04)
    static let writeOnly = BluetoothUUID(0x2B05)
    static let dynamic = BluetoothUUID(0x2B06)

    static func services(log: WriteLog = WriteLog()) -> [GATTServiceDefinition] {
        [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1815),
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: secret, properties: [.read, .write], permissions: [.read, .write, .readEncrypted, .writeEncrypted], value: [1]),
                    GATTCharacteristicDefinition(uuid: authenticated, properties: .read, permissions: [.read, .readAuthenticated], value: [2]),
                    GATTCharacteristicDefinition(
                        uuid: authorized, properties: [.read, .write], permissions: [.read, .write, .readAuthorized, .writeAuthorized], value: [3]),
                    GATTCharacteristicDefinition(uuid: readOnly, properties: .read, value: [4]),
                    GATTCharacteristicDefinition(uuid: writeOnly, properties: .write, value: [5]),
                    GATTCharacteristicDefinition(
                        uuid: dynamic, properties: [.read, .write],
                        onRead: { context in
                            await Task.yield()
                            guard context.security.isEncrypted else { throw ATTErrorCode(0x80) }
                            return [0xD0, 0x0D]
                        },
                        onWrite: { _, value in
                            guard value.first != 0xFF else { throw ATTErrorCode.outOfRange }
                            await log.append(value)
                        }),
                ])
        ]
    }

    actor WriteLog {
        var values: [[UInt8]] = []
        func append(_ value: [UInt8]) { values.append(value) }
    }

    func expectError(_ code: ATTErrorCode, _ request: ATTOpcode, _ handle: UInt16, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code)")
        } catch {
            #expect(error as? GATTError == .attribute(code, handle: handle, request: request))
        }
    }

    @Test func readingAWriteOnlyValueIsReadNotPermitted() async throws {
        let link = try await Link(services: Self.services())
        let handle = await link.valueHandle(Self.writeOnly)
        await expectError(.readNotPermitted, .readRequest, handle) { _ = try await link.client.read(handle: handle) }
    }

    @Test("GATT/CL/GAW/BI-03-C: a write of a read-only value fails with Write Not Permitted")
    func writingAReadOnlyValueIsWriteNotPermitted() async throws {
        let link = try await Link(services: Self.services())
        let handle = await link.valueHandle(Self.readOnly)
        await expectError(.writeNotPermitted, .writeRequest, handle) { try await link.client.write(handle: handle, value: [1]) }
        await expectError(.writeNotPermitted, .prepareWriteRequest, handle) { try await link.client.writeLong(handle: handle, value: [1]) }
    }

    @Test func encryptedValueNeedsAnEncryptedLink() async throws {
        let link = try await Link(services: Self.services())
        let handle = await link.valueHandle(Self.secret)
        // No key with this client yet: pair (Insufficient Authentication, Part C §10.3).
        await expectError(.insufficientAuthentication, .readRequest, handle) { _ = try await link.client.read(handle: handle) }
        await expectError(.insufficientAuthentication, .writeRequest, handle) { try await link.client.write(handle: handle, value: [9]) }
        // A bonded client that has not encrypted yet: encrypt with the key (Insufficient Encryption).
        await link.server.setSecurity(GATTSecurity(bondedLevel: .encrypted), for: link.connection)
        await expectError(.insufficientEncryption, .readRequest, handle) { _ = try await link.client.read(handle: handle) }
        await link.server.setSecurity(GATTSecurity(isEncrypted: true), for: link.connection)
        let observed1 = try await link.client.read(handle: handle)
        #expect(observed1 == [1])
    }

    @Test func authenticatedValueNeedsAnAuthenticatedPairing() async throws {
        let link = try await Link(services: Self.services(), security: GATTSecurity(isEncrypted: true))
        let handle = await link.valueHandle(Self.authenticated)
        await expectError(.insufficientAuthentication, .readRequest, handle) { _ = try await link.client.read(handle: handle) }
        await link.server.setSecurity(GATTSecurity(isEncrypted: true, isAuthenticated: true), for: link.connection)
        let observed2 = try await link.client.read(handle: handle)
        #expect(observed2 == [2])
    }

    @Test func authorizationHookDecidesAccess() async throws {
        let denied = try await Link(services: Self.services(), authorize: { _, _, isWrite in !isWrite })
        let handle = await denied.valueHandle(Self.authorized)
        let observed3 = try await denied.client.read(handle: handle)
        #expect(observed3 == [3])
        await expectError(.insufficientAuthorization, .writeRequest, handle) { try await denied.client.write(handle: handle, value: [1]) }
        let noHook = try await Link(services: Self.services())
        await expectError(.insufficientAuthorization, .readRequest, handle) { _ = try await noHook.client.read(handle: handle) }
    }

    @Test func asyncReadHandlerMayThrowAnApplicationError() async throws {
        let link = try await Link(services: Self.services())
        let handle = await link.valueHandle(Self.dynamic)
        await expectError(ATTErrorCode(0x80), .readRequest, handle) { _ = try await link.client.read(handle: handle) }
        await link.server.setSecurity(GATTSecurity(isEncrypted: true), for: link.connection)
        let observed4 = try await link.client.read(handle: handle)
        #expect(observed4 == [0xD0, 0x0D])
    }

    @Test func writeHandlerSeesTheWholeValueAndMayRefuseIt() async throws {
        let log = WriteLog()
        let link = try await Link(services: Self.services(log: log))
        let handle = await link.valueHandle(Self.dynamic)
        try await link.client.write(handle: handle, value: [1, 2])
        try await link.client.writeLong(handle: handle, value: Array(repeating: 7, count: 40))
        await expectError(.outOfRange, .writeRequest, handle) { try await link.client.write(handle: handle, value: [0xFF]) }
        let observed5 = await log.values
        #expect(observed5 == [[1, 2], Array(repeating: 7, count: 40)])
    }

    @Test func applicationErrorCodesCoverTheReservedRange() {
        #expect(ATTErrorCode.application(0x80)?.isApplicationError == true)
        #expect(ATTErrorCode.application(0x9F) != nil)
        #expect(ATTErrorCode.application(0xA0) == nil)
        #expect(ATTErrorCode.cccdImproperlyConfigured.isCommonProfileError)
    }

    @Test func databaseAssignsHandlesInDeclarationOrder() throws {
        let database = try GATTDatabase(services: SampleDevice.services)
        // GAP: service, (decl, value) × 2 = 5 handles; Heart Rate: service + HRM decl/value/CCCD + 2 × (decl, value).
        #expect(
            database.services.map { $0.handles } == [
                ATTHandleRange(start: 1, end: 5), ATTHandleRange(start: 6, end: 13), ATTHandleRange(start: 14, end: 17), ATTHandleRange(start: 18, end: 21),
            ])
        #expect(database.characteristic(BluetoothUUID(0x2A37))?.valueHandle == 8)
        #expect(database.clientConfigurationHandle(forValueHandle: 8) == 9)
    }

    @Test func includingAnUnknownServiceIsRejected() {
        #expect(throws: GATTDatabaseError.unknownIncludedService(BluetoothUUID(0x1234))) {
            try GATTDatabase(services: [GATTServiceDefinition(uuid: BluetoothUUID(0x180A), includes: [BluetoothUUID(0x1234)], characteristics: [])])
        }
    }
}
