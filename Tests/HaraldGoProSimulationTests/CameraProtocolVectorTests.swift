import HaraldATT
import HaraldCodec
import HaraldCore
@testable import HaraldGoProSimulation
import HaraldSimulator
import HaraldTestSupport
import Testing

/// The simulated camera answers the Open GoPro requests of protocols.md with the bytes the docs,
/// tutorials and SDK tests show.
@Suite("The simulated camera against the Open GoPro vectors (protocols.md A.5–A.7)")
struct CameraProtocolVectorTests {
    typealias GP = VirtualPeripheral.OpenGoPro

    struct Vector: Sendable, CustomTestStringConvertible {
        let request: String
        let channel: BluetoothUUID
        let answer: String
        let response: BluetoothUUID
        var testDescription: String { "\(request) → \(answer)" }
    }

    static let singlePacketVectors = [
        Vector(request: "03 01 01 01", channel: GP.command, answer: "02 01 00", response: GP.commandResponse),
        Vector(request: "03 01 01 00", channel: GP.command, answer: "02 01 00", response: GP.commandResponse),
        Vector(request: "04 3E 02 03 E8", channel: GP.command, answer: "02 3E 00", response: GP.commandResponse),
        Vector(request: "01 51", channel: GP.command, answer: "06 51 00 01 02 01 00", response: GP.commandResponse),
        Vector(request: "01 05", channel: GP.command, answer: "02 05 00", response: GP.commandResponse),
        Vector(request: "03 02 01 09", channel: GP.settings, answer: "02 02 00", response: GP.settingsResponse),
        Vector(request: "03 03 01 00", channel: GP.settings, answer: "02 03 00", response: GP.settingsResponse),
        Vector(request: "03 5B 01 42", channel: GP.settings, answer: "02 5B 00", response: GP.settingsResponse),
        Vector(request: "02 12 02", channel: GP.query, answer: "05 12 00 02 01 09", response: GP.queryResponse),
        Vector(request: "04 12 02 03 79", channel: GP.query, answer: "0B 12 00 02 01 09 03 01 00 79 01 00", response: GP.queryResponse),
        Vector(request: "02 52 02", channel: GP.query, answer: "05 52 00 02 01 09", response: GP.queryResponse),
    ]

    @Test(arguments: singlePacketVectors)
    func aSinglePacketRequestGetsTheDocumentedAnswer(_ vector: Vector) async throws {
        let answer = try await CameraWire.run { wire in
            try await wire.exchange(bytes(vector.request), on: vector.channel, answer: vector.response)
        }
        #expect(answer == bytes(vector.answer))
    }

    @Test func aRegisteredSettingIsPushedWhenItChanges() async throws {
        let (registered, acknowledged, push) = try await CameraWire.run { wire in
            let registered = try await wire.exchange(bytes("02 52 02"), on: GP.query, answer: GP.queryResponse)
            let acknowledged = try await wire.exchange(bytes("03 02 01 04"), on: GP.settings, answer: GP.settingsResponse)
            return (registered, acknowledged, try await wire.packets(1, from: GP.queryResponse).first)
        }
        #expect(registered == bytes("05 52 00 02 01 09"))
        #expect(acknowledged == bytes("02 02 00"))
        #expect(push == bytes("05 92 00 02 01 04"))
    }

    @Test func hardwareInfoOfTheTutorialsCameraIsTheTutorialsCapture() async throws {
        // A.6: a HERO12 Black whose AP is "HERO12 Blackdebug": 98 bytes in 6 packets.
        let identity = CameraIdentity(
            modelNumber: 62, modelName: "HERO12 Black", firmware: "H23.01.01.99.56", serial: "C3501324500702",
            accessPointSSID: "HERO12 Blackdebug", accessPointMAC: "2674f7f66104")
        let camera = VirtualPeripheral.actionCamera(
            identity: identity, address: BluetoothAddress("D4:D9:19:00:00:07", kind: .random)!, name: "GoPro 0702", rssi: -60,
            pairing: .reject, bootTime: .zero, faults: [])
        let packets = try await CameraWire.run(camera) { wire in
            try await wire.write(bytes("01 3C"), to: GP.command)
            return try await wire.packets(6, from: GP.commandResponse)
        }
        #expect(
            packets
                == [
                    "20 62 3c 00 04 00 00 00 3e 0c 48 45 52 4f 31 32 20 42 6c 61",
                    "80 63 6b 04 30 78 30 35 0f 48 32 33 2e 30 31 2e 30 31 2e 39",
                    "81 39 2e 35 36 0e 43 33 35 30 31 33 32 34 35 30 30 37 30 32",
                    "82 11 48 45 52 4f 31 32 20 42 6c 61 63 6b 64 65 62 75 67 0c",
                    "83 32 36 37 34 66 37 66 36 36 31 30 34 01 00 01 01 01 00 02",
                    "84 5b 5d 01 01",
                ].map(bytes))
    }

    @Test func allStatusesOfTheSDKsCameraAreTheSDKsCapture() async throws {
        // A.7: 370 bytes in 20 packets whose counter wraps; status 30 is the AP SSID.
        let identity = CameraIdentity(accessPointSSID: "GP24500456")
        let camera = VirtualPeripheral.actionCamera(
            identity: identity, address: BluetoothAddress("D4:D9:19:00:04:56", kind: .random)!, name: "GoPro 0456", rssi: -60,
            pairing: .reject, bootTime: .zero, faults: [])
        let packets = try await CameraWire.run(camera) { wire in
            try await wire.write(bytes("01 13"), to: GP.query)
            return try await wire.packets(20, from: GP.queryResponse)
        }
        #expect(packets == AllStatusesStream.packets)  // protocols.md A.7
    }

    @Test func theDefaultCamerasHardwareInfoIsFivePacketsLikeTheTutorialsKotlinLog() async throws {
        // A.6's Kotlin log: 91 bytes (a 10-character SSID), the last packet `83 …`.
        let packets = try await CameraWire.run { wire in
            try await wire.write(bytes("01 3C"), to: GP.command)
            return try await wire.packets(5, from: GP.commandResponse)
        }
        #expect(packets.first.map { Array($0.prefix(4)) } == bytes("20 5B 3C 00"))
        #expect(packets.last.map { Array($0.suffix(11)) } == bytes("01 00 01 01 01 00 02 5B 5D 01 01"))
        #expect(packets.dropFirst().map { $0[0] } == [0x80, 0x81, 0x82, 0x83])
    }

    @Test func hardwareInfoIsAnErrorWhileTheCameraBoots() async throws {
        let camera = VirtualPeripheral.actionCamera(bootTime: .seconds(3600))
        let answer = try await CameraWire.run(camera) { wire in
            try await wire.exchange(bytes("01 3C"), on: GP.command, answer: GP.commandResponse)
        }
        #expect(answer == bytes("02 3C 01"))
    }

    @Test func aBadShutterParameterIsAnInvalidParameterAndAnUnknownCommandAnError() async throws {
        let (shutter, unknown) = try await CameraWire.run { wire in
            (
                try await wire.exchange(bytes("03 01 01 07"), on: GP.command, answer: GP.commandResponse),
                try await wire.exchange(bytes("01 77"), on: GP.command, answer: GP.commandResponse)
            )
        }
        #expect(shutter == bytes("02 01 02"))
        #expect(unknown == bytes("02 77 01"))
    }
}
