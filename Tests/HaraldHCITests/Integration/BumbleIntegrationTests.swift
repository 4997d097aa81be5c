#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HaraldCodec
import Testing

@testable import HaraldHCI

/// The host stack against a real BLE stack: Bumble's linked virtual controllers and Bumble GATT
/// peers, started by `scripts/integration`. Without HARALD_BUMBLE_TRANSPORT these are skipped.
@Suite(
    "Bumble integration (scripts/integration)", .serialized,
    .enabled(if: Bumble.isConfigured, "set HARALD_BUMBLE_TRANSPORT (run scripts/integration) to test against Bumble peers"))
struct BumbleIntegrationTests {
    @Test(arguments: [false, true])
    func scanSeesEachPeerWithItsNameAndServiceUUIDs(legacyCommands: Bool) async throws {
        let seen = try await Bumble.withHost(legacyCommands: legacyCommands) { host in
            var byName: [String: Advertisement] = [:]
            for await advertisement in try await host.scan() {
                if let name = advertisement.data.localName { byName[name] = advertisement }
                if ["Harald-HR", "GoPro 1234", "HaraldLV", "Harald-VX"].allSatisfy({ byName[$0] != nil }) { break }
            }
            await host.stopScanning()
            return byName
        }
        let heartRate = try #require(seen["Harald-HR"])
        #expect(heartRate.address == Bumble.heartRate)
        #expect(heartRate.isConnectable)
        #expect(heartRate.data.serviceUUIDs == ["180D", "180F", "180A"])
        let camera = try #require(seen["GoPro 1234"])
        #expect(camera.address == Bumble.camera)
        #expect(camera.data.serviceUUIDs == ["FEA6"])
        #expect(camera.data.manufacturerData?.companyID == 0x02F2)
        let long = try #require(seen["HaraldLV"])
        #expect(long.data.serviceUUIDs == [Bumble.longServiceUUID])
        #expect(seen["Harald-VX"]?.address == Bumble.victim)
    }

