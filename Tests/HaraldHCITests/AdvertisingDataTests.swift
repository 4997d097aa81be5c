import HaraldCodec
import HaraldProfiles
import Testing

@testable import HaraldHCI
import HaraldCore

/// The shared AD parser (HaraldProfiles) against the vectors of protocols.md section E, as the
/// HCI scan delivers them.
@Suite("Advertising data")
struct AdvertisingDataTests {
    @Test func heartRateAdvertisementFromBumbleHasFlagsUUIDsNameAndManufacturerData() throws {
        let data = try AdvertisingData(validating: bytes("02010605030d180f18090941636d652048524d0319410307ffffff41434d45"))
        #expect(data.flags?.rawValue == 0x06)
        #expect(data.serviceUUIDs == ["180D", "180F"])
        #expect(data.localName == "Acme HRM" && !data.isLocalNameShortened)
        #expect(data.appearance == 0x0341)
        #expect(data.manufacturerData == ManufacturerData(companyID: 0xFFFF, data: Array("ACME".utf8)))
    }

    @Test func iBeaconIsManufacturerDataForApple() throws {
        let data = try AdvertisingData(
            validating: bytes(
                "0201061AFF4C000215B5B182C7EAB14988AA99B5C1517008D90001000 2C6".replacingOccurrences(of: " ", with: "")))
        let apple = try #require(data.manufacturerData)
        #expect(apple.companyID == 0x004C)
        #expect(apple.data.prefix(2) == [0x02, 0x15])
        #expect(apple.data.count == 23)
    }

    @Test func eddystoneHasTheUUIDListAndServiceData() throws {
        let data = try AdvertisingData(
            validating: bytes(
                "02010603 03AAFE 1716AAFE00E78B0CA75009547 7CB3E77000000000001 0000".replacingOccurrences(of: " ", with: "")))
        #expect(data.serviceUUIDs == ["FEAA"])
        let frame = try #require(data.serviceData[BluetoothUUID(0xFEAA)])
        #expect(frame.first == 0x00)  // UID frame
        #expect(Int8(bitPattern: frame[1]) == -25)
    }

    @Test func goProAdvertisementAndScanResponse() throws {
        let advertising = try AdvertisingData(validating: bytes("02010203 02A6FE 0FFFF202020138330 0B3FE2A79DCEB0F".replacingOccurrences(of: " ", with: "")))
        #expect(advertising.serviceUUIDs == ["FEA6"])
        #expect(advertising.manufacturerData?.companyID == 0x02F2)
        let response = try AdvertisingData(validating: bytes("0B09476F50726F2031303538 0B16A6FEF7A9768831303538".replacingOccurrences(of: " ", with: "")))
        #expect(response.localName == "GoPro 1058")
        #expect(response.serviceData == [BluetoothUUID(0xFEA6): bytes("F7A9768831303538")])
    }

    @Test func txPowerIsSigned() throws {
        #expect(try AdvertisingData(validating: [0x02, 0x0A, 0x7B]).txPowerLevel == 123)
        #expect(try AdvertisingData(validating: [0x02, 0x0A, 0xEE]).txPowerLevel == -18)
    }

    @Test func uuidsOf32And128BitsAreReadLittleEndian() throws {
        let uuid128: BluetoothUUID = "6E40A000-3C1D-4B2A-9F3E-48415241C000"
        let data = AdvertisingData(structures: [
            .init(type: .completeList32BitServiceUUIDs, data: [0x78, 0x56, 0x34, 0x12]),
            .init(type: .completeList128BitServiceUUIDs, data: uuid128.bigEndianBytes.reversed()),
        ])
        #expect(data.serviceUUIDs == [BluetoothUUID(uuid32: 0x1234_5678), uuid128])
        #expect(try AdvertisingData(validating: data.bytes) == data)
    }

    @Test func shortenedNameIsUsedWhenNoCompleteName() throws {
        let data = try AdvertisingData(validating: [0x04, 0x08, 0x48, 0x52, 0x4D])
        #expect(data.localName == "HRM" && data.isLocalNameShortened)
    }

    @Test func structureRunningPastTheEndThrowsStrictlyAndIsCutLeniently() throws {
        let broken = bytes("020106 05 09 4142".replacingOccurrences(of: " ", with: ""))
        #expect(throws: ByteDecodingError.self) { try AdvertisingData(validating: broken) }
        let lenient = AdvertisingData(parsing: broken)
        #expect(lenient.flags?.rawValue == 0x06 && lenient.localName == nil)
    }

