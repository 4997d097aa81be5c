import HaraldCodec
import HaraldCore
import Testing

@Suite("Advertising data parsing")
struct AdvertisingDataTests {
    // Flags 0x06, complete 16-bit UUID list [0x180D, 0x180F], complete name "Harald-HR",
    // manufacturer data for company 0x0059 with two bytes.
    let sample: [UInt8] =
        [
            0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18,
            0x0A, 0x09,
        ] + Array("Harald-HR".utf8) + [0x05, 0xFF, 0x59, 0x00, 0xAB, 0xCD]

    @Test func typedFieldsComeFromTheirStructures() {
        let data = AdvertisingData(parsing: sample)
        #expect(data.flags?.contains(.generalDiscoverable) == true)
        #expect(data.flags?.contains(.brEDRNotSupported) == true)
        #expect(data.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
        #expect(data.localName == "Harald-HR")
        #expect(data.manufacturerData == ManufacturerData(companyID: 0x0059, data: [0xAB, 0xCD]))
    }

    @Test func encodingGivesBackTheParsedBytes() {
        #expect(AdvertisingData(parsing: sample).bytes == sample)
    }

    @Test func zeroLengthStructureEndsTheData() {
        let data = AdvertisingData(parsing: [0x02, 0x01, 0x06, 0x00, 0x00, 0x00])
        #expect(data.structures.count == 1)
    }

    @Test func lenientParsingKeepsWhatPrecedesATruncatedStructure() {
        let data = AdvertisingData(parsing: [0x02, 0x01, 0x06, 0x09, 0x09, 0x41])
        #expect(data.structures.count == 1)
    }

    @Test func strictParsingRejectsATruncatedStructure() {
        #expect(throws: ByteDecodingError.self) {
            try AdvertisingData(validating: [0x02, 0x01, 0x06, 0x09, 0x09, 0x41])
        }
    }

    @Test func strictParsingRejectsAUUIDListOfOddLength() {
        #expect(throws: ByteDecodingError.self) {
            try AdvertisingData(validating: [0x04, 0x03, 0x0D, 0x18, 0x0F])
        }
    }

    @Test func serviceDataIsKeyedByItsUUID() {
        let data = AdvertisingData(parsing: [0x05, 0x16, 0xA6, 0xFE, 0x01, 0x02])
        #expect(data.serviceData == [BluetoothUUID(0xFEA6): [0x01, 0x02]])
    }
}

@Suite("Advertising data merged with a scan response")
struct MergedAdvertisingDataTests {
    @Test func aServiceListedInBothPartsIsReportedOnce() {
        let advertising: [UInt8] = [0x03, 0x03, 0x0D, 0x18]
        let response: [UInt8] = [0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18]
        #expect(AdvertisingData(parsing: advertising + response).serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
    }
}
