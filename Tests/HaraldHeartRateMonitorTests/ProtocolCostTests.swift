import Harald
import HaraldProfiles
import HaraldSimulator
import Testing

/// `PeripheralConnection.protocolCost()` on a backend that runs Harald's GATT client.
@Suite("Protocol cost of a connection")
struct ProtocolCostTests {
    @Test func aReadCostsOneRequestAndOneResponseWithTheirBytes() async throws {
        let (before, after) = try await SimulatedStrap.run { central, _ in
            let connection = try await central.connect(to: VirtualPeripheral.heartRateStrap().identifier, services: [.battery])
            _ = try await connection.characteristic(BatteryLevel.uuid, service: ServiceSpec.battery.uuid)
            let before = try #require(await connection.protocolCost())
            _ = try await connection.read(.batteryLevel)
            let after = try #require(await connection.protocolCost())
            await connection.disconnect()
            return (before, after)
        }
        let read = after - before
        // Read Request: opcode + handle (3 bytes); Read Response: opcode + the 1-byte level.
        #expect(read == ProtocolCost(attRequests: 1, roundTrips: 1, pdusSent: 1, pdusReceived: 1, bytesSent: 3, bytesReceived: 2))
    }

    @Test func theCostMatchesTheGATTClientsCountersAndCountsConnectionSetUp() async throws {
        let (cost, counters) = try await SimulatedStrap.run { central, world in
            let connection = try await central.connect(to: VirtualPeripheral.heartRateStrap().identifier, services: [.heartRate])
            _ = try await connection.read(.bodySensorLocation)
            let cost = try #require(await connection.protocolCost())
            let counters = try #require(await world.connection(to: SimulatedStrap.address)?.clientCounters)
            await connection.disconnect()
            return (cost, counters)
        }
        #expect(cost == ProtocolCost(counters))
        #expect(cost.pdusSent == counters.totalPDUsSent && cost.bytesReceived == counters.bytesReceived)
        // MTU exchange, service and characteristic discovery, then the read: all requests.
        #expect(cost.attRequests >= 3)
        #expect(cost.roundTrips == cost.attRequests)
    }
}
