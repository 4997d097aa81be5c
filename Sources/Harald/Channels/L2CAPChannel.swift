/// A connection-oriented L2CAP channel: a stream of bytes in each direction next to GATT on one
/// LE link, with credit-based flow control (Core spec Vol 3 Part A §10.1).
///
/// A central opens one with ``PeripheralConnection/openL2CAPChannel(psm:options:timeout:)``; a
/// peripheral serves a PSM with ``ServedPeripheral/serveL2CAPChannels(psm:security:options:announcingIn:)``.
/// Data goes out with ``send(_:)`` (one SDU) or ``write(_:)`` (any length, cut into SDUs of the
/// peer's MTU); each call waits while the peer has given no credits, so a slow reader slows the
/// writer instead of filling memory. Data comes in through ``incoming``: over HCI and in the
/// simulator one element per SDU, with credits going back to the peer as the loop takes them (a
/// loop that stops holds the peer at ``L2CAPChannelOptions/receiveBuffer`` bytes); on
/// CoreBluetooth, whose streams hide SDU boundaries, one element per read.
///
/// The channel keeps its connection's link up while it is open (a central's channel holds its
/// ``PeripheralConnection``), and closes when the link goes. Call ``close()`` when done; a channel
/// released while open is closed too.
public final class L2CAPChannel: Sendable {
    /// The PSM the channel was opened on.
    public let psm: L2CAPPSM
    /// Largest SDU this end takes, in bytes; nil where the system does not say (CoreBluetooth).
    public let mtu: Int?
    /// Largest SDU the peer takes: the most one ``send(_:)`` carries; nil where the system does
    /// not say (CoreBluetooth).
    public let peerMTU: Int?
    /// On a peripheral, the central that opened the channel; nil on a central.
    public let central: CentralIdentifier?
    /// The backend's end of the channel.
    public let backend: any L2CAPChannelBackend
    /// What the channel keeps alive while it exists (a central's connection handle).
    private let owner: (any Sendable)?
    /// Where the close of a channel released while open runs (the connection's, so that in a
    /// simulation it runs in the simulation).
    private let taskStarter: TaskStarter

    /// A channel over `backend`; `owner` is kept alive as long as the channel (a central passes
    /// the connection handle that opened it), and a channel released while open is closed by a
    /// task `taskStarter` starts.
    public init(backend: any L2CAPChannelBackend, central: CentralIdentifier? = nil, owner: (any Sendable)? = nil, taskStarter: TaskStarter = .default) {
        self.backend = backend
        self.psm = backend.psm
        self.mtu = backend.mtu
        self.peerMTU = backend.peerMTU
        self.central = central
        self.owner = owner
        self.taskStarter = taskStarter
    }

    deinit {
        let backend = backend
        taskStarter.start { await backend.close() }
    }

    /// Sends `sdu` as one SDU. Throws ``BluetoothError/misuse(_:)`` when it is longer than
    /// ``peerMTU`` (nothing is sent), ``BluetoothError/channelClosed(_:)`` once the channel is closed.
    public func send(_ sdu: [UInt8]) async throws(BluetoothError) {
        if let peerMTU, sdu.count > peerMTU {
            throw .misuse("an SDU of \(sdu.count) bytes is longer than the peer's MTU (\(peerMTU)); use write(_:) to send it in several")
        }
        try await backend.send(sdu)
    }

    /// Sends `bytes` whatever their length, as SDUs of at most ``peerMTU`` bytes (one write where
    /// the system takes any length). The peer gets the same bytes in the same order; where the
    /// SDU boundaries fall is not part of what it gets.
    public func write(_ bytes: some Collection<UInt8>) async throws(BluetoothError) {
        let bytes = Array(bytes)
        guard let peerMTU, bytes.count > peerMTU else {
            try await backend.send(bytes)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + peerMTU, bytes.count)
            try await backend.send(Array(bytes[offset..<end]))
            offset = end
        }
    }

    /// What arrives on the channel, in order (see the type's description for what one element is).
    /// Ends when the channel closes and everything received was read; one loop at a time.
    public var incoming: Incoming { Incoming(backend: backend) }

    /// Closes the channel; does nothing once it is closed.
    public func close() async { await backend.close() }

    /// Why the channel closed, once it has.
    public func closeReason() async -> L2CAPChannelCloseReason? { await backend.closeReason() }

    /// The data received on a channel, as an async sequence.
    public struct Incoming: AsyncSequence, Sendable {
        public typealias Element = [UInt8]
        public typealias Failure = BluetoothError
        let backend: any L2CAPChannelBackend

        public func makeAsyncIterator() -> Iterator { Iterator(backend: backend) }

        /// Takes each element from the channel as the loop asks for it.
        public struct Iterator: AsyncIteratorProtocol {
            let backend: any L2CAPChannelBackend

            public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(BluetoothError) -> [UInt8]? {
                try await backend.receive()
            }

            public mutating func next() async throws(BluetoothError) -> [UInt8]? { try await backend.receive() }
        }
    }
}

extension PeripheralConnection {
    /// Opens a connection-oriented L2CAP channel to the peripheral on `psm` (found in its
    /// documentation, or read from its ``L2CAPPSM/appleChannelPSM`` characteristic).
    ///
    /// Waits for the peripheral's answer within `timeout` (``defaultTimeout`` when nil). A refusal
    /// throws ``BluetoothError/channelRefused(_:)``; over HCI and in the simulator a refusal for
    /// lack of security secures the link (encrypting with the bond, else pairing) and asks once
    /// more, as a GATT request does. The channel keeps this handle, and so the link, alive.
    public func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions = L2CAPChannelOptions(), timeout: Duration? = nil)
        async throws(BluetoothError) -> L2CAPChannel
    {
        guard psm.isValidOnLE else { throw .misuse("\(psm) is outside the LE range 0x0001–0x00FF") }
        let deadline = try start(timeout)
        let backend = try await deadline.run { () async throws(BluetoothError) -> any L2CAPChannelBackend in
            try await self.backend.openL2CAPChannel(psm: psm, options: options, timeout: try deadline.remaining("opening an L2CAP channel"))
        }
        return L2CAPChannel(backend: backend, owner: self, taskStarter: taskStarter)
    }
}
