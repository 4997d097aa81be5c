/// A link to one Bluetooth controller that carries whole HCI packets both ways.
///
/// Implementations: ``TCPTransport`` (H4 over TCP, as Bumble's virtual controllers speak it) and,
/// on Linux, ``HCIUserChannelTransport`` (a real adapter through the kernel's HCI user channel).
/// Use ``openHCITransport(_:)`` to open one from text such as `tcp:127.0.0.1:9000` or `hci:0`.
public protocol HCITransport: AnyObject, Sendable {
    /// Sends one packet to the controller. Throws ``HCITransportError/closed`` once closed.
    func send(_ packet: HCIPacket) async throws(HCITransportError)

    /// Packets from the controller, in arrival order. There is one inbox per transport, for one
    /// consumer (the host). It finishes normally after ``close()`` and with an
    /// ``HCITransportError`` when the link fails (the other end went away, the framing broke).
    var packets: HCIPacketInbox { get }

    /// Closes the link; idempotent. Pending sends fail, ``packets`` finishes.
    func close() async

    /// The serial executor the host on this transport should run on, when the transport has a
    /// thread of its own that reads the controller: the host then handles each packet on the
    /// thread that read it, with no other thread woken. Nil (the default): the host runs on a
    /// dispatch queue of its own.
    var executor: (any SerialExecutor)? { get }

    /// The same thread as a task executor, when the transport has one: a task that prefers it
    /// (`withTaskExecutorPreference`) runs its nonisolated code on the thread that reads the
    /// controller, so a loop over notifications takes each value where it arrived, with no other
    /// thread woken. Nil (the default) when the transport has no thread of its own.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var taskExecutor: (any TaskExecutor)? { get }
}

extension HCITransport {
    public var executor: (any SerialExecutor)? { nil }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var taskExecutor: (any TaskExecutor)? { nil }
}
