import HaraldCore
import HaraldHCI
import HaraldSMP

/// The Security Manager's PDUs on a link's L2CAP channel 0x0006.
struct L2CAPSMPBearer: SMPBearer {
    let channel: L2CAPFixedChannel

    init(link: LEConnection) { channel = link.securityManager }

    func send(_ pdu: [UInt8]) async throws { try await channel.send(pdu) }

    var incoming: AsyncStream<[UInt8]> { channel.incoming }
}

/// One link's channel 0x0006 shared by successive pairing attempts on it.
///
/// The channel's stream has one consumer for the life of the link, and a pairing procedure stops
/// reading (and cancels its reader) when it ends; so this reads the channel once and hands each
/// attempt a stream of its own. Starting an attempt ends the previous one's stream; PDUs that
/// arrive while no attempt runs are dropped (nothing on this side is listening for them).
final class L2CAPSMPAttempts: Sendable {
    private struct State {
        var current: AsyncStream<[UInt8]>.Continuation?
        var pump: Task<Void, Never>?
        var isClosed = false
    }

    private let channel: L2CAPFixedChannel
    private let state = Locked(State())

    init(link: LEConnection) { channel = link.securityManager }

    deinit { state.withLock { $0.pump?.cancel() } }

    /// A bearer for the next attempt: sends on the channel, receives what arrives from now on.
    func nextAttempt() -> any SMPBearer {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let channel = self.channel
        let previous: AsyncStream<[UInt8]>.Continuation? = state.withLock { state in
            if state.isClosed {
                continuation.finish()
                return nil
            }
            defer { state.current = continuation }
            if state.pump == nil {
                state.pump = Task { [weak self] in
                    for await pdu in channel.incoming {
                        guard let self else { return }
                        self.deliver(pdu)
                    }
                    self?.close()
                }
            }
            return state.current
        }
        previous?.finish()
        return Bearer(channel: channel, incoming: stream)
    }

    private func deliver(_ pdu: [UInt8]) {
        let current = state.withLock { $0.current }
        current?.yield(pdu)
    }

    private func close() {
        let current: AsyncStream<[UInt8]>.Continuation? = state.withLock { state in
            state.isClosed = true
            defer { state.current = nil }
            return state.current
        }
        current?.finish()
    }

    private struct Bearer: SMPBearer {
        let channel: L2CAPFixedChannel
        let incoming: AsyncStream<[UInt8]>

        func send(_ pdu: [UInt8]) async throws { try await channel.send(pdu) }
    }
}
