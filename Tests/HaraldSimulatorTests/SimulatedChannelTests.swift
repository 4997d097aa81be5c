import Harald
import HaraldCore
import HaraldSimulator
import Testing

/// Connection-oriented channels in the simulator: the credit-based engine's rules over the link
/// model, in virtual time, and the device faults the issue names (credits withheld, an oversize
/// SDU, a disconnection in the middle of an SDU).
@Suite("The simulated world: L2CAP credit-based channels")
struct SimulatedChannelTests {
    static let address = BluetoothAddress("B0:00:00:00:00:21", kind: .random)!

    /// A device serving `services`, and a central in a fresh simulation.
    static func world(_ services: [VirtualChannelService], link: LinkParameters = .typical) throws -> (Simulation, Simulator, Central, VirtualPeripheral) {
        let simulation = Simulation()
        var device = VirtualPeripheral(address: address, advertisingData: .device(name: "Channels")) { _ in PeripheralBehaviour(services: []) }
        device.channels = services
        let simulator = try Simulator(clock: simulation.clock, devices: [device], link: link)
        return (simulation, simulator, Central(backend: simulator.backend, clock: simulation.clock), device)
    }

    @Test func sdusComeBackWholeFromAnEchoingDevice() async throws {
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80, options: L2CAPChannelOptions(mtu: 600, mps: 64))])
        let sdus = (0..<30).map { index in (0..<(index * 20)).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
        let echoed = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let channel = try await connection.openL2CAPChannel(psm: 0x80, options: L2CAPChannelOptions(mtu: 600, mps: 100))
            var replies = channel.incoming.makeAsyncIterator()
            var echoed: [[UInt8]] = []
            for sdu in sdus {
                try await channel.send(sdu)
                echoed.append(try await replies.next() ?? [])
            }
            await channel.close()
            return echoed
        }
        #expect(echoed == sdus)
    }

    @Test func aPSMTheDeviceDoesNotServeIsRefused() async throws {
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80)])
        let error = try await simulation.run { () async throws -> BluetoothError? in
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            do throws(BluetoothError) {
                _ = try await connection.openL2CAPChannel(psm: 0x81)
                return nil
            } catch { return error }
        }
        #expect(error == .channelRefused(.psmNotSupported))
    }

    @Test func aPSMThatNeedsEncryptionIsRefusedOnAnUnencryptedLink() async throws {
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80, security: .encrypted)])
        let error = try await simulation.run { () async throws -> BluetoothError? in
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            do throws(BluetoothError) {
                _ = try await connection.openL2CAPChannel(psm: 0x80)
                return nil
            } catch { return error }
        }
        #expect(error == .channelRefused(.insufficientAuthentication))
    }

    @Test func aDeviceThatWithholdsCreditsStallsTheSenderAtItsWindow() async throws {
        // The device's window: 2,048 bytes of room in K-frames of 64 → 32 credits (at least two SDUs' worth).
        let options = L2CAPChannelOptions(mtu: 64, mps: 64, receiveBuffer: 2048)
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80, options: options, fault: .withholdCredits)])
        let sent = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let channel = try await connection.openL2CAPChannel(psm: 0x80)
            let count = Locked(0)
            let sender = simulation.clock.taskStarter.start {
                for _ in 0..<100 {
                    guard (try? await channel.send([UInt8](repeating: 7, count: 10))) != nil else { return }
                    count.withLock { $0 += 1 }
                }
            }
            try await simulation.clock.sleep(for: .seconds(30))
            let sent = count.value
            await channel.close()
            await sender.value
            return sent
        }
        #expect(sent == 32)
    }

    @Test func anSDULongerThanOurMTUClosesTheChannelAsAViolation() async throws {
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80, fault: .oversizeSDU)])
        let (received, reason) = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let channel = try await connection.openL2CAPChannel(psm: 0x80, options: L2CAPChannelOptions(mtu: 100, mps: 100))
            var received = 0
            for try await _ in channel.incoming { received += 1 }
            return (received, await channel.closeReason())
        }
        #expect(received == 0)
        guard case .protocolViolation? = reason else {
            Issue.record("closed for \(String(describing: reason))")
            return
        }
    }

    @Test func aDeviceThatClosesInTheMiddleOfAnSDUDeliversNoPartOfIt() async throws {
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80, fault: .disconnectMidSDU)])
        let (received, reason) = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let channel = try await connection.openL2CAPChannel(psm: 0x80)
            var received: [[UInt8]] = []
            for try await sdu in channel.incoming { received.append(sdu) }
            return (received, await channel.closeReason())
        }
        #expect(received.isEmpty)
        #expect(reason == .remoteRequest)
    }

    @Test func aDefinitionServedInTheSimulatorTakesChannelsWithTheirCentral() async throws {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let definition = PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Served"), services: [])
        let backend = simulator.peripheralBackend(at: Self.address)
        let (reply, centrals) = try await simulation.run {
            let served = try await ServedPeripheral.start(definition, on: backend)
            let server = try await served.serveL2CAPChannels(psm: 0x90)
            let centrals = Locked<[CentralIdentifier?]>([])
            _ = simulation.clock.taskStarter.start {
                for await channel in server.channels {
                    centrals.withLock { $0.append(channel.central) }
                    do {
                        for try await sdu in channel.incoming { try await channel.send(sdu.reversed()) }
                    } catch {}
                }
            }
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            let channel = try await connection.openL2CAPChannel(psm: 0x90)
            try await channel.send([1, 2, 3])
            var replies = channel.incoming.makeAsyncIterator()
            let reply = try await replies.next()
            await channel.close()
            await served.stop()
            return (reply, centrals.value)
        }
        #expect(reply == [3, 2, 1])
        #expect(centrals.count == 1 && centrals.first! != nil)
    }

    /// A mebibyte through a channel in virtual time: what fraction of the link model's ceiling
    /// (payload bytes per second the link's packets can carry) it reaches.
    @Test(arguments: [LinkParameters.typical, LinkParameters.fast])
    func aMebibyteOverAChannelReachesNinetyPercentOfTheLinkCeiling(parameters: LinkParameters) async throws {
        let options = L2CAPChannelOptions(mtu: 4096, mps: parameters.linkLayerPayload - 4, receiveBuffer: 64 * 1024)
        let (simulation, _, central, device) = try Self.world([VirtualChannelService(psm: 0x80, behaviour: .sink, options: options)], link: parameters)
        let total = 1 << 20
        let (elapsed, report) = try await simulation.run(timeLimit: .seconds(3600)) {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let channel = try await connection.openL2CAPChannel(psm: 0x80, options: options)
            let start = simulation.clock.now
            try await channel.write([UInt8](repeating: 0x42, count: total))
            try await channel.send(Array("report".utf8))
            var replies = channel.incoming.makeAsyncIterator()
            let report = try await replies.next() ?? []
            return (start.duration(to: simulation.clock.now), String(decoding: report, as: UTF8.self))
        }
        #expect(report == "\(total) \(total / 4096)")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        // The ceiling: every packet full of K-frame payload (the link-layer payload less the
        // 4-byte L2CAP header), effectivePacketsPerEvent per interval.
        let interval = Double(parameters.connectionInterval.components.attoseconds) * 1e-18 + Double(parameters.connectionInterval.components.seconds)
        let ceiling = Double(parameters.effectivePacketsPerEvent * (parameters.linkLayerPayload - 4)) / interval
        #expect(Double(total) / seconds >= 0.9 * ceiling, "\(Double(total) / seconds) B/s of \(ceiling)")
    }
}
