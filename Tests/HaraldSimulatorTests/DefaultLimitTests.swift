import Harald
import HaraldCore
@testable import HaraldGATTLink
@testable import HaraldSimulator
import Testing

/// The limits RELIABILITY.md lists for the GATT backend and the simulator, each at the default a
/// user gets without configuring anything (scripts/check-limits ties the figures here to the
/// document).
@Suite("GATT backend and simulator: documented limits at their defaults")
struct BackendDefaultLimitTests {
    @Test func staleRangesCollapseBeyond32() {
        // StaleHandleRangesTests reaches this default.
        #expect(StaleHandleRanges.limit == 32)
    }

    @Test func aServiceChangeStreamKeepsTheNewest16() {
        // StaleHandleRangesTests.aServiceChangeStreamNobodyReadsKeepsTheNewestChanges reaches it.
        #expect(GATTConnection.changeBufferLimit == 16)
    }

    @Test func aServedPeripheralsEventsStreamHoldsTheNewest256Events() {
        #expect(GATTServing.eventBufferLimit == 256)
    }

    @Test func pairingHoldsTheOldest64PDUsForTheInitiator() {
        #expect(BondingLinkSecurity.pairingPDUBufferLimit == 64)
    }

    @Test func aLinkWithTheDefaultParametersBuffers8PacketsAndTheSenderWaitsForTheNinth() async throws {
        #expect(LinkParameters().transmitBufferPackets == 8)
        let simulation = Simulation()
        let clock = simulation.clock
        let readiness = try await simulation.run {
            let link = SimulatedLink(clock: clock)
            var ready: [Bool] = []
            // One-byte PDUs: one 27-byte packet each.
            for n: UInt8 in 0..<8 {
                ready.append(await link.canSend(length: 1, from: .central))
                try await link.send([n], from: .central)
            }
            ready.append(await link.canSend(length: 1, from: .central))
            let before = clock.now
            try await link.send([8], from: .central)  // waits for a packet to go out
            ready.append(clock.now > before)
            return ready
        }
        #expect(readiness == Array(repeating: true, count: 8) + [false, true])
    }
}
