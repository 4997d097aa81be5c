/// A link to one Bluetooth controller that carries whole HCI packets both ways.
///
/// Implementations: ``TCPTransport`` (H4 over TCP, as Bumble's virtual controllers speak it) and,
/// on Linux, ``HCIUserChannelTransport`` (a real adapter through the kernel's HCI user channel).
/// Use ``openHCITransport(_:)`` to open one from text such as `tcp:127.0.0.1:9000` or `hci:0`.
public protocol HCITransport: AnyObject, Sendable {
    /// Sends one packet to the controller. Throws ``HCITransportError/closed`` once closed.
    func send(_ packet: HCIPacket) async throws(HCITransportError)

    /// Packets from the controller, in arrival order. There is one stream per transport, for one
    /// consumer. It finishes normally after ``close()`` and throws an ``HCITransportError`` when
    /// the link fails (the other end went away, the framing broke).
    var packets: AsyncThrowingStream<HCIPacket, any Error> { get }

    /// Closes the link; idempotent. Pending sends fail, ``packets`` finishes.
    func close() async
}
