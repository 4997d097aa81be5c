import Harald
import HaraldCore
import HaraldHCI
import HaraldL2CAP

/// A connection-oriented channel of the HCI host as the public API's channel backend: one element
/// per SDU, credits back to the peer as ``receive()`` takes them.
final class HCIChannel: L2CAPChannelBackend {
    let channel: L2CAPCreditBasedChannel
    let psm: L2CAPPSM

    init(_ channel: L2CAPCreditBasedChannel) {
        self.channel = channel
        psm = L2CAPPSM(channel.info.spsm)
    }

    var mtu: Int? { channel.info.mtu }
    var peerMTU: Int? { channel.peerMTU }

    func send(_ sdu: [UInt8]) async throws(BluetoothError) {
        do throws(HCIError) { try await channel.send(sdu) } catch { throw Self.translate(error) }
    }

    func receive() async throws(BluetoothError) -> [UInt8]? {
        do throws(HCIError) { return try await channel.receive() } catch { throw Self.translate(error) }
    }

    func closeReason() async -> L2CAPChannelCloseReason? { channel.closeReason.map(Self.reason) }

    func close() async { await channel.close() }

    /// The public API's options as the engine's receive limits.
    static func limits(_ options: L2CAPChannelOptions) -> CreditBasedReceiveLimits {
        CreditBasedReceiveLimits(mtu: options.mtu, mps: options.mps, bufferCapacity: options.receiveBuffer)
    }

    static func mode(_ mode: L2CAPChannelMode) -> CreditBasedMode { mode == .leCreditBased ? .leCreditBased : .enhancedCreditBased }

    static func reason(_ reason: ChannelCloseReason) -> L2CAPChannelCloseReason {
        switch reason {
        case .closedLocally: .localRequest
        case .closedByPeer: .remoteRequest
        case .linkLost: .linkLost
        case .timedOut: .localRequest
        case let .protocolViolation(violation): .protocolViolation(describe(violation))
        }
    }

    static func describe(_ violation: ChannelViolation) -> String {
        switch violation {
        case let .kFrame(.sduTooLong(length, mtu)): "an SDU of \(length) bytes over the MTU of \(mtu)"
        case let .kFrame(.frameTooLong(length, mps)): "a K-frame of \(length) bytes over the MPS of \(mps)"
        case .kFrame(.missingSDULength): "a first K-frame without its SDU length"
        case let .kFrame(.sduOverrun(expected, received)): "an SDU of \(received) bytes announced as \(expected)"
        case let .kFrame(.mpsTooSmall(mps)): "an MPS of \(mps)"
        case .frameWithoutCredit: "a K-frame sent without credit"
        case let .creditOverflow(overflow): "credits past 65,535 (\(overflow.held) held, \(overflow.granted) granted)"
        case .invalidParameters: "an answer with parameters the mode forbids"
        }
    }

    static func translate(_ error: HCIError, timeout: Duration = .zero) -> BluetoothError {
        switch error {
        case let .channelClosed(reason): .channelClosed(Self.reason(reason))
        case let .channelOpenFailed(.refused(result)): .channelRefused(L2CAPChannelRefusal(rawValue: result.rawValue))
        case .channelOpenFailed(.commandRejected): .unsupported("credit-based channels on this peer (it rejected the request)")
        case .channelOpenFailed(.invalidResponse): .protocolViolation("the peer opened the channel with parameters the mode forbids")
        case .channelOpenFailed(.timedOut): .timeout(operation: "opening an L2CAP channel", after: timeout)
        case .channelOpenFailed(.linkLost): .disconnected(.connectionLost)
        case let .busy(detail): .misuse(detail)
        case let .unsupported(detail): .misuse(detail)
        default: HCICentralBackend.translate(error)
        }
    }
}

/// The channels centrals open on one SPSM an ``HCIPeripheral`` serves, as the public API's
/// channel server: each named by its central as the served definition names it.
final class HCIChannelServer: L2CAPChannelServerBackend {
    let psm: L2CAPPSM
    private let listener: CreditBasedChannelListener
    private let peripheral: HCIPeripheral
    /// Whether ``channels()`` was called (the listener has one stream, so there is one consumer).
    private let taken = Locked(false)

    init(listener: CreditBasedChannelListener, peripheral: HCIPeripheral) {
        self.listener = listener
        self.peripheral = peripheral
        psm = L2CAPPSM(listener.spsm)
    }

    /// Each channel with its central; one consumer (a second call gets a finished stream).
    func channels() -> AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)> {
        guard
            taken.withLock({ taken in
                defer { taken = true }
                return !taken
            })
        else { return AsyncStream { $0.finish() } }
        let (listener, peripheral) = (listener, peripheral)
        return AsyncStream { continuation in
            let task = Task {
                for await channel in listener.channels {
                    guard let connection = await peripheral.serverConnection(ofHandle: channel.connectionHandle) else {
                        await channel.close()
                        continue
                    }
                    continuation.yield((CentralIdentifier(connection), HCIChannel(channel)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func stop() async { await listener.stop() }
}
