import HaraldAssignedNumbers
import HaraldCodec
import Testing

@Suite("Bluetooth SIG assigned names")
struct AssignedNumbersTests {
    @Test func servicesCharacteristicsAndDescriptorsHaveTheirSIGNames() {
        #expect(BluetoothUUID(0x180D).assignedName == "Heart Rate")
        #expect(BluetoothUUID(0x2A37).assignedName == "Heart Rate Measurement")
        #expect(BluetoothUUID(0x2A19).assignedName == "Battery Level")
        #expect(BluetoothUUID(0x2902).assignedName == "Client Characteristic Configuration")
        #expect(BluetoothUUID(0x180A).assignedName == "Device Information")
    }

    @Test func theFullAndShortFormsOfAUUIDHaveTheSameName() {
        let full: BluetoothUUID = "0000180F-0000-1000-8000-00805F9B34FB"
        #expect(full.assignedName == "Battery")
    }

    @Test func aNameIsFoundOnlyUnderTheKindItsRangeAssigns() {
        #expect(AssignedNumbers.name(of: BluetoothUUID(0x2A19), as: .characteristic) == "Battery Level")
        #expect(AssignedNumbers.name(of: BluetoothUUID(0x2A19), as: .service) == nil)
        #expect(AssignedNumbers.kind(of: 0x2902) == .descriptor)
        #expect(AssignedNumbers.kind(of: 0x2800) == .declaration)
        #expect(AssignedNumbers.kind(of: 0x0100) == nil)
    }

    @Test func memberServiceUUIDsAreNamedAfterTheirCompany() {
        #expect(BluetoothUUID(0xFEA6).assignedName == "GoPro, Inc.")
    }

    @Test func vendorUUIDsAndUnassignedNumbersHaveNoName() {
        let vendor: BluetoothUUID = "6E40A000-3C1D-4B2A-9F3E-48415241C000"
        #expect(vendor.assignedName == nil)
        #expect(BluetoothUUID(0x18FF).assignedName == nil)
        #expect(BluetoothUUID(uuid32: 0x1234_5678).assignedName == nil)
    }

    @Test func companyIdentifiersHaveTheirCompanyNames() {
        #expect(AssignedNumbers.companyName(0x004C) == "Apple, Inc.")
        #expect(AssignedNumbers.companyName(0x0006) == "Microsoft")
        #expect(AssignedNumbers.companyName(0x02F2) == "GoPro, Inc.")
        #expect(AssignedNumbers.companyName(0xFFFF) == nil)
    }

    @Test func appearanceNamesGiveTheCategoryAndSubcategory() {
        #expect(AssignedNumbers.appearanceName(0x0040) == "Phone")
        #expect(AssignedNumbers.appearanceName(0x00C1) == "Watch: Sports Watch")
        #expect(AssignedNumbers.appearanceName(0x0341)?.hasSuffix(": Heart Rate Belt") == true)
    }

    @Test func anUnlistedSubcategoryFallsBackToItsCategory() {
        #expect(AssignedNumbers.appearanceName(0x0040 | 0x3E) == "Phone")
        #expect(AssignedNumbers.appearanceName(0xFFC0) == nil)
    }

    @Test func theTablesHoldTheSIGLists() {
        let counts = AssignedNumbers.counts
        #expect(counts["service", default: 0] >= 60)
        #expect(counts["characteristic", default: 0] >= 400)
        #expect(counts["descriptor", default: 0] >= 15)
        #expect(counts["company", default: 0] >= 3000)
    }
}