    @Test func connectExchangeMTUAndDiscoverServicesWithRawATT() async throws {
        try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.heartRate)
            let att = RawATT(connection)
            let serverMTU = try await att.exchangeMTU(247)
            #expect(serverMTU >= 247)
            #expect(connection.att.mtu == 247)
            let services = try await att.primaryServices()
            let uuids = services.map(\.uuid)
            for expected: BluetoothUUID in ["1800", "1801", "180D", "180F", "180A", "FFF0"] {
                #expect(uuids.contains(expected), "missing service \(expected) in \(uuids)")
            }
            #expect(try await connection.disconnect() != .success)
        }
    }

    @Test func heartRateNotificationsArriveAfterEnablingTheCCCD() async throws {
        try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.heartRate)
            let att = RawATT(connection)
            _ = try await att.exchangeMTU(247)
            let measurement = try #require(try await att.characteristics().first { $0.uuid == "2A37" })
            // Find Information right after the value: the CCCD (0x2902).
            let information = try await att.request([0x04] + RawATT.le16(measurement.handle + 1) + RawATT.le16(measurement.handle + 1))
            #expect(information == [0x05, 0x01] + RawATT.le16(measurement.handle + 1) + [0x02, 0x29])
            #expect(try await att.request([0x12] + RawATT.le16(measurement.handle + 1) + [0x01, 0x00]) == [0x13])
            for _ in 0..<3 {
                let notification = try await att.nextNotification()
                #expect(Array(notification.prefix(3)) == [0x1B] + RawATT.le16(measurement.handle))
                // flags (contact, RR, energy on every other value) + 8-bit heart rate + [energy] + RR
                #expect(notification.count == 7 || notification.count == 9)
            }
            try await connection.disconnect()
        }
    }

    @Test func longValueOf512BytesReadsAndWritesThroughFragmentedACL() async throws {
        try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.longValue)
            let att = RawATT(connection)
            _ = try await att.exchangeMTU(247)
            let characteristic = try #require(try await att.characteristics().first { $0.uuid == Bumble.longValueUUID })
            let original = try await att.readLong(characteristic.handle)
            #expect(original == (0..<512).map { UInt8($0 % 256) })
            let replacement = (0..<512).map { UInt8(255 - $0 % 256) }
            try await att.writeLong(characteristic.handle, replacement)
            #expect(try await att.readLong(characteristic.handle) == replacement)
            try await connection.disconnect()
        }
    }

    @Test func cameraAnswersACommandWithANotificationAtTheDefaultMTU() async throws {
        try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.camera)
            let att = RawATT(connection)  // no MTU exchange: 23, the camera's usual
            let characteristics = try await att.characteristics()
            let command = try #require(characteristics.first { $0.uuid == "B5F90072-AA8D-11E3-9046-0002A5D5C51B" })
            let response = try #require(characteristics.first { $0.uuid == "B5F90073-AA8D-11E3-9046-0002A5D5C51B" })
            #expect(try await att.request([0x12] + RawATT.le16(response.handle + 1) + [0x01, 0x00]) == [0x13])
            #expect(try await att.request([0x12] + RawATT.le16(command.handle) + [0x01, 0x05]) == [0x13])
            #expect(try await att.nextNotification() == [0x1B] + RawATT.le16(response.handle) + [0x02, 0x05, 0x00])
            try await connection.disconnect()
        }
    }

    @Test(arguments: [false, true])
    func centralDisconnectsThenReconnects(legacyCommands: Bool) async throws {
        try await Bumble.withHost(legacyCommands: legacyCommands) { host in
            let first = try await host.connect(to: Bumble.camera)
            let reason = try await first.disconnect()
            #expect(first.disconnectReason == reason)
            #expect(await host.openConnections.isEmpty)
            let second = try await host.connect(to: Bumble.camera)
            let att = RawATT(second)
            #expect(try await att.exchangeMTU(247) >= 247)
            try await second.disconnect()
        }
    }

    @Test func peerInitiatedDisconnectionEndsTheLinkWithTheRemoteReason() async throws {
        try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.heartRate)
            let att = RawATT(connection)
            let control = try #require(try await att.characteristics().first { $0.uuid == "FFF1" })
            _ = try await att.request([0x12] + RawATT.le16(control.handle) + [0x01])
            let reason = await connection.waitUntilDisconnected()
            #expect(reason == .remoteUserTerminatedConnection)
            await #expect(throws: HCIError.self) { try await connection.att.send([0x02, 0xF7, 0x00]) }
        }
    }

    @Test func peerThatVanishesMidOperationYieldsADisconnectNotAHang() async throws {
        let pid = try #require(Bumble.victimPID, "HARALD_BUMBLE_VICTIM_PID names the peer to kill")
        try await Bumble.withHost { host in
            let connection = try await host.connect(to: Bumble.victim)
            let att = RawATT(connection)
            _ = try await att.exchangeMTU(247)
            let measurement = try #require(try await att.characteristics().first { $0.uuid == "2A37" })
            #expect(try await att.request([0x12] + RawATT.le16(measurement.handle + 1) + [0x01, 0x00]) == [0x13])
            _ = try await att.nextNotification()
            #expect(kill(pid, SIGKILL) == 0)
            // Notifications stop and the stream ends once the link is reported gone.
            while (try? await att.nextNotification()) != nil {}
            #expect(await connection.waitUntilDisconnected() == .connectionTimeout)
        }
    }

    @Test func btsnoopCaptureOfARealSessionHasEveryPacketInBothDirections() async throws {
        // scripts/integration names a path it keeps (and reads with tshark when installed).
        let kept = ProcessInfo.processInfo.environment["HARALD_BUMBLE_BTSNOOP"]
        let path = kept ?? FileManager.default.temporaryDirectory.appendingPathComponent("harald-\(getpid()).btsnoop").path
        defer { if kept == nil { try? FileManager.default.removeItem(atPath: path) } }
        let snoop = try BTSnoopWriter(path: path)
        try await Bumble.withHost(snoop: snoop) { host in
            let connection = try await host.connect(to: Bumble.camera)
            _ = try await RawATT(connection).exchangeMTU(247)
            try await connection.disconnect()
        }
        snoop.finish()
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(file.prefix(16)) == BTSnoopWriter.fileHeader)
        var records = 0, received = 0
        var offset = 16
        while offset + 24 <= file.count {
            let length = file[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if file[offset + 11] & 1 == 1 { received += 1 }
            offset += 24 + length
            records += 1
        }
        #expect(offset == file.count)
        #expect(records > 20 && received > 10)
    }
}
