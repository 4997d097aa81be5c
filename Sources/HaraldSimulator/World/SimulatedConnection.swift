import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink

/// One connection the simulated central made: its link, both GATT engines and its fault
/// injection points. For tests and benchmarks.
public struct SimulatedConnection: Sendable {
    /// The peripheral connected to.
    public let peripheral: PeripheralIdentifier
    /// The link carrying it (statistics: ``SimulatedLink/statistics``).
    public let link: SimulatedLink
    /// The connection as the public API sees it.
    public let connection: GATTConnection
    /// The connection's id at the peripheral's GATT server.
    public let serverConnection: GATTConnectionID
    /// The peripheral's GATT server.
    public let server: GATTServer
    let peerFaults: PeerFaultState

    /// The central's GATT client (counters, live continuations).
    public var client: GATTClient { connection.client }

    /// Applies `fault` to a future PDU of the link.
    public func inject(_ fault: LinkFault) async { await link.inject(fault) }

    /// Makes the peripheral misbehave when it answers a future request.
    public func inject(_ fault: PeerFault) { peerFaults.add(fault) }

    /// Makes the peripheral misbehave when it answers the next request of `request` it receives.
    public func injectOnNext(_ request: ATTOpcode, _ action: PeerFault.Action) { peerFaults.addForNext(request, action) }

    /// Peer faults applied so far.
    public var appliedPeerFaults: [PeerFault] { peerFaults.applied }

    /// What the peripheral's server would answer a Read of `handle` on this connection with now
    /// (the whole value, or the ATT error), asked of the server directly: nothing crosses the link.
    public func serverValue(handle: UInt16) async -> Result<[UInt8], ATTErrorCode> {
        await server.valueForRead(handle: handle, connection: serverConnection)
    }

    /// What the link has carried so far.
    public var statistics: LinkStatistics {
        get async { await link.statistics }
    }

    /// The central's protocol cost so far (PDUs, round trips per opcode).
    public var clientCounters: ATTCounters {
        get async { await connection.client.counters }
    }
}
