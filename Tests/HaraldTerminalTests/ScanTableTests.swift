import HaraldCodec
import HaraldTerminal
import Testing

@Suite("The live scan table")
struct ScanTableTests {
    func table(_ devices: [ScanTable.Device]) -> ScanTable {
        var table = ScanTable()
        for device in devices { table.update(device) }
        return table
    }

    @Test func rowsAreSortedStrongestSignalFirst() {
        let scan = table([
            .init(address: "C0:00:00:00:00:01", rssi: -80), .init(address: "C0:00:00:00:00:02", rssi: -40),
            .init(address: "C0:00:00:00:00:03", rssi: nil), .init(address: "C0:00:00:00:00:04", rssi: -60),
        ])
        #expect(scan.sorted.map(\.address) == ["C0:00:00:00:00:02", "C0:00:00:00:00:04", "C0:00:00:00:00:01", "C0:00:00:00:00:03"])
    }

    @Test func aNewAdvertisementUpdatesTheRSSIAndKeepsWhatItLacks() {
        let scan = table([
            .init(address: "A", name: "Harald-HR", rssi: -70, services: [BluetoothUUID(0x180D)], companyID: 0x004C),
            .init(address: "A", rssi: -50),
        ])
        let device = scan.devices["A"]
        #expect(device?.rssi == -50 && device?.name == "Harald-HR" && device?.services == [BluetoothUUID(0x180D)])
        #expect(device?.companyID == 0x004C && device?.seen == 2)
    }

    @Test func aRowShowsNameRSSIBarSIGNamedServicesAndTheManufacturer() {
        let scan = table([.init(address: "C0:00:00:00:00:01", name: "Harald-HR", rssi: -40, services: [BluetoothUUID(0x180D)], companyID: 0x004C)])
        let lines = scan.render(width: 120)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("ADDRESS"))
        for part in ["C0:00:00:00:00:01", "Harald-HR", " -40 ██████████", "180D Heart Rate", "0x004C Apple, Inc."] {
            #expect(lines[1].contains(part), "\(part) missing from \(lines[1])")
        }
    }

    @Test func noLineIsWiderThanAskedAndLongFieldsEndInAnEllipsis() {
        let services = (0x1800...0x1810).map { BluetoothUUID(UInt16($0)) }
        let lines = table([.init(address: "C0:00:00:00:00:01", name: "A very long device name indeed", rssi: -70, services: services)]).render(width: 80)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines[1].contains("…"))
    }

    @Test func theBarGrowsWithTheSignal() {
        #expect(ScanTable.bar(rssi: -110) == "··········")
        #expect(ScanTable.bar(rssi: -70) == "█████·····")
        #expect(ScanTable.bar(rssi: -30) == "██████████")
    }

    @Test func aRedrawMovesUpOverThePreviousFrameAndErasesWhatIsLeft() {
        #expect(TerminalFrame.redraw(["a", "b"], previousLineCount: 0) == "a\u{1B}[K\nb\u{1B}[K\n\u{1B}[J")
        #expect(TerminalFrame.redraw(["a"], previousLineCount: 3) == "\u{1B}[3A\ra\u{1B}[K\n\u{1B}[J")
    }

    @Test func aProgressBarShowsTheFractionDone() {
        #expect(ProgressBar.render(label: "sync", done: 45, total: 180, width: 8) == "sync [██░░░░░░]  25% 45/180")
        #expect(ProgressBar.render(label: "sync", done: 200, total: 180, width: 4) == "sync [████] 100% 180/180")
        #expect(ProgressBar.render(label: "x", done: 0, total: 0, width: 2) == "x [░░]   0% 0/0")
    }
}
