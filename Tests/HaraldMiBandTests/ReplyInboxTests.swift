import Harald
@testable import HaraldMiBand
import HaraldMiBandSimulation
import HaraldSimulator
import Testing

@Suite("Mi Band kit: overlapping reads of one reply inbox take turns")
struct ReplyInboxTests {
    @Test func twoOverlappingReadsOfOneInboxBothGetAValueInOrder() async throws {
        // The band notifies its steps once a second, growing by 2.
        let steps = try await BandWorld().run { band in
            let subscription = try await band.stepUpdates()
            let inbox = ReplyInbox(subscription, on: band.connection)
            let clock = band.clock
            return try await withThrowingTaskGroup(of: UInt32.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await inbox.next(within: .seconds(5), clock: clock, operation: "steps").steps }
                }
                var steps: [UInt32] = []
                for try await value in group { steps.append(value) }
                return steps.sorted()
            }
        }
        #expect(steps.count == 2 && steps[1] == steps[0] + 2)
    }
}
