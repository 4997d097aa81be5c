import HaraldCodec
import HaraldCore
/// The link parameters of a connection as they stand now.
public struct LEConnectionInfo: Sendable, Hashable {
    /// Connection interval in units of 1.25 ms.
    public var interval: UInt16
    /// Peripheral latency in connection events.
    public var latency: UInt16
    /// Supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16
    /// Largest link-layer payload each way, in bytes (27 until Data Length Extension).
    public var maxTxOctets: UInt16 = 27
    /// Largest link-layer payload the peer sends, in bytes.
    public var maxRxOctets: UInt16 = 27
    /// PHY each way: 1 = LE 1M, 2 = LE 2M, 3 = LE Coded.
    public var txPHY: UInt8 = 1
    /// The PHY the peer sends on.
    public var rxPHY: UInt8 = 1
    /// The peer's LE features, once read.
    public var remoteFeatures: UInt64?
    /// Whether the link is encrypted, and the key size in octets when the controller said.
    public var isEncrypted = false
    /// The encryption key size in octets (7…16), when the controller reported it.
    public var keySize: UInt8?
}

/// One LE connection: its identity, its ATT channel and its life.
///
/// Lives until the link ends; after that ``disconnectReason`` is set, the ATT channel's
/// ``L2CAPFixedChannel/incoming`` stream finishes and sends throw ``HCIError/disconnected(reason:)``.
public final class LEConnection: Sendable, CustomStringConvertible {
    /// The connection handle the controller assigned.
    public let handle: UInt16
    /// The peer's address.
    public let peer: BluetoothAddress
    /// Our role on this link.
    public let role: LERole
    /// Our own address on this link: the random address in use when the link was made (it
    /// stays this link's even after the host changes its address, and is what pairing takes as
    /// ours). Nil when the host had none set up.
    public let localAddress: BluetoothAddress?
    /// The Attribute Protocol fixed channel (CID 0x0004).
    public let att: L2CAPFixedChannel
    /// The Security Manager fixed channel (CID 0x0006); it carries PDUs only when the host is
    /// configured to deliver them (``HCIHost/Configuration/deliversSecurityManagerPDUs``).
    public let securityManager: L2CAPFixedChannel
    let info: Locked<LEConnectionInfo>
    let disconnection: Latch<HCIStatus>
    private let hostReference: HostReference
    /// Who watches the link's encryption (``encryptionChanges()``).
    private let encryptionWatchers = Locked<[AsyncStream<LinkEncryption>.Continuation]?>([])

    init(complete: LEConnectionComplete, host: HCIHost, channelBufferSize: Int, localAddress: BluetoothAddress? = nil) {
        handle = complete.handle
        peer = complete.peer
        role = complete.role
        self.localAddress = localAddress
        info = Locked(
            LEConnectionInfo(
                interval: complete.interval, latency: complete.latency,
                supervisionTimeout: complete.supervisionTimeout))
        disconnection = Latch()
        hostReference = HostReference(host)
        att = L2CAPFixedChannel(
            cid: L2CAPFixedChannel.attributeProtocol, connectionHandle: complete.handle, host: host,
            closedSignal: disconnection, bufferSize: channelBufferSize)
        // SMP never has more than a few PDUs in flight: a small buffer bounds a flooding peer.
        securityManager = L2CAPFixedChannel(
            cid: L2CAPFixedChannel.securityManager, connectionHandle: complete.handle, host: host,
            closedSignal: disconnection, bufferSize: 16)
    }

    /// Current link parameters (interval, data length, PHY).
    public var parameters: LEConnectionInfo { info.value }

    /// Every successful Encryption Change and Key Refresh from now on (whoever started it: as
    /// peripheral, the central does), until the link ends. Each call returns a new stream.
    public func encryptionChanges() -> AsyncStream<LinkEncryption> {
        let (stream, continuation) = AsyncStream.makeStream(of: LinkEncryption.self, bufferingPolicy: .bufferingNewest(8))
        let added = encryptionWatchers.withLock { watchers in
            guard watchers != nil else { return false }
            watchers?.append(continuation)
            return true
        }
        if !added { continuation.finish() }
        return stream
    }

    /// Tells the watchers the link's encryption changed.
    func reportEncryption(_ encryption: LinkEncryption) {
        for watcher in encryptionWatchers.withLock({ $0 ?? [] }) { watcher.yield(encryption) }
    }

