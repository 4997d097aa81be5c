import Foundation
import HaraldCodec
import HaraldProfiles
import Testing

@testable import HaraldHCI
import HaraldCore

/// The link's data length, its PHY and active scanning against Bumble controllers that emulate
/// what a real controller does (`scripts/bumble/controllers.py --data-length --phy --reports`, on
/// a controller pair of its own), with "HaraldDL": the `long` peer whose name and manufacturer
/// data are only in its scan response.
enum LinkBench {
    /// `tcp:127.0.0.1:PORT` of the central controller with Data Length Extension.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_DLE_TRANSPORT"] }
    static let peer = BluetoothAddress("C0:00:00:00:00:0B", kind: .random)!
    static let name = "HaraldDL"

    /// Controller-to-host ACL packets in a btsnoop capture: (packet boundary flag, data length).
    static func receivedACL(_ capture: [UInt8]) -> [(boundary: UInt8, length: Int)] {
        var packets: [(UInt8, Int)] = []
        var offset = 16
        while offset + 24 <= capture.count {
            let length = capture[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let packet = Array(capture[(offset + 24)..<min(capture.count, offset + 24 + length)])
            if capture[offset + 11] & 1 == 1, packet.count >= 5, packet[0] == 0x02 {
                packets.append(((packet[2] >> 4) & 0x03, Int(packet[3]) | Int(packet[4]) << 8))
            }
            offset += 24 + length
        }
        return packets
    }

    /// The LE Meta subevent codes of the events in a btsnoop capture, in order.
    static func leSubevents(_ capture: [UInt8]) -> [UInt8] {
        var subevents: [UInt8] = []
        var offset = 16
        while offset + 24 <= capture.count {
            let length = capture[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if length >= 4, offset + 28 <= capture.count, capture[offset + 24] == 0x04, capture[offset + 25] == 0x3E {
                subevents.append(capture[offset + 27])
            }
            offset += 24 + length
        }
        return subevents
    }
}

@Suite(
    "Bumble integration: data length, PHY and scan responses (scripts/integration)", .serialized,
    .enabled(if: LinkBench.transport != nil, "set HARALD_DLE_TRANSPORT (run scripts/integration) to test link parameters against Bumble"))
struct LinkParameterBumbleIntegrationTests {
    @Test func newLinkCarries251BytePacketsBothWaysWhenBothHostsAskForThem() async throws {
        let parameters = try await Bumble.withHost(on: LinkBench.transport) { host in
            #expect(await host.controller?.canExtendDataLength == true)
            let connection = try await host.connect(to: LinkBench.peer)
            // An ATT round trip: its response comes after the link's LE Data Length Change.
            _ = try await RawATT(connection).exchangeMTU(247)
            let parameters = connection.parameters
            try await connection.disconnect()
            return parameters
        }
        #expect(parameters.maxTxOctets == 251)
        #expect(parameters.maxRxOctets == 251)
    }

    @Test func setDataLengthShortensOnlyTheHostsOwnPackets() async throws {
        let parameters = try await Bumble.withHost(on: LinkBench.transport) { host in
            let connection = try await host.connect(to: LinkBench.peer)
            try await connection.setDataLength(octets: 100, time: 1000)
            // The change is reported before the answer to a later command.
            try await host.execute(.readBDADDR)
            let parameters = connection.parameters
            try await connection.disconnect()
            return parameters
        }
        #expect(parameters.maxTxOctets == 100)
        #expect(parameters.maxRxOctets == 251)
    }

    @Test func preferredPHYOf2MIsAppliedToTheLinkBothWays() async throws {
        let (parameters, readPHY) = try await Bumble.withHost(on: LinkBench.transport, preferredPHY: 0x02) { host in
            let connection = try await host.connect(to: LinkBench.peer)
            // The host asks for the PHY in the background after connecting; the update arrives
            // whenever the link layers agree (bounded by the suite's deadline, not timed).
            while connection.parameters.txPHY == 1 || connection.parameters.rxPHY == 1 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let handle = RawATT.le16(connection.handle)
            let readPHY = try await host.execute(HCICommand(HCIOpcode(rawValue: 0x2030), parameters: handle))  // LE Read PHY
            let parameters = connection.parameters
            try await connection.disconnect()
            return (parameters, readPHY)
        }
        #expect(parameters.txPHY == 2 && parameters.rxPHY == 2)
        #expect(Array(readPHY.suffix(2)) == [0x02, 0x02], "the controller reports LE 2M each way")
    }

    @Test(arguments: [247, 517])
    func longValueReadsIntactOver251ByteLinkPackets(mtu: Int) async throws {
        let capture = Locked<[UInt8]>([])
        let snoop = BTSnoopWriter(sink: { bytes in capture.withLock { $0 += bytes } }, microsecondsSinceUnixEpoch: { 0 })
        let value = try await Bumble.withHost(on: LinkBench.transport, snoop: snoop) { host in
            let connection = try await host.connect(to: LinkBench.peer)
            let att = RawATT(connection)
            #expect(try await att.exchangeMTU(UInt16(mtu)) >= UInt16(mtu))
            let characteristic = try #require(try await att.characteristics().first { $0.uuid == Bumble.longValueUUID })
            let value = try await att.readLong(characteristic.handle)
            try await connection.disconnect()
            return value
        }
        snoop.finish()
        #expect(value == (0..<512).map { UInt8($0 % 256) })
        let packets = LinkBench.receivedACL(capture.value)
        #expect(packets.allSatisfy { $0.length <= 251 }, "no packet beyond the link's 251 bytes")
        #expect(packets.contains { $0.length == 251 }, "full 251-byte packets, not 27-byte fragments")
        if mtu > 247 {
            #expect(packets.contains { $0.boundary == 0x01 }, "a PDU above 251 bytes arrives in continuation fragments")
        }
    }

    @Test(arguments: [false, true])
    func activeScanMergesTheScanResponseIntoTheAdvertisement(legacyCommands: Bool) async throws {
        let advertisement = try await Bumble.withHost(on: LinkBench.transport, legacyCommands: legacyCommands) { host in
            var found: Advertisement?
            for await advertisement in try await host.scan(ScanOptions(active: true))
            where advertisement.address == LinkBench.peer && advertisement.isScanResponse {
                found = advertisement
                break
            }
            await host.stopScanning()
            return try #require(found)
        }
        let advertising = try AdvertisingData(validating: advertisement.advertisingData)
        #expect(advertising.localName == nil, "the name is only in the scan response")
        #expect(advertising.serviceUUIDs == [Bumble.longServiceUUID])
        #expect(advertisement.data.localName == LinkBench.name)
        #expect(advertisement.data.manufacturerData == ManufacturerData(companyID: 0xFFFF, data: Array("HRLD".utf8)))
        #expect(advertisement.data.serviceUUIDs == [Bumble.longServiceUUID])
        #expect(advertisement.isConnectable)
    }

    @Test(arguments: [false, true])
    func scanGetsTheReportsOfTheCommandsItUsed(legacyCommands: Bool) async throws {
        let capture = Locked<[UInt8]>([])
        let snoop = BTSnoopWriter(sink: { bytes in capture.withLock { $0 += bytes } }, microsecondsSinceUnixEpoch: { 0 })
        try await Bumble.withHost(on: LinkBench.transport, snoop: snoop, legacyCommands: legacyCommands) { host in
            for await advertisement in try await host.scan() where advertisement.address == LinkBench.peer && advertisement.isScanResponse {
                break
            }
            await host.stopScanning()
        }
        snoop.finish()
        let reports = Set(LinkBench.leSubevents(capture.value).filter { $0 == 0x02 || $0 == 0x0D })
        // LE Advertising Report (0x02) for LE Set Scan Enable, LE Extended Advertising Report (0x0D)
        // for LE Set Extended Scan Enable.
        #expect(reports == [legacyCommands ? 0x02 : 0x0D])
    }
}
