import Harald
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator
import Testing

/// The simulated camera's packets as a raw client sees them: the framing a real camera uses.
@Suite("Simulated camera packets on the wire")
struct SimulatedCameraPacketTests {
    /// Writes `request` (one packet) to `channel` and collects the notifications of `response`
    /// until a whole message has arrived.
    static func packets(writing request: [UInt8], to channel: GoProCharacteristic, answer response: GoProCharacteristic) async throws -> [[UInt8]] {
        let simulation = Simulation()
        let device = VirtualPeripheral.actionCamera(bootTime: .zero)
        let simulator = try Simulator(clock: simulation.clock, devices: [device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let service = GoProCharacteristic.controlAndQueryService
        return try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let updates = try await connection.subscribe(
                Characteristic<[UInt8], Notify>(response.uuid, service: service), buffering: .oldest(64))
            try await connection.write(request, to: Characteristic<[UInt8], Harald.Write>(channel.uuid, service: service))
            var assembler = GoProMessageAssembler()
            var packets: [[UInt8]] = []
            for try await packet in updates {
                packets.append(packet)
                if try assembler.append(packet) != nil { break }
            }
            await connection.disconnect()
            return packets
        }
    }

    @Test func aShortAnswerIsOnePacketWithAGeneralHeader() async throws {
        let packets = try await Self.packets(writing: [0x03, 0x01, 0x01, 0x01], to: .command, answer: .commandResponse)
        #expect(packets == [[0x02, 0x01, 0x00]])
    }

    @Test func hardwareInfoComesInFivePacketsLikeTheTutorialsKotlinLog() async throws {
        // A 91-byte answer (10-character SSID), as in the Open GoPro tutorial's Kotlin log.
        let packets = try await Self.packets(writing: [0x01, 0x3C], to: .command, answer: .commandResponse)
        #expect(packets.count == 5)
        #expect(packets.allSatisfy { $0.count <= 20 })
        #expect(packets.first.map { Array($0.prefix(4)) } == [0x20, 0x5B, 0x3C, 0x00])
        #expect(packets.dropFirst().map { $0[0] } == [0x80, 0x81, 0x82, 0x83])
    }

    @Test func allStatusesComeInTwentyPacketsWhoseCounterWraps() async throws {
        let packets = try await Self.packets(writing: [0x01, 0x13], to: .query, answer: .queryResponse)
        #expect(packets.count == 20)
        #expect(packets.first.map { Array($0.prefix(4)) } == [0x21, 0x72, 0x13, 0x00])
        #expect(packets.dropFirst().map { $0[0] } == (0..<19).map { 0x80 | UInt8($0 & 0x0F) })
    }

    @Test func aRequestSplitAcrossPacketsIsReassembledByTheCamera() async throws {
        // "Get statuses 10 and 70" sent as a General header announcing 3 bytes, then a continuation.
        let simulation = Simulation()
        let device = VirtualPeripheral.actionCamera(bootTime: .zero)
        let simulator = try Simulator(clock: simulation.clock, devices: [device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let service = GoProCharacteristic.controlAndQueryService
        let answer = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let updates = try await connection.subscribe(Characteristic<[UInt8], Notify>(GoProCharacteristic.queryResponse.uuid, service: service))
            let query = Characteristic<[UInt8], Harald.Write>(GoProCharacteristic.query.uuid, service: service)
            try await connection.write([0x03, 0x13, 10], to: query)
            try await connection.write([0x80, 70], to: query)
            var iterator = updates.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(answer == [0x08, 0x13, 0x00, 10, 1, 0, 70, 1, 53])
    }
}
