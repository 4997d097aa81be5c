@testable import HaraldSimulator
import Testing

@Suite("Simulated link timing, flow control and faults")
struct SimulatedLinkTests {
    @Test func aSmallPDUArrivesAtTheEndOfItsFirstPacketSlot() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let parameters = LinkParameters.typical
        let arrival = try await simulation.run {
            let link = SimulatedLink(parameters: parameters, clock: clock)
            try await link.send([0x1B, 0x0C, 0x00, 0x55], from: .peripheral)
            let event = await link.receive(on: .central)
            #expect(event == .pdu([0x1B, 0x0C, 0x00, 0x55]))
            return clock.now.sinceStart
        }
        #expect(arrival == parameters.exchangeTime)
    }

    @Test func aPDULargerThanOnePacketSpansConnectionEvents() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let parameters = LinkParameters(connectionInterval: .milliseconds(30), packetsPerEvent: 4, linkLayerPayload: 27)
        let (arrival, stats) = try await simulation.run {
            let link = SimulatedLink(parameters: parameters, clock: clock)
            // 247-byte ATT PDU + 4-byte L2CAP header = 251 bytes = 10 packets of 27 → 3 events.
            try await link.send(Array(repeating: 0xAB, count: 247), from: .central)
            _ = await link.receive(on: .peripheral)
            return (clock.now.sinceStart, await link.statistics)
        }
        #expect(stats.packetsSent[.central] == 10)
        #expect(stats.eventsWithData == 3)
        #expect(arrival == .milliseconds(60) + parameters.exchangeTime * 2)
    }

    @Test(arguments: [(LinkParameters.typical, 20), (LinkParameters.typical, 244), (LinkParameters.fast, 244)])
    func notificationStreamReachesAtLeast95PercentOfTheModelThroughput(parameters: LinkParameters, payload: Int) async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let count = 2000
        let (elapsed, stats) = try await simulation.run {
            let link = SimulatedLink(parameters: parameters, clock: clock)
            return await withTaskGroup(of: Duration?.self) { group in
                group.addTask {
                    let pdu: [UInt8] = [0x1B, 0x0C, 0x00] + Array(repeating: 0x42, count: payload)
                    for _ in 0..<count { try? await link.send(pdu, from: .peripheral) }
                    return nil
                }
                group.addTask {
                    for _ in 0..<count { _ = await link.receive(on: .central) }
                    return clock.now.sinceStart
                }
                var result: Duration?
                for await value in group { if let value { result = value } }
                return (result ?? .zero, await link.statistics)
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let achieved = Double(count * payload) / seconds
        let limit = parameters.throughputLimit(attPayload: payload)
        #expect(achieved >= 0.95 * limit, "achieved \(achieved) B/s of \(limit) B/s")
        // The model is never beaten: every packet used a slot of a real connection event.
        let packets = count * parameters.packetCount(sduLength: payload + 3)
        #expect(stats.packetsSent[.peripheral] == packets)
        #expect(stats.eventsWithData * parameters.effectivePacketsPerEvent >= packets)
    }

    @Test func aFullTransmitBufferMakesTheSenderWait() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let parameters = LinkParameters(transmitBufferPackets: 2)
        let readiness = try await simulation.run {
            let link = SimulatedLink(parameters: parameters, clock: clock)
            var ready: [Bool] = []
            ready.append(await link.canSend(length: 20, from: .central))
            try await link.send([1], from: .central)
            try await link.send([2], from: .central)
            ready.append(await link.canSend(length: 20, from: .central))
            try await link.send([3], from: .central)  // waits for the first packet to go out
            ready.append(clock.now.sinceStart > .zero)
            return ready
        }
        #expect(readiness == [true, false, true])
    }

    @Test func droppedPDUNeverArrivesAndIsCounted() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (first, stats) = try await simulation.run {
            let link = SimulatedLink(clock: clock)
            await link.inject(LinkFault(from: .central, pduNumber: 1, action: .drop))
            try await link.send([1], from: .central)
            try await link.send([2], from: .central)
            return (await link.receive(on: .peripheral), await link.statistics)
        }
        #expect(first == .pdu([2]))
        #expect(stats.pdusDropped == 1)
    }

    @Test func corruptedAndTruncatedPDUsArriveAltered() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let events = try await simulation.run {
            let link = SimulatedLink(clock: clock)
            await link.inject(LinkFault(from: .peripheral, pduNumber: 1, action: .corrupt(byteIndex: 0, xor: 0xFF)))
            await link.inject(LinkFault(from: .peripheral, pduNumber: 2, action: .truncate(toLength: 1)))
            try await link.send([0x0B, 0x64], from: .peripheral)
            try await link.send([0x0B, 0x64], from: .peripheral)
            return [await link.receive(on: .central), await link.receive(on: .central)]
        }
        #expect(events == [.pdu([0xF4, 0x64]), .pdu([0x0B])])
    }

    @Test func delayedPDUArrivesLaterByTheDelay() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let parameters = LinkParameters.typical
        let arrival = try await simulation.run {
            let link = SimulatedLink(parameters: parameters, clock: clock)
            await link.inject(LinkFault(from: .central, pduNumber: 1, action: .delay(.seconds(5))))
            try await link.send([1], from: .central)
            _ = await link.receive(on: .peripheral)
            return clock.now.sinceStart
        }
        #expect(arrival == parameters.exchangeTime + .seconds(5))
    }

    @Test func droppingTheLinkClosesBothSidesAndLosesInFlightPDUs() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (central, peripheral, sendError) = try await simulation.run {
            let link = SimulatedLink(clock: clock)
            await link.inject(LinkFault(from: .central, pduNumber: 2, action: .dropLink))
            try await link.send([1], from: .central)
            try await link.send([2], from: .central)
            var error: SimulatedLinkClosed?
            do { try await link.send([3], from: .peripheral) } catch let closed as SimulatedLinkClosed { error = closed }
            let centralEvents = [await link.receive(on: .central), await link.receive(on: .central)]
            let peripheralEvents = [await link.receive(on: .peripheral), await link.receive(on: .peripheral)]
            return (centralEvents, peripheralEvents, error)
        }
        #expect(central == [.closed(.connectionTimeout), nil])
        #expect(peripheral == [.closed(.connectionTimeout), nil])
        #expect(sendError == SimulatedLinkClosed(reason: .connectionTimeout))
    }

    @Test func cancellingAWaitingReceiverEndsItsWait() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let result = try await simulation.run {
            let link = SimulatedLink(clock: clock)
            return await withTaskGroup(of: String.self) { group in
                group.addTask { await link.receive(on: .central) == nil ? "ended" : "event" }
                group.addTask {
                    try? await clock.sleep(for: .seconds(1))
                    return "timer"
                }
                let first = await group.next()
                group.cancelAll()
                return [first, await group.next()].compactMap { $0 }.joined(separator: ",")
            }
        }
        #expect(result == "timer,ended")
    }
}
