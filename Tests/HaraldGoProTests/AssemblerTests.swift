import HaraldCodec
import HaraldGoPro
import HaraldTestSupport
import Testing

@Suite("Open GoPro message assembler")
struct AssemblerTests {
    @Test func aSinglePacketMessageIsCompleteAtOnce() throws {
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x02, 0x01, 0x00]) == [0x01, 0x00])
        #expect(!assembler.isAssembling)
    }

    @Test func aZeroLengthMessageIsCompleteAndEmpty() throws {
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x00]) == [])
        #expect(try assembler.append([0x20, 0x00]) == [])
        #expect(try assembler.append([0x40, 0x00, 0x00]) == [])
    }

    @Test func theAllStatusesStreamReassemblesAcrossTheCounterWrap() throws {
        let (messages, assembler) = try reassemble(AllStatusesStream.packets)
        #expect(messages.count == 1)
        #expect(messages.first?.count == 370)
        #expect(messages.first?.prefix(2) == [0x13, 0x00])
        #expect(!assembler.isAssembling)
    }

    @Test func progressIsReportedWhileAMessageIsIncomplete() throws {
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append(AllStatusesStream.packets[0]) == nil)
        #expect(assembler.announcedLength == 370)
        #expect(assembler.receivedCount == 18)
        #expect(try assembler.append(AllStatusesStream.packets[1]) == nil)
        #expect(assembler.receivedCount == 37)
    }

    @Test func aGeneralHeaderMessageOf31BytesContinuesInAContinuationPacket() throws {
        // The General header announces up to 31 bytes; a 20-byte packet carries 19 of them.
        let message = (0..<31).map { UInt8($0) }
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x1F] + message[0..<19]) == nil)
        #expect(assembler.announcedLength == 31)
        #expect(try assembler.append([0x80] + message[19...]) == message)
        #expect(!assembler.isAssembling)
    }

    @Test func aTwentyByteMessageUnderAGeneralHeaderSpillsOneByteIntoASecondPacket() throws {
        // 20 payload bytes plus the header byte do not fit one 20-byte packet (protocols.md A.2, discrepancy 3).
        let message = (100..<120).map { UInt8($0) }
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x14] + message[0..<19]) == nil)
        #expect(try assembler.append([0x80, message[19]]) == message)
    }

    @Test func aGeneralHeaderMessageMayTakeSeveralContinuationPackets() throws {
        let message = (0..<25).map { UInt8($0) }
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x19] + message[0..<5]) == nil)
        #expect(try assembler.append([0x80] + message[5..<15]) == nil)
        #expect(try assembler.append([0x81] + message[15...]) == message)
    }

    @Test func aContinuationWithoutAStartIsRejected() {
        var assembler = GoProMessageAssembler()
        #expect(throws: GoProPacketError.continuationWithoutStart(counter: 3)) { try assembler.append([0x83, 0x01]) }
    }

    @Test func aStartPacketLongerThanItsAnnouncedLengthIsRejected() {
        var assembler = GoProMessageAssembler()
        #expect(throws: GoProPacketError.moreBytesThanAnnounced(announced: 2, received: 3)) {
            try assembler.append([0x02, 0x01, 0x00, 0x00])
        }
        #expect(!assembler.isAssembling)
    }

    @Test func aContinuationGoingPastTheAnnouncedLengthIsRejectedAndTheMessageDropped() throws {
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x20, 0x04, 0x01, 0x02]) == nil)
        #expect(throws: GoProPacketError.moreBytesThanAnnounced(announced: 4, received: 5)) {
            try assembler.append([0x80, 0x03, 0x04, 0x05])
        }
        #expect(!assembler.isAssembling)
        #expect(assembler.receivedCount == 0)
    }

    @Test func aNewStartWhileIncompleteIsRejectedAndBothAreDropped() throws {
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x20, 0x04, 0x01, 0x02]) == nil)
        #expect(throws: GoProPacketError.newStartWhileIncomplete(announced: 4, received: 2)) {
            try assembler.append([0x02, 0x01, 0x00])
        }
        #expect(!assembler.isAssembling)
        // The next start packet begins a message normally.
        #expect(try assembler.append([0x02, 0x01, 0x00]) == [0x01, 0x00])
    }

    @Test func aReservedHeaderIsRejected() {
        var assembler = GoProMessageAssembler()
        #expect(throws: GoProPacketError.reservedHeader(0x61)) { try assembler.append([0x61, 0x00]) }
    }

    @Test func anEmptyNotificationIsRejectedButLeavesTheMessageInProgress() throws {
        var assembler = GoProMessageAssembler()
        #expect(try assembler.append([0x20, 0x02, 0x01]) == nil)
        #expect(throws: GoProPacketError.emptyPacket) { try assembler.append([]) }
        #expect(try assembler.append([0x80, 0x02]) == [0x01, 0x02])
    }

    @Test func resetDropsTheIncompleteMessage() throws {
        var assembler = GoProMessageAssembler()
        _ = try assembler.append([0x20, 0x04, 0x01])
        assembler.reset()
        #expect(!assembler.isAssembling)
        #expect(throws: GoProPacketError.continuationWithoutStart(counter: 0)) { try assembler.append([0x80, 0x02]) }
    }

    @Test func slicesAndOtherSequencesAreAcceptedAsPackets() throws {
        var assembler = GoProMessageAssembler()
        let bytes: [UInt8] = [0xFF, 0x02, 0x01, 0x00]
        #expect(try assembler.append(contentsOf: bytes[1...]) == [0x01, 0x00])
        #expect(try assembler.append(contentsOf: [0x01, 0x07].lazy.map { $0 }) == [0x07])
    }

    @Test func eachCharacteristicHasItsOwnAssembler() throws {
        var assemblers = GoProMessageAssemblers<GoProCharacteristic>()
        #expect(try assemblers.append([0x20, 0x03, 0x01], from: .commandResponse) == nil)
        #expect(try assemblers.append([0x05, 0x12, 0x00, 0x02, 0x01, 0x09], from: .queryResponse) == [0x12, 0x00, 0x02, 0x01, 0x09])
        #expect(assemblers[.commandResponse].receivedCount == 1)
        #expect(try assemblers.append([0x80, 0x00, 0x05], from: .commandResponse) == [0x01, 0x00, 0x05])
    }

    @Test func anErrorOnOneCharacteristicLeavesTheOthersAlone() throws {
        var assemblers = GoProMessageAssemblers<GoProCharacteristic>()
        _ = try assemblers.append([0x20, 0x03, 0x01], from: .commandResponse)
        #expect(throws: GoProPacketError.self) { try assemblers.append([0x80, 0x01], from: .queryResponse) }
        #expect(try assemblers.append([0x80, 0x00, 0x05], from: .commandResponse) == [0x01, 0x00, 0x05])
    }

    @Test func characteristicsAreNamedByShortNameOrUUID() throws {
        #expect(GoProCharacteristic("GP-0077") == .queryResponse)
        #expect(GoProCharacteristic("gp-0073") == .commandResponse)
        #expect(GoProCharacteristic("b5f90075-aa8d-11e3-9046-0002a5d5c51b") == .settingsResponse)
        #expect(GoProCharacteristic.queryResponse.uuid == BluetoothUUID("B5F90077-AA8D-11E3-9046-0002A5D5C51B"))
        #expect(GoProCharacteristic.commandResponse.shortName == "GP-0073")
        #expect(GoProCharacteristic("GP-9999") == nil)
    }
}
