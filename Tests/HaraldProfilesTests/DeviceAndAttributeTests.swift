import HaraldCodec
import HaraldCore
import HaraldProfiles
import Testing

@Suite("Device information, GAP, GATT descriptors, Mi Band")
struct DeviceAndAttributeTests {
    @Test func deviceInformationStringsAreUTF8WithoutTerminator() throws {
        #expect(try ManufacturerNameString(decoding: Array("Harald Oy".utf8)).text == "Harald Oy")
        #expect(try ModelNumberString(decoding: Array("HR-1".utf8) + [0, 0]).text == "HR-1")
        #expect(try FirmwareRevisionString(text: "1.0.2").encodedBytes() == Array("1.0.2".utf8))
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: ByteDecodingError.self) { try SerialNumberString(decoding: [0x41, 0xC3]) }
    }

    @Test func deviceNamesOver248BytesCannotBeEncoded() {
        #expect(throws: ByteEncodingError.self) { try DeviceName(text: String(repeating: "x", count: 249)).encodedBytes() }
        #expect(throws: Never.self) { try DeviceName(text: String(repeating: "x", count: 248)).encodedBytes() }
    }

    @Test func systemIDPacksTheOUIAboveTheManufacturerIdentifier() throws {
        let value = try #require(SystemID(manufacturerIdentifier: 0xAB_CDEF_0102, organizationallyUniqueIdentifier: 0x123456))
        let bytes = try value.encodedBytes()
        #expect(try bytes == [UInt8](hex: "02 01 EF CD AB 56 34 12"))
        #expect(try SystemID(decoding: bytes) == value)
        #expect(SystemID(manufacturerIdentifier: 1 << 40, organizationallyUniqueIdentifier: 0) == nil)
    }

    @Test func pnpIDFields() throws {
        let value = try PnPID(decoding: [UInt8](hex: "01 0D 00 34 12 00 01"))
        #expect(value.vendorIDSource == .bluetoothSIG)
        #expect(value.vendorID == 0x000D)
        #expect(value.productID == 0x1234)
        #expect(value.productVersion == 0x0100)
        #expect(try PnPID(decoding: [UInt8](hex: "07 0D 00 34 12 00 01")).vendorIDSource == .reserved(7))
    }

    @Test func appearanceNamesCommonCategories() throws {
        let belt = try Appearance(decoding: [0x41, 0x03])
        #expect(belt == .heartRateBelt)
        #expect(belt.category == 13)
        #expect(belt.categoryName == "heartRateSensor")
        #expect(belt.subcategoryName == "heartRateBelt")
        let oximeter = try #require(Appearance(category: 49, subcategory: 1))
        #expect(oximeter.subcategoryName == "fingertip")
        let unnamed = try #require(Appearance(category: 1000, subcategory: 3))
        #expect(unnamed.categoryName == nil && unnamed.subcategoryName == nil)
    }

    @Test func cccdTurnsNotificationsAndIndicationsOn() throws {
        #expect(try ClientCharacteristicConfiguration(decoding: [0x01, 0x00]) == .notifications)
        #expect(try ClientCharacteristicConfiguration(decoding: [0x02, 0x00]) == .indications)
        #expect(try ClientCharacteristicConfiguration.disabled.encodedBytes() == [0x00, 0x00])
        let odd = try ClientCharacteristicConfiguration(decoding: [0x05, 0x80])
        #expect(odd.notificationsEnabled && !odd.indicationsEnabled)
        #expect(odd.reservedBits == 0x8004)
    }

    @Test func presentationFormatOfABatteryLevel() throws {
        let bytes = try [UInt8](hex: "04 00 AD 27 01 00 00")
        let value = try CharacteristicPresentationFormat(decoding: bytes)
        #expect(value.format == .uint8)
        #expect(value.unit == 0x27AD)
        #expect(value.jsonValue["unit"] == .string("27AD"))
        #expect(try value.encodedBytes() == bytes)
        #expect(try CharacteristicPresentationFormat(decoding: [UInt8](hex: "40 00 AD 27 01 00 00")).format == .reserved(0x40))
    }

    @Test func serviceChangedRanges() throws {
        #expect(try ServiceChanged(decoding: [0x01, 0x00, 0xFF, 0xFF]) == .all)
        #expect(throws: ByteDecodingError.self) { try ServiceChanged(decoding: [0x00, 0x00, 0xFF, 0xFF]) }
        #expect(throws: ByteDecodingError.self) { try ServiceChanged(decoding: [0x05, 0x00, 0x04, 0x00]) }
    }
}

@Suite("Text characteristic limits")
struct TextCharacteristicLimitTests {
    @Test func aDeviceNameLongerThan248BytesIsRejectedWhenDecoded() {
        #expect(throws: ByteDecodingError.self) { try DeviceName(decoding: Array(repeating: 0x73, count: 249)) }
    }

    @Test func aDeviceNameOf248BytesDecodesAndEncodesBack() throws {
        let bytes = [UInt8](repeating: 0x73, count: 248)
        #expect(try DeviceName(decoding: bytes).encodedBytes() == bytes)
    }
}
