import Harald
@testable import HaraldSimulator
import Testing

@Suite("Open GoPro packets from the virtual camera")
struct OpenGoProPacketTests {
    @Test(arguments: [0, 3, 19, 20, 31, 32, 100, 300])
    func messagesSplitIntoPacketsOfAtMost20BytesAndReassemble(length: Int) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let packets = OpenGoProPackets.split(message)
        #expect(packets.allSatisfy { $0.count <= 20 })
        // Reassemble as the SDK does: header length, then continuation payloads.
        let first = packets[0]
        let extended = first[0] & 0x60 == 0x20
        let declared = extended ? Int(first[0] & 0x1F) << 8 | Int(first[1]) : Int(first[0] & 0x1F)
        var body = Array(first.dropFirst(extended ? 2 : 1))
        for (index, packet) in packets.dropFirst().enumerated() {
            #expect(packet[0] == 0x80 | UInt8(index & 0x0F))
            body += packet.dropFirst()
        }
        #expect(declared == length)
        #expect(body == message)
    }

    @Test func aSinglePacketRequestYieldsItsMessageAndAMalformedOneDoesNot() {
        #expect(OpenGoProPackets.message(of: [0x03, 0x01, 0x01, 0x01]) == [0x01, 0x01, 0x01])
        #expect(OpenGoProPackets.message(of: [0x20, 0x02, 0x3C, 0x00]) == [0x3C, 0x00])
        #expect(OpenGoProPackets.message(of: [0x05, 0x01]) == nil)
        #expect(OpenGoProPackets.message(of: [0x80, 0x01]) == nil)
        #expect(OpenGoProPackets.message(of: []) == nil)
    }
}

@Suite("Virtual devices through the public API")
struct VirtualDeviceTests {
    @Test func theCamerasHardwareInfoSpansSeveralPackets() throws {
        let simulation = Simulation()
        let camera = VirtualPeripheral.actionCamera()
        let simulator = try Simulator(clock: simulation.clock, devices: [camera])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let command = Characteristic<[UInt8], WriteNotify>(VirtualPeripheral.OpenGoPro.command, service: VirtualPeripheral.OpenGoPro.service)
        let response = Characteristic<[UInt8], Notify>(VirtualPeripheral.OpenGoPro.commandResponse, service: VirtualPeripheral.OpenGoPro.service)
        let packets = try simulation.run {
            let connection = try await central.connect(to: camera.identifier, timeout: .seconds(5))
            let updates = try await connection.subscribe(response, buffering: .oldest(32))
            try await connection.write([0x01, 0x3C], to: command)
            var packets: [[UInt8]] = []
            for try await packet in updates {
                packets.append(packet)
                if packet.count < 20 { break }
            }
            return packets
        }
        #expect(packets.count > 1)
        #expect(packets.allSatisfy { $0.count <= 20 })
        #expect(packets.dropFirst().allSatisfy { $0[0] & 0x80 != 0 })
    }

    @Test func theCameraPushesTheEncodingStatusToRegisteredCentralsWhenTheShutterChanges() throws {
        let simulation = Simulation()
        let camera = VirtualPeripheral.actionCamera()
        let simulator = try Simulator(clock: simulation.clock, devices: [camera])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let service = VirtualPeripheral.OpenGoPro.service
        let query = Characteristic<[UInt8], Write>(VirtualPeripheral.OpenGoPro.query, service: service)
        let queryResponse = Characteristic<[UInt8], Notify>(VirtualPeripheral.OpenGoPro.queryResponse, service: service)
        let command = Characteristic<[UInt8], Write>(VirtualPeripheral.OpenGoPro.command, service: service)
        let messages = try simulation.run {
            let connection = try await central.connect(to: camera.identifier, timeout: .seconds(5))
            let updates = try await connection.subscribe(queryResponse, buffering: .oldest(16))
            var iterator = updates.makeAsyncIterator()
            try await connection.write([0x02, 0x53, 10], to: query)
            let registered = try await iterator.next() ?? []
            try await connection.write([0x03, 0x01, 0x01, 0x01], to: command)
            let push = try await iterator.next() ?? []
            return [registered, push]
        }
        #expect(messages == [[0x05, 0x53, 0x00, 10, 1, 0], [0x05, 0x93, 0x00, 10, 1, 1]])
    }
}
