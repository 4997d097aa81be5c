import Harald
import HaraldATT

/// Protocol cost from the GATT client's counters.
extension ProtocolCost {
    /// The cost summarised from a GATT client's counters.
    public init(_ counters: ATTCounters) {
        self.init(
            attRequests: counters.pdusSent.filter { $0.key.kind == .request }.values.reduce(0, +),
            roundTrips: counters.roundTrips.filter { $0.key.kind == .request }.values.reduce(0, +),
            pdusSent: counters.totalPDUsSent, pdusReceived: counters.totalPDUsReceived,
            bytesSent: counters.bytesSent, bytesReceived: counters.bytesReceived)
    }
}
