import HaraldCore
import HaraldSMP

/// The Security Manager's fixed channel (L2CAP CID 0x0006) of one simulated connection: two
/// directions, each PDU arriving one connection interval after it was sent, both ending when the
/// link closes. SMP is one PDU at a time in each direction, so a few slots per direction are
/// plenty; a peer that floods loses the oldest.
final class SimulatedSMPChannel: Sendable {
    private let clock: VirtualClock
    private let latency: Duration
    private let toPeripheral: AsyncStream<[UInt8]>.Continuation
    private let toCentral: AsyncStream<[UInt8]>.Continuation
    /// What the peripheral receives, and what the central receives.
    let peripheralIncoming: AsyncStream<[UInt8]>
    let centralIncoming: AsyncStream<[UInt8]>

    init(clock: VirtualClock, latency: Duration) {
        self.clock = clock
        self.latency = latency
        (peripheralIncoming, toPeripheral) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(16))
        (centralIncoming, toCentral) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(16))
    }

    /// Sends `pdu` from `side`; it arrives one connection interval later.
    func send(_ pdu: [UInt8], from side: LinkSide) async throws {
        try await clock.sleep(for: latency)
        _ = (side == .central ? toPeripheral : toCentral).yield(pdu)
    }

    /// Ends both directions (the link closed).
    func close() {
        toPeripheral.finish()
        toCentral.finish()
    }

    /// The central's end, for its ``SMPInitiator``.
    var centralBearer: some SMPBearer { End(channel: self, side: .central, incoming: centralIncoming) }

    /// One side's end of the channel; `incoming` is what that side receives.
    struct End: SMPBearer {
        let channel: SimulatedSMPChannel
        let side: LinkSide
        let incoming: AsyncStream<[UInt8]>

        nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws { try await channel.send(pdu, from: side) }
    }
}
