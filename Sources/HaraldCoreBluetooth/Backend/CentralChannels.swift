import Foundation
import Harald
import HaraldCore

// L2CAP channels opened by the central: `openL2CAPChannel(_:)` and its `didOpen` answer.
//
// CoreBluetooth's answer does not say which open it answers, so the backend hands CoreBluetooth
// one open per peripheral at a time: the next waits until the previous is answered, fails, times
// out or is cancelled. An answer is taken as the open in flight's when it carries no channel (an
// error) or a channel on that open's PSM. A channel on the PSM of an open given up after it was
// sent is that open's late answer, and is closed at once; so is any other channel nobody asked for,
// unless the platform glue takes it (the app's own opens through the `CBPeripheral`). The one case
// told wrongly: an error answering an open given up, arriving while a later open is in flight,
// fails the later one.

extension CoreBluetoothBackend {
    /// An L2CAP channel open waiting its turn or CoreBluetooth's answer.
    struct ChannelOpen {
        let id: UInt64
        let psm: UInt16
        /// `L2CAPChannelOptions/receiveBuffer` for the channel.
        let receiveBuffer: Int
        /// Queued for CoreBluetooth (the open in flight).
        var issued = false
        /// CoreBluetooth got the call.
        var sent = false
    }

    /// Opens an L2CAP channel on `psm` over connection `generation` of `uuid`, within `timeout`.
    func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration, on uuid: UUID, generation: UInt64) async throws
        -> any L2CAPChannelBackend
    {
        let reply = try await perform("opening an L2CAP channel on \(psm)", timeout: timeout, cleanup: .channelOpen(uuid)) { state, id in
            guard let link = state.links[uuid] else { return .fail(.disconnected(.localRequest)) }
            guard link.phase == .connected, link.generation == generation else { return .fail(.disconnected(link.endReason(of: generation))) }
            state.links[uuid]?.channelOpens.append(ChannelOpen(id: id, psm: psm.rawValue, receiveBuffer: options.receiveBuffer))
            issueNextOpen(of: uuid, in: &state)
            return .proceed(nil)
        }
        guard case .channel(let channel) = reply else { throw BluetoothError.backend("CoreBluetooth answered an L2CAP open with \(reply)") }
        return channel
    }

    /// Hands CoreBluetooth the oldest waiting open of `uuid` when none is in flight (lock held).
    func issueNextOpen(of uuid: UUID, in state: inout State) {
        guard var link = state.links[uuid], link.phase == .connected, let first = link.channelOpens.first, !first.issued else { return }
        link.channelOpens[0].issued = true
        state.links[uuid] = link
        let (id, psm, peripheral) = (first.id, first.psm, link.peripheral)
        state.outbox.append(
            OutgoingCall(
                isWanted: { state in
                    guard state.pending[id] != nil, let index = state.links[uuid]?.channelOpens.firstIndex(where: { $0.id == id }) else { return false }
                    state.links[uuid]?.channelOpens[index].sent = true
                    return true
                }, make: { _ in peripheral.openL2CAPChannel(psm) }))
    }

    /// Open `id` of `uuid` ended without an answer (timeout, cancellation; lock held): if
    /// CoreBluetooth had it, its late channel will be closed; the next open goes.
    func channelOpenEnded(_ id: UInt64, on uuid: UUID, in state: inout State) {
        guard var link = state.links[uuid], let index = link.channelOpens.firstIndex(where: { $0.id == id }) else { return }
        let open = link.channelOpens.remove(at: index)
        if open.sent {
            link.abandonedOpens.append(open.psm)
            if link.abandonedOpens.count > 8 { link.abandonedOpens.removeFirst() }
        }
        state.links[uuid] = link
        issueNextOpen(of: uuid, in: &state)
    }

    /// Forgets a channel of `uuid` that closed.
    private func channelClosed(_ key: ObjectIdentifier, of uuid: UUID) {
        state.withLock { _ = $0.links[uuid]?.channels.removeValue(forKey: key) }
    }

    /// What an L2CAP open's answer leads to.
    private enum OpenOutcome {
        case answer(Pending, Result<Reply, any Error>)
        case close
        case unclaimed(((Peripheral, Peripheral.L2CAPChannel?, (any Error)?) -> Void)?)
        case ignore
    }

    /// The answer to the open in flight (see the top of this file for how it is matched): the
    /// channel, or the error mapped as `CoreBluetoothErrorMapping` does (a link gone is
    /// `BluetoothError/disconnected(_:)`).
    public func peripheral(_ peripheral: Peripheral, didOpen channel: Peripheral.L2CAPChannel?, error: (any Error)?) {
        let uuid = peripheral.identifier
        let outcome = state.withLock { state -> OpenOutcome in
            guard var link = state.links[uuid] else { return .unclaimed(state.unclaimedChannel) }
            if let first = link.channelOpens.first, first.issued, channel.map({ $0.psm == first.psm }) ?? true {
                link.channelOpens.removeFirst()
                state.links[uuid] = link
                issueNextOpen(of: uuid, in: &state)
                guard let pending = state.pending.removeValue(forKey: first.id) else { return channel == nil ? .ignore : .close }
                guard let channel else {
                    let failure = error.map { CoreBluetoothErrorMapping.bluetoothError($0, attribute: nil, keys: keys) }
                    return .answer(pending, .failure(failure ?? .backend("CoreBluetooth opened no L2CAP channel and gave no reason")))
                }
                guard let input = channel.inputStream, let output = channel.outputStream else {
                    return .answer(pending, .failure(BluetoothError.backend("CoreBluetooth opened an L2CAP channel without streams")))
                }
                let made = StreamChannel(psm: L2CAPPSM(channel.psm), input: input, output: output, owner: channel, receiveBuffer: first.receiveBuffer)
                state.links[uuid]?.channels[ObjectIdentifier(made)] = made
                return .answer(pending, .success(.channel(made)))
            }
            if let channel, let index = link.abandonedOpens.firstIndex(of: channel.psm) {
                link.abandonedOpens.remove(at: index)
                state.links[uuid] = link
                return .close
            }
            if channel == nil, !link.abandonedOpens.isEmpty {
                link.abandonedOpens.removeFirst()
                state.links[uuid] = link
                return .ignore
            }
            return .unclaimed(state.unclaimedChannel)
        }
        sendOutbox()
        switch outcome {
        case .answer(let pending, let result):
            if case .success(.channel(let made as StreamChannel)) = result {
                let key = ObjectIdentifier(made)
                made.whenClosed { [weak self] in self?.channelClosed(key, of: uuid) }
            }
            deliver([(pending, result)])
        case .close:
            Self.closeUnused(channel)
        case .unclaimed(let handler):
            if let handler { handler(peripheral, channel, error) } else { Self.closeUnused(channel) }
        case .ignore:
            break
        }
    }

    /// Closes the streams of a channel the backend does not use (they were never scheduled).
    static func closeUnused(_ channel: Peripheral.L2CAPChannel?) {
        channel?.inputStream?.close()
        channel?.outputStream?.close()
    }

    /// Channels open on `uuid`'s current connection.
    package func openChannelCount(on peripheral: PeripheralIdentifier) -> Int {
        guard let uuid = UUID(uuidString: peripheral.rawValue) else { return 0 }
        return state.withLock { $0.links[uuid]?.channels.count ?? 0 }
    }
}

extension CoreBluetoothConnection {
    /// Opens an L2CAP channel with `openL2CAPChannel(_:)`, one open per peripheral at a time (the
    /// answer names no PSM), failing with `BluetoothError/timeout(operation:after:)` when no
    /// answer comes within `timeout` (CoreBluetooth may never answer) and with
    /// `BluetoothError/disconnected(_:)` when the link goes first. The channel's `mtu` and
    /// `peerMTU` are nil: CoreBluetooth does not say them.
    nonisolated(nonsending) public func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration)
        async throws(BluetoothError) -> any L2CAPChannelBackend
    {
        try await withBluetoothErrors {
            try await backend.openL2CAPChannel(psm: psm, options: options, timeout: timeout, on: identifier, generation: generation)
        }
    }
}
