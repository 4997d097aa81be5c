import Foundation
import Harald
import HaraldCore

// L2CAP channels served by the peripheral: `publishL2CAPChannel(withEncryption:)`, its
// `didPublishL2CAPChannel` answer (with the PSM the system chose), the channels centrals open
// (`didOpen`), and `unpublishL2CAPChannel(_:)`.

extension CoreBluetoothPeripheralBackend {
    /// A `publishL2CAPChannel` waiting for its answer (CoreBluetooth answers them in order).
    struct PublishWaiter {
        let generation: UInt64
        let options: L2CAPChannelOptions
        let continuation: CheckedContinuation<PublishedChannel, any Error>
    }

    /// What a `didPublishL2CAPChannel` answers.
    enum PublishOutcome {
        case served(PublishWaiter, PublishedChannel)
        case failed(PublishWaiter, BluetoothError)
        case unwanted(PublishWaiter?)
    }

    /// A PSM served, for the session `generation`.
    /// What a publish answers with: values only. The server object is made by the task that
    /// waited (an object made on CoreBluetooth's queue and handed over through the continuation
    /// is reported by ThreadSanitizer on Linux, whose concurrency runtime shows it no ordering
    /// between the resume and the awaiting task: a ten-line program of a queue resuming a
    /// continuation with a new object shows the same report).
    struct PublishedChannel: Sendable {
        let psm: L2CAPPSM
        let channels: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>
    }

    struct ChannelServerRecord {
        let generation: UInt64
        let receiveBuffer: Int
        let channels: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>.Continuation
    }