    @Test func zeroPaddingIsSkipped() throws {
        #expect(try AdvertisingData(validating: [0x02, 0x01, 0x06, 0x00, 0x00]).structures.count == 1)
    }
}

@Suite("Advertisement assembly")
struct AdvertisementAssemblerTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!

    @Test func scanResponseIsMergedWithTheAdvertisingData() {
        var assembler = AdvertisementAssembler()
        _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: Self.peer, data: [0x02, 0x01, 0x06], rssi: -40))
        let merged = assembler.add(
            LEAdvertisingReport(
                eventType: .scanResponse, address: Self.peer,
                data: [0x03, 0x09, 0x48, 0x52], rssi: -41))
        #expect(merged.isScanResponse && merged.isConnectable)
        #expect(merged.data.flags?.rawValue == 0x06 && merged.data.localName == "HR")
    }

    @Test func extendedFragmentsAreJoinedBeforeDelivery() {
        var assembler = AdvertisementAssembler()
        let name = [UInt8](repeating: 0x41, count: 300)
        let data = [UInt8(name.count + 1 > 255 ? 255 : name.count + 1), 0x09] + name.prefix(254)
        let first = LEExtendedAdvertisingReport(eventType: 0x01 | 1 << 5, address: Self.peer, rssi: -50, data: Array(data.prefix(200)))
        let last = LEExtendedAdvertisingReport(eventType: 0x01, address: Self.peer, rssi: -50, data: Array(data.dropFirst(200)))
        #expect(assembler.add(first) == nil)
        let advertisement = assembler.add(last)
        #expect(advertisement?.advertisingData == data)
        #expect(advertisement?.data.localName?.count == 254)
    }

    @Test func truncatedExtendedDataIsDeliveredAndMarked() {
        var assembler = AdvertisementAssembler()
        let report = LEExtendedAdvertisingReport(eventType: 0x01 | 2 << 5, address: Self.peer, rssi: -50, data: [0x02, 0x01])
        #expect(assembler.add(report)?.isTruncated == true)
    }

    @Test func rememberedAdvertisersAreBounded() {
        var assembler = AdvertisementAssembler(capacity: 8)
        for index in 0..<100 {
            let address = BluetoothAddress(bytes: [0xC0, 0, 0, 0, 0, UInt8(index)], kind: .random)!
            _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: address, data: [], rssi: -40))
        }
        #expect(assembler.count == 8)
    }

    @Test func aLongScanAmongEverChangingAddressesRemembersAtMostTheCapacity() {
        var assembler = AdvertisementAssembler(capacity: 64)
        for index in 0..<10_000 {
            _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: Self.rotating(index), data: [0x02, 0x01, 0x06], rssi: -40))
            #expect(assembler.count <= 64)
        }
    }

    @Test func theRecentlyHeardAdvertiserStillGetsItsScanResponseMerged() {
        var assembler = AdvertisementAssembler(capacity: 64)
        for index in 0..<10_000 {
            _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: Self.rotating(index), data: [0x02, 0x01, 0x06], rssi: -40))
        }
        let response = assembler.add(LEAdvertisingReport(eventType: .scanResponse, address: Self.rotating(9_999), data: [0x02, 0x0A, 0x00], rssi: -40))
        #expect(response.advertisingData == [0x02, 0x01, 0x06])
        #expect(response.scanResponseData == [0x02, 0x0A, 0x00])
    }

    @Test func theLeastRecentlyHeardAdvertiserIsForgotten() {
        var assembler = AdvertisementAssembler(capacity: 64)
        for index in 0..<10_000 {
            _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: Self.rotating(index), data: [0x02, 0x01, 0x06], rssi: -40))
        }
        let response = assembler.add(LEAdvertisingReport(eventType: .scanResponse, address: Self.rotating(0), data: [0x02, 0x0A, 0x00], rssi: -40))
        #expect(response.advertisingData.isEmpty)
    }

    /// A resolvable private address per index, as phones rotating their address produce.
    static func rotating(_ index: Int) -> BluetoothAddress {
        BluetoothAddress(value: 0x4000_0000_0000 | UInt64(index), kind: .random)!
    }

    @Test func fragmentsNeverGrowPastTheMaximum() {
        var assembler = AdvertisementAssembler(maximumDataLength: 100)
        var delivered: Advertisement?
        for _ in 0..<10 {
            delivered = assembler.add(
                LEExtendedAdvertisingReport(
                    eventType: 1 << 5, address: Self.peer, rssi: -50, data: [UInt8](repeating: 0, count: 60)))
            if delivered != nil { break }
        }
        #expect(delivered?.isTruncated == true)
        #expect(delivered?.advertisingData.count == 100)
    }
}
