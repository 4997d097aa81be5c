import HaraldCodec
import HaraldCore
import Testing

@testable import HaraldHCI

/// The advertising commands' wire form (Core spec Vol 4 Part E §7.8.5–7.8.9, §7.8.53–7.8.56).
@Suite("Advertising commands")
struct AdvertisingCommandTests {
    @Test func legacyAdvertisingDataIsItsLengthThenThirtyOneOctets() {
        let command = HCICommand.leSetAdvertisingData([0x02, 0x01, 0x06])
        #expect(command.opcode == .leSetAdvertisingData)
        #expect(command.parameters.count == 32)
        #expect(Array(command.parameters.prefix(4)) == [3, 0x02, 0x01, 0x06])
        #expect(command.parameters.dropFirst(4).allSatisfy { $0 == 0 })
    }

    @Test func legacyAdvertisingRefusesDataLongerThanThirtyOneOctets() {
        let long = AdvertisingData(structures: [AdvertisingData.Structure(type: .completeLocalName, data: Array(repeating: 0x41, count: 30))])
        #expect(throws: LegacyAdvertising.Problem.tooLong(field: "advertising data", length: 32)) { try LegacyAdvertising(data: long).validate() }
    }

    @Test func extendedDataUpToOneFragmentGoesOutAsCompleteData() {
        let commands = HCICommand.extendedDataFragments(Array(repeating: 7, count: 251), handle: 0, scanResponse: false)
        #expect(commands.count == 1)
        #expect(Array(commands[0].parameters.prefix(4)) == [0, 0x03, 0x01, 251])
    }

    @Test func longerExtendedDataIsSplitIntoFirstIntermediateAndLastFragments() {
        let data = (0..<600).map { UInt8($0 & 0xFF) }
        let commands = HCICommand.extendedDataFragments(data, handle: 2, scanResponse: true)
        #expect(commands.map(\.opcode) == Array(repeating: .leSetExtendedScanResponseData, count: 3))
        #expect(commands.map { $0.parameters[1] } == [0x01, 0x00, 0x02])
        #expect(commands.map { Int($0.parameters[3]) } == [251, 251, 98])
        #expect(commands.flatMap { $0.parameters.dropFirst(4) } == data)
    }

    @Test func extendedParametersAreTwentyFiveOctetsWithThreeOctetIntervals() {
        let command = HCICommand.leSetExtendedAdvertisingParameters(
            handle: 1, properties: 0x0001, intervalMin: 0x0100A0, intervalMax: 0x0200A0, ownAddressType: .random)
        #expect(command.parameters.count == 25)
        #expect(Array(command.parameters[0..<9]) == [1, 0x01, 0x00, 0xA0, 0x00, 0x01, 0xA0, 0x00, 0x02])
    }
}
