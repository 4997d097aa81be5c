import Harald
@testable import HaraldSimulator
import Testing

@Suite("AES-128 block encryption")
struct AES128Tests {
    @Test func encryptsTheFIPS197AppendixC1Vector() throws {
        let cipher = AES128(key: try [UInt8](hex: "000102030405060708090a0b0c0d0e0f"))
        let expected = try [UInt8](hex: "69c4e0d86a7b0430d8cdb78070b4c55a")
        #expect(cipher.encrypt(block: try [UInt8](hex: "00112233445566778899aabbccddeeff")) == expected)
    }

    @Test func encryptsTheMiBandHandshakeVector() throws {
        // protocols.md B.2: the default key and the challenge 00 01 … 0f.
        let cipher = AES128(key: VirtualPeripheral.MiBand.defaultKey)
        #expect(cipher.encrypt(block: Array(0...15)) == (try [UInt8](hex: "f5003494346bffac69990bf7f317e5db")))
    }
}

@Suite("Virtual devices through the public API")
struct VirtualDeviceTests {
    @Test func theBandAuthenticatesTheRightAnswerAndRefusesAWrongOne() throws {
        let simulation = Simulation()
        let band = VirtualPeripheral.fitnessBand()
        let simulator = try Simulator(clock: simulation.clock, devices: [band])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (good, bad) = try simulation.run {
            let connection = try await central.connect(to: band.identifier, timeout: .seconds(5))
            let replies = try await connection.subscribe(VirtualPeripheral.MiBand.auth, buffering: .oldest(8))
            var iterator = replies.makeAsyncIterator()
            func attempt(_ answer: ([UInt8]) -> [UInt8]) async throws -> [UInt8] {
                try await connection.write([0x02, 0x08], to: VirtualPeripheral.MiBand.auth)
                let challenge = try await iterator.next() ?? []
                #expect(challenge.prefix(3) == [0x10, 0x02, 0x01] && challenge.count == 19)
                try await connection.write([0x03, 0x08] + answer(Array(challenge.dropFirst(3))), to: VirtualPeripheral.MiBand.auth)
                return try await iterator.next() ?? []
            }
            let good = try await attempt { AES128(key: VirtualPeripheral.MiBand.defaultKey).encrypt(block: $0) }
            let bad = try await attempt { AES128(key: Array(repeating: 0, count: 16)).encrypt(block: $0) }
            return (good, bad)
        }
        #expect(good == [0x10, 0x03, 0x01])
        #expect(bad == [0x10, 0x03, 0x04])
    }

    @Test func theBandsRealtimeStepsGrowWhileConnected() throws {
        let simulation = Simulation()
        let band = VirtualPeripheral.fitnessBand()
        let simulator = try Simulator(clock: simulation.clock, devices: [band])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let steps = try simulation.run {
            let connection = try await central.connect(to: band.identifier, timeout: .seconds(5))
            let updates = try await connection.subscribe(VirtualPeripheral.MiBand.realtimeSteps)
            var seen: [UInt32] = []
            for try await value in updates {
                seen.append(value.steps)
                if seen.count == 3 { break }
            }
            return seen
        }
        #expect(steps.count == 3)
        #expect(steps == steps.sorted() && Set(steps).count == 3)
    }
}
