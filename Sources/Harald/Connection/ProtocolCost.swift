/// What a connection has cost on the ATT bearer so far, as counted by the GATT client.
///
/// Backends that run Harald's own GATT client (the simulator and the HCI host stack) count every
/// PDU; CoreBluetooth hides the ATT traffic, so ``PeripheralConnection/protocolCost()`` returns
/// nil there. Counts grow monotonically over the life of the connection: subtract two snapshots
/// (``-(_:_:)``) to get the cost of the steps in between.
public struct ProtocolCost: Hashable, Sendable, CustomStringConvertible {
    /// ATT requests sent (each waits for one response or Error Response: reads, writes with
    /// response, discovery, MTU exchange).
    public var attRequests: Int
    /// Requests that were answered (completed request/response round trips).
    public var roundTrips: Int
    /// ATT PDUs sent: requests, write commands and indication confirmations.
    public var pdusSent: Int
    /// ATT PDUs received: responses, notifications and indications.
    public var pdusReceived: Int
    /// Bytes of the ATT PDUs sent (without L2CAP or link-layer headers).
    public var bytesSent: Int
    /// Bytes of the ATT PDUs received.
    public var bytesReceived: Int

    /// Counts from their parts.
    public init(attRequests: Int = 0, roundTrips: Int = 0, pdusSent: Int = 0, pdusReceived: Int = 0, bytesSent: Int = 0, bytesReceived: Int = 0) {
        self.attRequests = attRequests
        self.roundTrips = roundTrips
        self.pdusSent = pdusSent
        self.pdusReceived = pdusReceived
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }

    /// The cost between two snapshots of the same connection (`later - earlier`).
    public static func - (later: ProtocolCost, earlier: ProtocolCost) -> ProtocolCost {
        ProtocolCost(
            attRequests: later.attRequests - earlier.attRequests, roundTrips: later.roundTrips - earlier.roundTrips,
            pdusSent: later.pdusSent - earlier.pdusSent, pdusReceived: later.pdusReceived - earlier.pdusReceived,
            bytesSent: later.bytesSent - earlier.bytesSent, bytesReceived: later.bytesReceived - earlier.bytesReceived)
    }

    /// The cost of two steps together.
    public static func + (lhs: ProtocolCost, rhs: ProtocolCost) -> ProtocolCost {
        ProtocolCost(
            attRequests: lhs.attRequests + rhs.attRequests, roundTrips: lhs.roundTrips + rhs.roundTrips,
            pdusSent: lhs.pdusSent + rhs.pdusSent, pdusReceived: lhs.pdusReceived + rhs.pdusReceived,
            bytesSent: lhs.bytesSent + rhs.bytesSent, bytesReceived: lhs.bytesReceived + rhs.bytesReceived)
    }

    /// The counts in one line, e.g. `3 ATT requests, 3/3 PDUs sent/received, 21/48 bytes`.
    public var description: String {
        "\(attRequests) ATT requests, \(pdusSent)/\(pdusReceived) PDUs sent/received, \(bytesSent)/\(bytesReceived) bytes"
    }
}

extension ConnectionBackend {
    /// Backends without access to the ATT traffic (CoreBluetooth) cannot count it.
    nonisolated(nonsending) public func protocolCost() async -> ProtocolCost? { nil }
}

extension PeripheralConnection {
    /// The ATT traffic this connection has caused so far, or nil when the backend cannot see it
    /// (CoreBluetooth). Counts only grow; subtract snapshots for the cost of single steps.
    nonisolated(nonsending) public func protocolCost() async -> ProtocolCost? { await backend.protocolCost() }
}