    /// Publishes an L2CAP channel for session `generation` and returns its server once
    /// CoreBluetooth has said the PSM it chose. A fixed `psm` is refused: CoreBluetooth picks.
    func serveL2CAPChannels(psm: L2CAPPSM?, security: SecurityLevel, options: L2CAPChannelOptions, generation: UInt64) async throws(BluetoothError)
        -> any L2CAPChannelServerBackend
    {
        if let psm {
            throw .unsupported(
                "CoreBluetooth picks the PSM of a channel an app publishes (\(psm) was asked for): serve with no PSM and announce the one it picks")
        }
        do {
            let published = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PublishedChannel, any Error>) in
                let refusal = state.withLock { state -> BluetoothError? in
                    guard state.session?.generation == generation else { return .cancelled }
                    guard state.radio == .poweredOn, state.manager != nil else { return .radioUnavailable(state.radio) }
                    state.publishes.append(PublishWaiter(generation: generation, options: options, continuation: continuation))
                    return nil
                }
                if let refusal { return continuation.resume(throwing: refusal) }
                queue.async {
                    // The radio may have gone off meanwhile: its state change already failed the waiter.
                    let manager = self.state.withLock { $0.radio == .poweredOn ? $0.manager : nil }
                    manager?.publishL2CAPChannel(withEncryption: security >= .encrypted)
                }
            }
            return CoreBluetoothChannelServer(backend: self, psm: published.psm, stream: published.channels)
        } catch {
            throw error as? BluetoothError ?? .backend("\(error)")
        }
    }

    /// Stops serving `psm` (its server's `stop()`): unpublishes it and ends its stream of channels.
    func unpublishChannel(_ psm: UInt16) async {
        let record = state.withLock { $0.channelServers.removeValue(forKey: psm) }
        guard let record else { return }
        record.channels.finish()
        await onQueue {
            let manager = self.state.withLock { $0.radio == .poweredOn ? $0.manager : nil }
            manager?.unpublishL2CAPChannel(psm)
        }
    }

    /// Unpublishes every PSM served for session `generation` (serving stops).
    func unpublishChannels(of generation: UInt64) async {
        let psms = state.withLock { state in state.channelServers.filter { $0.value.generation == generation }.keys.sorted() }
        for psm in psms { await unpublishChannel(psm) }
    }

    /// Runs `body` on CoreBluetooth's queue and waits for it.
    private func onQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                body()
                continuation.resume()
            }
        }
    }

    /// The radio left `.poweredOn`: CoreBluetooth answers no publish any more, and has dropped
    /// the published PSMs.
    func radioLeftForChannels(_ radio: RadioState) {
        let (waiters, servers) = state.withLock { state in
            defer {
                state.publishes = []
                state.channelServers = [:]
            }
            return (state.publishes, Array(state.channelServers.values))
        }
        for waiter in waiters { waiter.continuation.resume(throwing: BluetoothError.radioUnavailable(radio)) }
        for server in servers { server.channels.finish() }
    }

    /// The oldest publish is answered: its server, on the PSM CoreBluetooth chose, or the error.
    /// A publish whose serving ended meanwhile is unpublished at once.
    public func peripheralManager(_ peripheral: Manager, didPublishL2CAPChannel PSM: UInt16, error: (any Error)?) {
        let outcome = state.withLock { state -> PublishOutcome in
            guard !state.publishes.isEmpty else { return .unwanted(nil) }
            let waiter = state.publishes.removeFirst()
            if let error { return .failed(waiter, CoreBluetoothErrorMapping.bluetoothError(error, attribute: nil, keys: Manager.keys)) }
            guard state.session?.generation == waiter.generation else { return .unwanted(waiter) }
            let (stream, continuation) = AsyncStream.makeStream(of: (CentralIdentifier, any L2CAPChannelBackend).self)
            state.channelServers[PSM] = ChannelServerRecord(generation: waiter.generation, receiveBuffer: waiter.options.receiveBuffer, channels: continuation)
            return .served(waiter, PublishedChannel(psm: L2CAPPSM(PSM), channels: stream))
        }
        switch outcome {
        case .served(let waiter, let published):
            waiter.continuation.resume(returning: published)
        case .failed(let waiter, let error):
            waiter.continuation.resume(throwing: error)
        case .unwanted(let waiter):
            if error == nil { peripheral.unpublishL2CAPChannel(PSM) }
            waiter?.continuation.resume(throwing: BluetoothError.cancelled)
        }
    }

    /// Confirms an unpublish; the server was already taken down.
    public func peripheralManager(_ peripheral: Manager, didUnpublishL2CAPChannel PSM: UInt16, error: (any Error)?) {}

    /// A central opened a channel: it goes to the server of its PSM, with the central
    /// (`channel.peer`); a channel on a PSM no longer served is closed. A failed open is not
    /// reported: nothing waits for it.
    public func peripheralManager(_ peripheral: Manager, didOpen channel: Manager.L2CAPChannel?, error: (any Error)?) {
        guard let channel else { return }
        let psm = channel.psm
        let server = state.withLock { $0.channelServers[psm] }
        guard let server, let input = channel.inputStream, let output = channel.outputStream, let peer = channel.peer else {
            channel.inputStream?.close()
            channel.outputStream?.close()
            return
        }
        let central = CentralIdentifier(rawValue: peer.identifier.uuidString)
        let made = StreamChannel(psm: L2CAPPSM(psm), input: input, output: output, owner: channel, receiveBuffer: server.receiveBuffer)
        if case .terminated = server.channels.yield((central, made)) {
            Task { await made.close() }
        }
    }
}

/// The channels a CoreBluetooth peripheral serves on one PSM the system chose.
final class CoreBluetoothChannelServer<Manager: CoreBluetoothPeripheralManager>: L2CAPChannelServerBackend {
    let backend: CoreBluetoothPeripheralBackend<Manager>
    let psm: L2CAPPSM
    private let stream: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>

    init(backend: CoreBluetoothPeripheralBackend<Manager>, psm: L2CAPPSM, stream: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>) {
        self.backend = backend
        self.psm = psm
        self.stream = stream
    }

    /// The channels centrals open, as they open (one stream: every call returns it).
    func channels() -> AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)> { stream }

    /// Unpublishes the PSM; open channels stay open.
    func stop() async { await backend.unpublishChannel(psm.rawValue) }
}

extension CoreBluetoothServing {
    /// Publishes an L2CAP channel (`publishL2CAPChannel(withEncryption:)`, encryption required
    /// from `SecurityLevel/encrypted` up); CoreBluetooth picks the PSM, so a fixed `psm` throws
    /// `BluetoothError/unsupported(_:)`. Channels on it come with their central.
    func serveL2CAPChannels(psm: L2CAPPSM?, security: SecurityLevel, options: L2CAPChannelOptions) async throws(BluetoothError)
        -> any L2CAPChannelServerBackend
    {
        try await backend.serveL2CAPChannels(psm: psm, security: security, options: options, generation: generation)
    }
}
