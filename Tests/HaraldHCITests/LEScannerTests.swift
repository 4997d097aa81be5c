import HaraldCore
import HaraldHCI
import Testing

/// The host's scan as a value: one at a time, its commands, and its reports.
@Suite("LE scanner: one scan, its commands and its advertisements")
struct LEScannerTests {
    static let advertiser = BluetoothAddress("C0:00:00:00:00:07", kind: .random)!

    @Test func aSecondScanIsRefusedWhileOneRuns() {
        var scanner = LEScanner()
        let (_, first) = AsyncStream.makeStream(of: Advertisement.self)
        let (_, second) = AsyncStream.makeStream(of: Advertisement.self)
        let began = scanner.begin(id: 1, extended: false, options: ScanOptions(), continuation: first)
        let again = scanner.begin(id: 2, extended: true, options: ScanOptions(), continuation: second)
        #expect(began && !again)
        #expect(scanner.current?.id == 1 && scanner.current?.extended == false)
    }

    @Test func aReportGoesIntoTheRunningScansStreamAndNowhereWithoutOne() async {
        var scanner = LEScanner()
        let report = LEAdvertisingReport(eventType: .advInd, address: Self.advertiser, data: [0x02, 0x01, 0x06], rssi: -60)
        scanner.received(report)  // no scan: dropped
        let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        _ = scanner.begin(id: 1, extended: false, options: ScanOptions(), continuation: continuation)
        scanner.received(report)
        scanner.end(id: 1)?.continuation.finish()
        var heard: [Advertisement] = []
        for await advertisement in stream { heard.append(advertisement) }
        #expect(heard.map(\.address) == [Self.advertiser])
        #expect(heard.first?.isConnectable == true && heard.first?.rssi == RSSI(dBm: -60))
    }

    @Test func theScanRemembersAdvertisersUpToItsLimit() {
        var scanner = LEScanner()
        let (_, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        _ = scanner.begin(id: 1, extended: false, options: ScanOptions(rememberedAdvertisers: 8), continuation: continuation)
        for index in 0..<100 {
            let address = BluetoothAddress(bytes: [UInt8(index), 0, 0, 0, 0, 0xC0], kind: .random)!
            scanner.received(LEAdvertisingReport(eventType: .advInd, address: address, data: [], rssi: -70))
        }
        #expect(scanner.rememberedAdvertiserCount <= 8 && scanner.rememberedAdvertiserCount > 0)
    }

    @Test func stoppingAnotherScanDoesNothingAndStoppingThisOneFreesTheScanner() {
        var scanner = LEScanner()
        let (_, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        _ = scanner.begin(id: 1, extended: false, options: ScanOptions(), continuation: continuation)
        #expect(scanner.end(id: 2) == nil)
        #expect(scanner.end(id: 1)?.id == 1)
        #expect(scanner.current == nil && scanner.rememberedAdvertiserCount == 0)
    }

    @Test func aLegacyScanSetsItsParametersThenEnables() {
        let options = ScanOptions(active: false, interval: 0x40, window: 0x20, filterDuplicates: true)
        let commands = LEScanner.enableCommands(options, extended: false)
        #expect(
            commands == [
                .leSetScanParameters(active: false, interval: 0x40, window: 0x20, ownAddressType: .random),
                .leSetScanEnable(true, filterDuplicates: true),
            ])
        #expect(LEScanner.disableCommand(extended: false) == .leSetScanEnable(false))
    }

    @Test func anExtendedScanUsesTheExtendedCommands() {
        let commands = LEScanner.enableCommands(ScanOptions(), extended: true)
        #expect(commands.map(\.opcode) == [.leSetExtendedScanParameters, .leSetExtendedScanEnable])
        #expect(LEScanner.disableCommand(extended: true) == .leSetExtendedScanEnable(false))
    }

    @Test func aPausedScanResumesWithItsDuplicateFiltering() throws {
        var scanner = LEScanner()
        let (_, continuation) = AsyncStream.makeStream(of: Advertisement.self)
        _ = scanner.begin(id: 1, extended: true, options: ScanOptions(filterDuplicates: true), continuation: continuation)
        let scan = try #require(scanner.current)
        #expect(LEScanner.resumeCommand(scan) == .leSetExtendedScanEnable(true, filterDuplicates: true))
    }
}
