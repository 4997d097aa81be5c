import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// Discovery responses that break the Core spec's ordering rules (Vol 3 Part G §4.4) are protocol
/// violations naming the offending handle, not something to build a database from.
@Suite("GATT client: service discovery responses are checked")
struct StrictDiscoveryTests {
    static let service = BluetoothUUID(0x180D)
    func group(_ start: UInt16, _ end: UInt16) -> ATTReadByGroupTypeResponse.Entry {
        .init(range: ATTHandleRange(start: start, end: end), value: [0x0D, 0x18])
    }

    func discoveryError(_ entries: [ATTReadByGroupTypeResponse.Entry]) async throws -> GATTError? {
        var link = ScriptedLink()
        let client = link.client
        let discovery = Task { try await client.discoverPrimaryServices() }
        _ = await link.nextPDU()
        try await link.reply(ATTReadByGroupTypeResponse(entries: entries))
        do {
            _ = try await discovery.value
            return nil
        } catch let error as GATTError {
            return error
        }
    }

    @Test func overlappingGroupsInOneResponseAreAProtocolViolationAtTheSecondGroupsHandle() async throws {
        let error = try #require(try await discoveryError([group(0x0001, 0x0010), group(0x0008, 0x0020)]))
        #expect(error.isProtocolError)
        #expect(error.description.contains("0x0008"), "\(error)")
    }

    @Test func groupsOutOfHandleOrderAreAProtocolViolation() async throws {
        let error = try #require(try await discoveryError([group(0x0020, 0x0030), group(0x0010, 0x0015)]))
        #expect(error.isProtocolError)
        #expect(error.description.contains("0x0010"), "\(error)")
    }

    @Test func aGroupEndingBeforeItStartsIsAProtocolViolation() async throws {
        let error = try #require(try await discoveryError([group(0x0010, 0x0005)]))
        #expect(error.isProtocolError)
        #expect(error.description.contains("0x0005"), "\(error)")
    }

    @Test func aGroupAfterOneEndingAtTheLastHandleIsAProtocolViolation() async throws {
        let error = try #require(try await discoveryError([group(0x0001, 0xFFFF), group(0x0002, 0x0003)]))
        #expect(error.isProtocolError)
    }

    @Test func overlappingServicesGivenToTheSweepAreReportedAsTheServersProtocolError() async throws {
        let link = ScriptedLink()
        let services = [
            GATTService(uuid: Self.service, handles: ATTHandleRange(start: 1, end: 0x10)),
            GATTService(uuid: Self.service, handles: ATTHandleRange(start: 0x08, end: 0x20)),
        ]
        await #expect(
            throws: GATTError.protocolViolation(
                ATTProtocolViolation(
                    pdu: .readByGroupTypeResponse, handle: 0x0008, rule: "service groups 0x0001-0x0010 and 0x0008-0x0020 overlap"))
        ) {
            _ = try await link.client.discoverCharacteristics(ofAll: services)
        }
    }

    @Test func wellOrderedGroupsAreDiscovered() async throws {
        var link = ScriptedLink()
        let client = link.client
        let discovery = Task { try await client.discoverPrimaryServices() }
        _ = await link.nextPDU()
        try await link.reply(ATTReadByGroupTypeResponse(entries: [group(0x0001, 0x0005), group(0x0006, 0xFFFF)]))
        let services = try await discovery.value
        #expect(services.map(\.handles) == [ATTHandleRange(start: 1, end: 5), ATTHandleRange(start: 6, end: 0xFFFF)])
    }
}
