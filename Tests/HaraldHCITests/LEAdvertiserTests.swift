import HaraldCore
import HaraldHCI
import Testing

/// The host's advertising as a value: the commands for each kind, and its checks.
@Suite("LE advertiser: commands, checks and what is on air")
struct LEAdvertiserTests {
    static let address = BluetoothAddress("C0:00:00:00:00:0A", kind: .random)!
    static let name = AdvertisingData(structures: [AdvertisingData.Structure(type: .completeLocalName, data: Array("Harald".utf8))])
    /// 304 octets: two structures of 150 octets of data each.
    static let long = AdvertisingData(
        structures: Array(repeating: AdvertisingData.Structure(type: .manufacturerSpecificData, data: Array(repeating: 1, count: 150)), count: 2))

    @Test func legacyAdvertisingSetsParametersDataAndScanResponseThenEnables() throws {
        let advertising = LegacyAdvertising(data: Self.name, intervalMin: 100, intervalMax: 200)
        let commands = try LEAdvertiser.startCommands(advertising)
        #expect(commands.map(\.opcode) == [.leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable])
        #expect(commands.last == .leSetAdvertisingEnable(true))
    }

    @Test func legacyAdvertisingWithAnIntervalOutOfRangeSendsNothing() {
        #expect(throws: HCIError.unsupported(LegacyAdvertising.Problem.intervalOutOfRange.description)) {
            try LEAdvertiser.startCommands(LegacyAdvertising(data: Self.name, intervalMin: 10, intervalMax: 10))
        }
    }

    @Test func extendedAdvertisingNamesItsAddressAndSendsItsDataInFragments() throws {
        let commands = try LEAdvertiser.startCommands(
            ExtendedAdvertising(kind: .nonConnectable, data: Self.long), address: Self.address, maximumDataLength: 1650)
        #expect(commands.first == .leSetAdvertisingSetRandomAddress(handle: LEAdvertiser.advertisingSet, address: Self.address))
        #expect(commands.filter { $0.opcode == .leSetExtendedAdvertisingData }.count == 2)
        #expect(!commands.contains { $0.opcode == .leSetExtendedScanResponseData }, "only a scannable set has a scan response")
        #expect(commands.last == .leSetExtendedAdvertisingEnable(true, handle: LEAdvertiser.advertisingSet))
    }

    @Test func extendedDataLongerThanTheControllerTakesIsRefused() {
        #expect(throws: HCIError.unsupported("advertising data is 304 octets; this controller advertises at most 251")) {
            try LEAdvertiser.startCommands(ExtendedAdvertising(kind: .nonConnectable, data: Self.long), address: Self.address, maximumDataLength: 251)
        }
    }

    @Test func aConnectableExtendedSetWithAScanResponseIsRefusedBeforeAnythingIsSent() {
        #expect(throws: HCIError.unsupported("only a scannable extended advertisement has a scan response")) {
            try LEAdvertiser.check(ExtendedAdvertising(kind: .connectable, data: Self.name, scanResponse: Self.name))
        }
    }

    @Test func stoppingAnExtendedSetAlsoRemovesIt() {
        let extended = HostAdvertising.extended(ExtendedAdvertising(kind: .connectable, data: Self.name))
        #expect(
            LEAdvertiser.stopCommands(extended) == [
                .leSetExtendedAdvertisingEnable(false, handle: LEAdvertiser.advertisingSet), .leRemoveAdvertisingSet(handle: LEAdvertiser.advertisingSet),
            ])
        #expect(LEAdvertiser.stopCommands(.legacy(LegacyAdvertising(data: Self.name))) == [.leSetAdvertisingEnable(false)])
        #expect(LEAdvertiser.stopCommands(nil).isEmpty)
        #expect(LEAdvertiser.enableCommand(extended, true) == .leSetExtendedAdvertisingEnable(true, handle: LEAdvertiser.advertisingSet))
    }

    @Test func theHostClosingEndsEveryWatchersStream() async {
        var advertiser = LEAdvertiser()
        let (stream, continuation) = AsyncStream.makeStream(of: LEConnection.self)
        advertiser.watch(continuation, id: 1)
        advertiser.finishWatchers()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0 && advertiser.watchers.isEmpty)
    }
}
