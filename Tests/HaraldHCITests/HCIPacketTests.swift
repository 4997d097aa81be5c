import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore

/// Packets against the hex captured from Bumble's controllers (bumble.md) and protocols.md D.7.
@Suite("HCI packets")
struct HCIPacketTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!

    @Test func commandsEncodeAsCaptured() {
        let cases: [(HCICommand, String)] = [
            (.reset, "01030c00"),
            (.leReadBufferSize, "01022000"),
            (.setEventMask(0x3FFF_FFFF_FFFF_FFFF), "01010c08ffffffffffffff3f"),
            (.leSetEventMask(0x19FF), "01012008ff19000000000000"),
            (.leSetRandomAddress(BluetoothAddress("C0:00:00:00:00:D1")!), "01052006d100000000c0"),
            (.leSetScanParameters(active: true, interval: 0x60, window: 0x30, ownAddressType: .random), "010b200701600030000100"),
            (.leSetScanEnable(true), "010c20020100"),
            (.leSetScanEnable(false), "010c20020000"),
            (
                .leCreateConnection(
                    peer: Self.peer, ownAddressType: .random, scanInterval: 0x60, scanWindow: 0x60,
                    parameters: LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, latency: 0, supervisionTimeout: 0x48)),
                "010d20196000600000010100000000c001180028000000480000000000"
            ),
            (.disconnect(handle: 1), "01060403010013"),
            (.leSetExtendedScanEnable(true), "01422006010000000000"),
        ]
        for (command, hex) in cases {
            #expect(command.packet.h4Bytes == bytes(hex), "\(command)")
        }
    }

    @Test func commandDecodesFromItsPacket() throws {
        let command = try HCICommand(decoding: bytes("0b200701600030000100"))
        #expect(command.opcode == .leSetScanParameters)
        #expect(command.opcode.ogf == 0x08 && command.opcode.ocf == 0x000B)
        #expect(command.parameters == bytes("01600030000100"))
    }

    @Test func commandCompleteCarriesCreditsOpcodeAndReturnParameters() throws {
        let event = try HCIEvent(decoding: bytes("0e0701022000fb0040"))
        #expect(
            event
                == .commandComplete(
                    CommandComplete(
                        numberOfAllowedCommands: 1, opcode: .leReadBufferSize,
                        returnParameters: bytes("00fb0040"))))
    }

    @Test func commandStatusDecodes() throws {
        #expect(
            try HCIEvent(decoding: bytes("0f0400010d20"))
                == .commandStatus(
                    CommandStatus(status: .success, numberOfAllowedCommands: 1, opcode: .leCreateConnection)))
    }

    @Test func disconnectionAndCompletedPacketsDecode() throws {
        #expect(
            try HCIEvent(decoding: bytes("050400010016"))
                == .disconnectionComplete(
                    DisconnectionComplete(status: .success, handle: 1, reason: .connectionTerminatedByLocalHost)))
        #expect(try HCIEvent(decoding: bytes("13050140000100")) == .numberOfCompletedPackets([CompletedPackets(handle: 0x40, count: 1)]))
    }

    @Test func leConnectionCompleteDecodes() throws {
        let event = try HCIEvent(decoding: bytes("3e130100010000010100000000c018000000480000"))
        #expect(
            event
                == .le(
                    .connectionComplete(
                        LEConnectionComplete(
                            status: .success, handle: 1, role: .central, peer: Self.peer, interval: 0x18, latency: 0, supervisionTimeout: 0x48))))
        let vector = try HCIEvent(decoding: bytes("3e1301004000000066554433221118000000f40100"))
        guard case let .le(.connectionComplete(complete)) = vector else { Issue.record("not a connection"); return }
        #expect(complete.peer.string == "11:22:33:44:55:66")
        #expect(complete.supervisionTimeout == 500)
    }

    @Test func enhancedConnectionCompleteSkipsThePrivateAddresses() throws {
        let event = try HCIEvent(decoding: bytes("3e1f0a00010000010100000000c0 000000000000 000000000000 18000000480000"))
        #expect(
            event
                == .le(
                    .connectionComplete(
                        LEConnectionComplete(
                            status: .success, handle: 1, role: .central, peer: Self.peer, interval: 0x18, latency: 0, supervisionTimeout: 0x48))))
    }

    @Test func connectionUpdatePHYUpdateAndRemoteFeaturesDecode() throws {
        guard case let .le(.connectionUpdateComplete(update)) = try HCIEvent(decoding: bytes("3e0a03000100 0c00 0000 f401")) else {
            Issue.record("not a connection update"); return
        }
        #expect(update.interval == 12 && update.supervisionTimeout == 500)
        #expect(try HCIEvent(decoding: bytes("3e060c0001000202")) == .le(.phyUpdateComplete(try LEPHYUpdateComplete(decoding: bytes("0001000202")))))
        guard case let .le(.readRemoteFeaturesComplete(features)) = try HCIEvent(decoding: bytes("3e0c04000100 2001000000000000")) else {
            Issue.record("not remote features"); return
        }
        #expect(features.features == 0x0120)
    }

    @Test func dataLengthChangeDecodes() throws {
        guard case let .le(.dataLengthChange(change)) = try HCIEvent(decoding: bytes("3e0b0701001b004801fb004808")) else {
            Issue.record("not a data length change"); return
        }
        #expect(change.maxTxOctets == 27 && change.maxTxTime == 328 && change.maxRxOctets == 251 && change.maxRxTime == 2120)
    }

    @Test func legacyAdvertisingReportDecodes() throws {
        let event = try HCIEvent(
            decoding: bytes(
                "3e2b020100010100000000c01f02010605030d180f18090941636d652048524d0319410307ffffff41434d45ce"))
        guard case let .le(.advertisingReport(reports)) = event, let report = reports.first else {
            Issue.record("not a report"); return
        }
        #expect(report.eventType == .advInd)
        #expect(report.address == Self.peer)
        #expect(report.data.count == 31)
        #expect(report.rssi == -50)
    }

    @Test func extendedAdvertisingReportDecodesStockBumbleLayout() throws {
        let data = bytes("02010605030d180f18")
        let event = try HCIEvent(
            decoding: bytes("3e") + [UInt8(26 + data.count)]
                + bytes("0d01 0100 01 0100000000c0 01 01 00 00 ce 0000 00 000000000000") + [UInt8(data.count)] + data)
        guard case let .le(.extendedAdvertisingReport(reports)) = event, let report = reports.first else {
            Issue.record("not an extended report"); return
        }
        #expect(report.isConnectable && !report.isLegacy && report.dataStatus == .complete)
        #expect(report.rssi == -50 && report.txPower == 0)
        #expect(report.data == data)
    }

    @Test func aclPacketSplitsHandleAndFlags() throws {
        let acl = try ACLDataPacket(decoding: bytes("4020090005000400 1b0c000055"))
        #expect(acl.handle == 0x40 && acl.packetBoundary == .firstFlushable && acl.broadcast == 0)
        #expect(acl.data == bytes("05000400 1b0c000055"))
        #expect(
            ACLDataPacket(handle: 1, packetBoundary: .firstNonFlushable, data: bytes("0300040002 0502")).packet.h4Bytes
                == bytes("020100070003000400020502"))
    }

    @Test(arguments: [
        "0e", "0e0501030c", "0f0300010d", "3e0201", "3e0c0100010000090100000000c01800", "1301", "13050240000100",
        "3e2b020100010100000000c0ff", "050300010016",
    ])
    func malformedEventIsATypedError(_ hex: String) {
        #expect(throws: ByteDecodingError.self) { try HCIEvent(decoding: bytes(hex)) }
    }

    @Test func unknownEventsAreKeptRaw() throws {
        #expect(try HCIEvent(decoding: bytes("1a0101")) == .other(code: 0x1A, parameters: [0x01]))
        #expect(try HCIEvent(decoding: bytes("3e03140102")) == .le(.other(subevent: 0x14, parameters: [0x01, 0x02])))
    }
}
