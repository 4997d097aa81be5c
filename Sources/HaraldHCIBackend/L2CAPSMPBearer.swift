import HaraldHCI
import HaraldSMP

/// The Security Manager's PDUs on a link's L2CAP channel 0x0006.
struct L2CAPSMPBearer: SMPBearer {
    let channel: L2CAPFixedChannel

    init(link: LEConnection) { channel = link.securityManager }

    func send(_ pdu: [UInt8]) async throws { try await channel.send(pdu) }

    var incoming: AsyncStream<[UInt8]> { channel.incoming }
}
