import Harald
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator
import Testing

@Suite("GoProCamera requests against the simulated camera")
struct CameraRequestTests {
    @Test func hardwareInfoIsReassembledFromSeveralPacketsAndDecoded() async throws {
        let info = try await withSimulatedCamera { camera, _ in try await camera.hardwareInfo() }
        #expect(info.modelNumber == 62)
        #expect(info.modelName == "HERO12 Black")
        #expect(info.serialNumber == "C3501324500042")
        #expect(info.accessPointSSID == "GP24500042")
    }

    @Test func openGoProVersionIsTwoPointZero() async throws {
        let version = try await withSimulatedCamera { camera, _ in try await camera.openGoProVersion() }
        #expect(version == GoProOpenGoProVersion(major: 2, minor: 0))
    }

    @Test func getAllStatusesReturnsEveryStatusOfTheMultiPacketResponse() async throws {
        let (values, messages) = try await withSimulatedCamera { camera, _ in
            let values = try await camera.statuses()
            return (values, await camera.statistics.messages)
        }
        #expect(values.count == 88)
        #expect(values.integer(.internalBatteryPercentage) == 53)
        #expect(values.string(.accessPointSSID) == "GP24500042")
        #expect(values.bool(.encoding) == false)
        #expect(values[GoProStatusID(29)]?.isEmpty == true)
        #expect(messages == 1)
    }

    @Test func statusesAskedByIDComeBackInTheOrderAsked() async throws {
        let values = try await withSimulatedCamera { camera, _ in try await camera.statuses([.encoding, .busy, .remainingVideoTime]) }
        #expect(values.map(\.id) == [10, 8, 35])
        #expect(values.integer(.remainingVideoTime) == 4054)
    }

    @Test func aSettingChangeIsReadBack() async throws {
        let value = try await withSimulatedCamera { camera, _ in
            try await camera.set(.videoResolution, to: 4)
            return try await camera.settings([.videoResolution]).integer(.videoResolution)
        }
        #expect(value == 4)
    }

    @Test func aValueTheCameraDoesNotAllowIsRejectedAsInvalidParameter() async throws {
        let outcome = try await withSimulatedCamera { camera, _ in
            do {
                try await camera.set(.videoResolution, to: 0xEE)
                return GoProError?.none
            } catch let error as GoProError {
                return error
            }
        }
        #expect(outcome == .rejected(request: "set videoResolution", status: .invalidParameter))
    }

    @Test func anUnknownCommandIsRejectedWithStatusError() async throws {
        let outcome = try await withSimulatedCamera { camera, _ in
            do {
                try await camera.send(GoProCommand(GoProCommandID(0x77)))
                return GoProStatusCode?.none
            } catch let error as GoProError {
                guard case let .rejected(_, status) = error else { return nil }
                return status
            }
        }
        #expect(outcome == .error)
    }

    @Test func theKeepAliveSetsSetting91To0x42OnGP0074AndIsAnsweredOnGP0075() async throws {
        let (written, messages) = try await withSimulatedCamera { camera, simulator in
            try await camera.sendKeepAlive()
            return (await lastPacketWritten(to: .settings, in: simulator), await camera.statistics.messages)
        }
        // One packet: Extended 13-bit header for 3 bytes, then setting 0x5B, length 1, value 0x42.
        #expect(written == [0x20, 0x03, 0x5B, 0x01, 0x42])
        #expect(messages == 1)
    }

    @Test func settingCapabilitiesListEveryAllowedValue() async throws {
        let values = try await withSimulatedCamera { camera, _ in try await camera.settingCapabilities([.framesPerSecond]) }
        #expect(values.map(\.id).allSatisfy { $0 == 3 })
        #expect(values.map { $0.value.first ?? 0xFF } == [0, 1, 2, 5, 6, 8, 9, 10, 13])
    }

    @Test func requestsOnOneChannelRunOneAtATimeAndEachGetsItsOwnAnswer() async throws {
        // Three requests at once, on first use: the camera starts once, the answers do not mix.
        let (first, second, third, statistics) = try await withSimulatedCamera { camera, _ in
            async let first = camera.statuses([.encoding])
            async let second = camera.statuses([.internalBatteryPercentage])
            async let third = camera.settings([.videoLens])
            let answers = try await (first, second, third)
            return (answers.0, answers.1, answers.2, await camera.statistics)
        }
        #expect(statistics.messages == 3 && statistics.malformedPackets == 0 && statistics.unexpectedMessages == 0)
        #expect(first.map(\.id) == [10])
        #expect(second.map(\.id) == [70])
        #expect(third.map(\.id) == [121])
    }

    @Test func aLongRequestIsSentInSeveralPackets() async throws {
        // Ask for 40 statuses: a 41-byte query, three packets; the camera reassembles it.
        let ids = (1...40).map { GoProStatusID(UInt8($0)) }
        let values = try await withSimulatedCamera { camera, _ in try await camera.statuses(ids) }
        #expect(values.map(\.id) == ids.map(\.rawValue))
    }

    @Test func aCameraSizedToTheMTUSendsALongRequestInOnePacket() async throws {
        let simulation = Simulation()
        let device = VirtualPeripheral.actionCamera(bootTime: .zero)
        let simulator = try Simulator(clock: simulation.clock, devices: [device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let ids = (1...40).map { GoProStatusID(UInt8($0)) }
        let (mtu, packetSize, written, values) = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let camera = await GoProCamera.sizedToMTU(connection: connection)
            let values = try await camera.statuses(ids)
            let written = await lastPacketWritten(to: .query, in: simulator)
            let result = (await connection.mtu(), camera.packetSize, written, values)
            await connection.disconnect()
            return result
        }
        #expect(mtu > 23)
        #expect(packetSize == mtu - 3)
        // The 41-byte query (0x13 and 40 IDs) behind its Extended 13-bit header, all in one write.
        #expect(written == [0x20, 41, 0x13] + ids.map(\.rawValue))
        #expect(values.map(\.id) == ids.map(\.rawValue))
    }

    @Test func aCameraKeepsTwentyBytePacketsUnlessAskedToUseTheMTU() async throws {
        let (packetSize, written) = try await withSimulatedCamera { camera, simulator in
            _ = try await camera.statuses((1...40).map { GoProStatusID(UInt8($0)) })
            return (camera.packetSize, await lastPacketWritten(to: .query, in: simulator))
        }
        #expect(packetSize == 20)
        // The last of three packets (18 + 19 + 4 bytes): continuation #1 with the IDs 37 to 40.
        #expect(written == [0x81, 37, 38, 39, 40])
    }
}
