import HaraldHCI
import HaraldSMP

/// The Security Manager's PDUs on a link's L2CAP channel 0x0006: sent on the channel, received
/// from whoever reads the channel and routes them (``HCILinkSecurity``).
struct L2CAPSMPBearer: SMPBearer {
    let channel: L2CAPFixedChannel
    let incoming: AsyncStream<[UInt8]>

    func send(_ pdu: [UInt8]) async throws { try await channel.send(pdu) }
}
