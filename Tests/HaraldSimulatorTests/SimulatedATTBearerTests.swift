import HaraldATT
import HaraldSimulator
import Testing

@Suite("ATT bearer over a simulated link")
struct SimulatedATTBearerTests {
    /// Closes one side's bearer with `reason` and returns the close event each side receives.
    private func closeEvents(closing side: LinkSide, with reason: ATTCloseReason) async throws -> (ATTCloseReason?, ATTCloseReason?) {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            let peripheral = SimulatedATTBearer(link: link, side: .peripheral)
            await (side == .central ? central : peripheral).close(reason)
            func closed(_ bearer: SimulatedATTBearer) async -> ATTCloseReason? {
                for await event in bearer.events { if case .closed(let reason) = event { return reason } }
                return nil
            }
            return (await closed(central), await closed(peripheral))
        }
    }

    @Test func aLocalCloseReadsAsClosedByPeerOnTheOtherSide() async throws {
        let (central, peripheral) = try await closeEvents(closing: .central, with: .closedLocally)
        #expect(central == .closedLocally)
        #expect(peripheral == .closedByPeer)
    }

    @Test func aLostLinkReadsAsAConnectionTimeoutOnBothSides() async throws {
        let (central, peripheral) = try await closeEvents(closing: .peripheral, with: .linkLost(code: nil))
        #expect(central == .linkLost(code: 0x08))
        #expect(peripheral == .linkLost(code: nil))
    }

    @Test func aTransactionTimeoutCloseIsReportedToThePeerAsItsClosing() async throws {
        let (central, peripheral) = try await closeEvents(closing: .central, with: .transactionTimeout)
        #expect(central == .transactionTimeout)
        #expect(peripheral == .closedByPeer)
    }

    @Test func eventsEndAfterTheCloseEventAndSendsThenFail() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (events, sendError) = try await simulation.run { () -> ([ATTBearerEvent], ATTBearerError?) in
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            let peripheral = SimulatedATTBearer(link: link, side: .peripheral)
            try await peripheral.send([0x1B, 0x03, 0x00, 0x2A])
            // Let the notification arrive before the link goes.
            try await clock.sleep(for: .milliseconds(50))
            await peripheral.close(.closedLocally)
            var events: [ATTBearerEvent] = []
            for await event in central.events { events.append(event) }
            var sendError: ATTBearerError?
            do { try await central.send([0x0A, 0x03, 0x00]) } catch { sendError = error as? ATTBearerError }
            return (events, sendError)
        }
        #expect(events == [.received([0x1B, 0x03, 0x00, 0x2A]), .closed(.closedByPeer)])
        #expect(sendError == .closed)
    }

    @Test func aPDULongerThanTheLinksMTUIsRefused() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let error = try await simulation.run { () -> ATTBearerError? in
            let link = SimulatedLink(parameters: LinkParameters(maximumATTMTU: 23), clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            do { try await central.send(Array(repeating: 0, count: 24)) } catch { return error as? ATTBearerError }
            return nil
        }
        #expect(error == .pduTooLong(size: 24, limit: 23))
    }

    @Test func anInboxGetsEachPDUAtItsDeliveryInstantThenTheCloseEvent() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let parameters = LinkParameters.typical
        let (first, arrival, rest) = try await simulation.run {
            let link = SimulatedLink(parameters: parameters, clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            let inbox = ATTEventInbox()
            central.deliverEvents(to: inbox)
            try await link.send([0x1B, 0x03, 0x00, 0x2A], from: .peripheral)
            let first = await inbox.next()
            let arrival = clock.now.sinceStart
            await link.close(reason: .terminated(by: .peripheral))
            return (first, arrival, [await inbox.next(), await inbox.next()])
        }
        #expect(first == .received([0x1B, 0x03, 0x00, 0x2A]))
        #expect(arrival == parameters.exchangeTime)
        #expect(rest == [.closed(.closedByPeer), nil])
    }
}
