import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// Characteristic, include and descriptor discovery answers that break the ATT ordering rules
/// (Core spec Vol 3 Part F §3.4.3.2, §3.4.4.2) or the declaration layout (Vol 3 Part G §3.3) are
/// protocol violations naming the offending handle, and the client closes the bearer.
@Suite("GATT client: characteristic, include and descriptor discovery responses are checked")
struct StrictCharacteristicDiscoveryTests {
    static let service = GATTService(uuid: BluetoothUUID(0x180D), handles: ATTHandleRange(start: 0x0010, end: 0x0020))
    static let characteristic = GATTCharacteristic(
        uuid: BluetoothUUID(0x2A37), properties: [.notify], declarationHandle: 0x0011, valueHandle: 0x0012, endHandle: 0x0016)

    /// A characteristic declaration at `handle` naming `valueHandle` (Heart Rate Measurement, notify).
    static func declaration(_ handle: UInt16, value valueHandle: UInt16) -> ATTHandleValue {
        ATTHandleValue(handle: handle, value: [0x10, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8), 0x37, 0x2A])
    }

    /// Runs `procedure`, answers its first request with `response`, and returns the violation it
    /// threw; checks that the bearer closed for it.
    func violation(
        answering response: some ATTPDUCodable, to procedure: @escaping @Sendable (GATTClient) async throws(GATTError) -> Void
    ) async throws -> ATTProtocolViolation? {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await procedure(client) }
        _ = await link.nextPDU()
        try await link.reply(response)
        // Some rules can only be checked once the procedure has every answer: its later requests
        // find nothing more. The loop ends when the client closes the bearer.
        while let request = await link.nextPDU() {
            try await link.reply(ATTErrorResponse(requestOpcode: ATTOpcode(request[0]), handle: 0, error: .attributeNotFound))
        }
        let result = await task.result
        guard case .failure(let error) = result, case .protocolViolation(let violation)? = error as? GATTError else {
            Issue.record("expected a protocol violation, got \(result)")
            return nil
        }
        #expect(await client.isConnected == false)
        #expect(await client.closeReason == .protocolViolation(violation.description))
        return violation
    }

    func characteristicViolation(_ entries: [ATTHandleValue]) async throws -> ATTProtocolViolation? {
        try await violation(answering: ATTReadByTypeResponse(entries: entries)) { client throws(GATTError) in
            _ = try await client.discoverCharacteristics(of: Self.service)
        }
    }

    @Test func declarationsOutOfHandleOrderAreAViolationAtTheSecondOne() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x0014, value: 0x0015), Self.declaration(0x0011, value: 0x0012)]))
        #expect(violation.pdu == .readByTypeResponse)
        #expect(violation.handle == 0x0011)
    }

    @Test func aRepeatedDeclarationHandleIsAViolation() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x0011, value: 0x0012), Self.declaration(0x0011, value: 0x0012)]))
        #expect(violation.handle == 0x0011)
    }

    @Test func aDeclarationAfterTheRequestedRangeIsAViolation() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x0021, value: 0x0022)]))
        #expect(violation.handle == 0x0021)
        #expect(violation.description.contains("outside the requested range 0x0010-0x0020"), "\(violation)")
    }

    @Test func aDeclarationBeforeTheRequestedRangeIsAViolation() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x000F, value: 0x0010)]))
        #expect(violation.handle == 0x000F)
    }

    @Test func aDeclarationAtHandleZeroIsAViolation() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x0000, value: 0x0001)]))
        #expect(violation.handle == 0x0000)
    }

    @Test func aValueHandleOtherThanTheNextHandleIsAViolationAtTheDeclaration() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x0011, value: 0x0013)]))
        #expect(violation.handle == 0x0011)
        #expect(violation.description.contains("0x0013"), "\(violation)")
    }

    @Test func aDeclarationOnTheServicesLastHandleLeavesNoRoomForItsValue() async throws {
        let violation = try #require(try await characteristicViolation([Self.declaration(0x0020, value: 0x0021)]))
        #expect(violation.handle == 0x0020)
    }

    @Test func theSweepOverSeveralServicesChecksTheSameRules() async throws {
        let services = [Self.service, GATTService(uuid: BluetoothUUID(0x180F), handles: ATTHandleRange(start: 0x0021, end: 0x0030))]
        let violation = try #require(
            try await violation(answering: ATTReadByTypeResponse(entries: [Self.declaration(0x0031, value: 0x0032)])) { client throws(GATTError) in
                _ = try await client.discoverCharacteristics(ofAll: services)
            })
        #expect(violation.handle == 0x0031)
    }

    @Test func anIncludeDeclarationNamingAnEmptyRangeIsAViolation() async throws {
        let include = ATTHandleValue(handle: 0x0011, value: [0x30, 0x00, 0x20, 0x00, 0x0F, 0x18])
        let violation = try #require(
            try await violation(answering: ATTReadByTypeResponse(entries: [include])) { client throws(GATTError) in
                _ = try await client.discoverIncludedServices(of: Self.service)
            })
        #expect(violation.handle == 0x0011)
    }

    @Test func aDescriptorOutsideTheCharacteristicIsAViolation() async throws {
        let response = ATTFindInformationResponse(entries: [.init(handle: 0x0017, type: GATTAttributeType.clientCharacteristicConfiguration)])
        let violation = try #require(
            try await violation(answering: response) { client throws(GATTError) in _ = try await client.discoverDescriptors(of: Self.characteristic) })
        #expect(violation.pdu == .findInformationResponse)
        #expect(violation.handle == 0x0017)
    }

    @Test func descriptorsOutOfHandleOrderAreAViolation() async throws {
        let cccd = GATTAttributeType.clientCharacteristicConfiguration
        let response = ATTFindInformationResponse(entries: [.init(handle: 0x0015, type: cccd), .init(handle: 0x0014, type: cccd)])
        let violation = try #require(
            try await violation(answering: response) { client throws(GATTError) in _ = try await client.discoverDescriptors(of: Self.characteristic) })
        #expect(violation.handle == 0x0014)
    }

    @Test func theDescriptorSweepChecksTheSameRules() async throws {
        let response = ATTFindInformationResponse(entries: [.init(handle: 0x0000, type: GATTAttributeType.clientCharacteristicConfiguration)])
        let violation = try #require(
            try await violation(answering: response) { client throws(GATTError) in _ = try await client.discoverDescriptors(ofAll: [Self.characteristic]) })
        #expect(violation.handle == 0x0000)
    }

    @Test func wellFormedDeclarationsAreDiscovered() async throws {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await client.discoverCharacteristics(of: Self.service) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadByTypeResponse(entries: [Self.declaration(0x0011, value: 0x0012), Self.declaration(0x0014, value: 0x0015)]))
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x0015, error: .attributeNotFound))
        let found = try await task.value
        #expect(found.map(\.valueHandle) == [0x0012, 0x0015])
        #expect(found.map(\.endHandle) == [0x0013, 0x0020])
        #expect(await client.isConnected)
    }
}
