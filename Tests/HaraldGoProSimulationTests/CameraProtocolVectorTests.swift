import HaraldATT
import HaraldCodec
import HaraldCore
@testable import HaraldGoProSimulation
import HaraldSimulator
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
    func aSinglePacketRequestGetsTheDocumentedAnswer(_ vector: Vector) throws {
        let answer = try CameraWire.run { wire in
            try await wire.exchange(bytes(vector.request), on: vector.channel, answer: vector.response)
        }
        #expect(answer == bytes(vector.answer))
    }

    @Test func aRegisteredSettingIsPushedWhenItChanges() throws {
        let (registered, acknowledged, push) = try CameraWire.run { wire in
            let registered = try await wire.exchange(bytes("02 52 02"), on: GP.query, answer: GP.queryResponse)
            let acknowledged = try await wire.exchange(bytes("03 02 01 04"), on: GP.settings, answer: GP.settingsResponse)
            return (registered, acknowledged, try await wire.packets(1, from: GP.queryResponse).first)
        }
        #expect(registered == bytes("05 52 00 02 01 09"))
        #expect(acknowledged == bytes("02 02 00"))
        #expect(push == bytes("05 92 00 02 01 04"))
    }

    @Test func hardwareInfoOfTheTutorialsCameraIsTheTutorialsCapture() throws {
        // A.6: a HERO12 Black whose AP is "HERO12 Blackdebug": 98 bytes in 6 packets.
        let identity = CameraIdentity(
            modelNumber: 62, modelName: "HERO12 Black", firmware: "H23.01.01.99.56", serial: "C3501324500702",
            accessPointSSID: "HERO12 Blackdebug", accessPointMAC: "2674f7f66104")
        let camera = VirtualPeripheral.actionCamera(
            identity: identity, address: BluetoothAddress("D4:D9:19:00:00:07", kind: .random)!, name: "GoPro 0702", rssi: -60,
            pairing: .reject, bootTime: .zero, faults: [])
        let packets = try CameraWire.run(camera) { wire in
            try await wire.write(bytes("01 3C"), to: GP.command)
            return try await wire.packets(6, from: GP.commandResponse)
        }
        #expect(packets == [
            "20 62 3c 00 04 00 00 00 3e 0c 48 45 52 4f 31 32 20 42 6c 61",
            "80 63 6b 04 30 78 30 35 0f 48 32 33 2e 30 31 2e 30 31 2e 39",
            "81 39 2e 35 36 0e 43 33 35 30 31 33 32 34 35 30 30 37 30 32",
            "82 11 48 45 52 4f 31 32 20 42 6c 61 63 6b 64 65 62 75 67 0c",
            "83 32 36 37 34 66 37 66 36 36 31 30 34 01 00 01 01 01 00 02",
            "84 5b 5d 01 01",
        ].map(bytes))
    }

    @Test func allStatusesOfTheSDKsCameraAreTheSDKsCapture() throws {
        // A.7: 370 bytes in 20 packets whose counter wraps; status 30 is the AP SSID.
        let identity = CameraIdentity(accessPointSSID: "GP24500456")
        let camera = VirtualPeripheral.actionCamera(
            identity: identity, address: BluetoothAddress("D4:D9:19:00:04:56", kind: .random)!, name: "GoPro 0456", rssi: -60,
            pairing: .reject, bootTime: .zero, faults: [])
        let packets = try CameraWire.run(camera) { wire in
            try await wire.write(bytes("01 13"), to: GP.query)
            return try await wire.packets(20, from: GP.queryResponse)
        }
        #expect(packets == [
            "21 72 13 00 01 01 01 02 01 04 03 01 00 04 01 ff 06 01 00 08",
            "80 01 00 09 01 00 0a 01 00 0b 01 00 0d 04 00 00 00 00 0e 04",
            "81 00 00 00 00 11 01 01 13 01 03 14 01 01 15 04 00 00 3e a4",
            "82 16 01 00 17 01 00 18 01 00 1a 01 00 1b 01 00 1c 01 52 1d",
            "83 00 1e 0a 47 50 32 34 35 30 30 34 35 36 1f 01 00 20 01 01",
            "84 21 01 00 22 04 00 00 08 73 23 04 00 00 0f d6 24 04 00 00",
            "85 00 40 25 04 00 00 00 35 26 04 00 00 00 40 27 04 00 00 00",
            "86 35 28 12 25 31 42 25 30 34 25 30 36 25 30 37 25 33 31 25",
            "87 30 44 29 01 00 2a 01 00 2d 01 00 31 04 00 00 00 00 36 08",
            "88 00 00 00 00 01 95 82 60 37 01 01 38 01 01 39 04 00 6e 2f",
            "89 81 3a 01 00 3b 04 00 00 00 00 3c 04 00 00 01 f4 3d 01 02",
            "8a 3e 04 00 00 00 00 3f 01 00 40 04 00 00 04 39 41 01 00 42",
            "8b 01 64 43 01 64 44 01 00 45 01 01 46 01 35 4a 01 00 4b 01",
            "8c 00 4c 01 01 4d 01 01 4e 01 00 4f 01 00 51 01 01 52 01 01",
            "8d 53 01 01 55 01 00 56 01 00 58 01 00 59 01 0c 5a 01 01 5b",
            "8e 01 00 5d 04 00 00 00 02 5e 04 00 01 00 00 5f 04 00 02 00",
            "8f 00 60 04 00 00 03 e8 61 04 00 00 00 02 62 04 01 00 00 02",
            "80 63 04 00 00 05 47 64 04 00 00 00 00 65 01 00 66 01 00 67",
            "81 01 00 68 01 01 69 01 00 6a 01 00 6b 04 ff ff ff ff 6c 01",
            "82 00 6d 01 00 6e 01 00 71 01 00",
        ].map(bytes))
    }

    @Test func theDefaultCamerasHardwareInfoIsFivePacketsLikeTheTutorialsKotlinLog() throws {
        // A.6's Kotlin log: 91 bytes (a 10-character SSID), the last packet `83 …`.
        let packets = try CameraWire.run { wire in
            try await wire.write(bytes("01 3C"), to: GP.command)
            return try await wire.packets(5, from: GP.commandResponse)
        }
        #expect(packets.first.map { Array($0.prefix(4)) } == bytes("20 5B 3C 00"))
        #expect(packets.last.map { Array($0.suffix(11)) } == bytes("01 00 01 01 01 00 02 5B 5D 01 01"))
        #expect(packets.dropFirst().map { $0[0] } == [0x80, 0x81, 0x82, 0x83])
    }

    @Test func hardwareInfoIsAnErrorWhileTheCameraBoots() throws {
        let camera = VirtualPeripheral.actionCamera(bootTime: .seconds(3600))
        let answer = try CameraWire.run(camera) { wire in
            try await wire.exchange(bytes("01 3C"), on: GP.command, answer: GP.commandResponse)
        }
        #expect(answer == bytes("02 3C 01"))
    }

    @Test func aBadShutterParameterIsAnInvalidParameterAndAnUnknownCommandAnError() throws {
        let (shutter, unknown) = try CameraWire.run { wire in
            (
                try await wire.exchange(bytes("03 01 01 07"), on: GP.command, answer: GP.commandResponse),
                try await wire.exchange(bytes("01 77"), on: GP.command, answer: GP.commandResponse)
            )
        }
        #expect(shutter == bytes("02 01 02"))
        #expect(unknown == bytes("02 77 01"))
    }
}