    /// The link ended: no more changes.
    func finishEncryptionChanges() {
        for watcher in encryptionWatchers.withLock({ watchers in
            defer { watchers = nil }; return watchers ?? []
        }) { watcher.finish() }
    }

    /// The disconnection reason once the link is gone, else nil.
    public var disconnectReason: HCIStatus? { disconnection.current }

    /// Waits until the link is gone; returns the reason (nil if the waiting task is cancelled).
    nonisolated(nonsending) public func waitUntilDisconnected() async -> HCIStatus? { await disconnection.wait() }

    /// Ends the link (HCI Disconnect) and waits for Disconnection Complete; returns its reason.
    /// If the controller never confirms, the link is dropped locally after the command timeout.
    @discardableResult
    nonisolated(nonsending) public func disconnect(reason: HCIStatus = .remoteUserTerminatedConnection) async throws(HCIError) -> HCIStatus {
        if let reason = disconnection.current { return reason }
        guard let host = hostReference.host else { throw .closed }
        return try await host.disconnect(handle: handle, reason: reason)
    }

    /// The link's received signal strength now (HCI Read RSSI); nil when the controller cannot
    /// tell (it answers 127). A controller without the command fails with
    /// ``HCIError/commandFailed(_:_:)`` (Unknown HCI Command).
    nonisolated(nonsending) public func readRSSI() async throws(HCIError) -> RSSI? {
        guard let host = hostReference.host else { throw .closed }
        let answer = try await host.execute(.readRSSI(handle: handle))
        guard answer.count >= 3 else { throw .unexpectedResponse(.readRSSI, "\(answer.count) bytes of return parameters") }
        return RSSI(hciValue: Int8(bitPattern: answer[2]))
    }

    /// Encrypts the link with a Long Term Key (legacy keys with their `rand` and `ediv`; both 0
    /// for Secure Connections), or refreshes the encryption of an encrypted link. Central only.
    /// Throws ``HCIError/encryptionFailed(_:)`` when the peer refuses (0x06 PIN or Key Missing:
    /// it has no key for us — the link stays up), ``HCIError/disconnected(reason:)`` when the link
    /// drops meanwhile (0x3D MIC Failure: the peer's key differs).
    @discardableResult
    nonisolated(nonsending) public func encrypt(with key: SecretKey128, rand: UInt64 = 0, ediv: UInt16 = 0, timeout: Duration = .seconds(30))
        async throws(HCIError)
        -> LinkEncryption
    {
        guard let host = hostReference.host else { throw .closed }
        return try await host.encrypt(handle: handle, key: key, rand: rand, ediv: ediv, timeout: timeout)
    }

    /// As peripheral, asks the central for new connection parameters (L2CAP Connection Parameter
    /// Update Request); true when it accepted — the new interval, latency and timeout then show
    /// in ``parameters`` once the link layer applied them — false when it refused.
    nonisolated(nonsending) public func requestConnectionParameters(_ parameters: LEConnectionParameters, timeout: Duration = .seconds(30))
        async throws(HCIError) -> Bool
    {
        guard let host = hostReference.host else { throw .closed }
        return try await host.requestConnectionParameters(handle: handle, parameters, timeout: timeout)
    }

    /// Asks for a larger link-layer payload (Data Length Extension); `octets` 27…251.
    nonisolated(nonsending) public func setDataLength(octets: UInt16 = 251, time: UInt16 = 2120) async throws(HCIError) {
        guard let host = hostReference.host else { throw .closed }
        await host.linkSetUpFinished(handle: handle)  // after the host's own request, so this one wins
        try await host.execute(.leSetDataLength(handle: handle, txOctets: octets, txTime: time))
    }

    /// Asks for a PHY change (bits: 0x01 1M, 0x02 2M, 0x04 Coded); the outcome arrives as
    /// LE PHY Update Complete and shows in ``parameters``.
    nonisolated(nonsending) public func setPHY(tx: UInt8 = 0x02, rx: UInt8 = 0x02) async throws(HCIError) {
        guard let host = hostReference.host else { throw .closed }
        await host.linkSetUpFinished(handle: handle)  // after the host's own request, so this one wins
        try await host.executeAccepted(.leSetPHY(handle: handle, txPHYs: tx, rxPHYs: rx))
    }

    /// The connection handle in hex, the peer's address and kind, and this device's role, e.g.
    /// `LEConnection(handle 0x0040, C0:00:00:00:00:01/random, central)`.
    public var description: String { "LEConnection(handle 0x\(Hex.word(handle)), \(peer), \(role))" }
}
