import HaraldCore

/// Where a connection is, for code that shows it (a status line, a SwiftUI view).
public enum ConnectionState: Hashable, Sendable {
    /// The link is up and this handle is open.
    case connected
    /// The connection ended, and why (the link went down, or this handle disconnected).
    case disconnected(DisconnectReason)
    /// The link was lost (the reason) and the system is making it again by itself
    /// (CoreBluetooth's automatic reconnection, for a connection made with
    /// ``ConnectionOptions/enableAutoReconnect``). This handle has ended like a disconnected
    /// one; ``Central/connect(to:services:options:timeout:)-(PeripheralIdentifier,_,_,_)`` returns the reconnected link, and
    /// ``Central/linkStates(of:)`` says when it is up.
    case reconnecting(after: DisconnectReason)
}

extension PeripheralConnection {
    /// The connection's state now, then its end: `.connected` at once (or the end if it has
    /// ended already), then `.disconnected(reason)` when it ends, after which the stream finishes.
    public nonisolated func states() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self)
        let task = taskStarter.start { [self] in
            if !isEnded { continuation.yield(.connected) }
            let reason = await disconnection()
            if !Task.isCancelled { continuation.yield(isReconnectingBySystem ? .reconnecting(after: reason) : .disconnected(reason)) }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The ATT_MTU now (23 until an exchange raised it; on CoreBluetooth, what the system
    /// negotiated). The stream finishes when the connection ends; the MTU changes at most once
    /// per link, at its start, so an app usually needs just the first value.
    public nonisolated func mtuUpdates() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = taskStarter.start { [self] in
            continuation.yield(await mtu())
            _ = await disconnection()
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The link's signal strength, read every `interval` (on the connection's clock) until the
    /// connection ends — then the stream finishes — or the loop stops. A failed read other than
    /// the connection ending finishes the stream with its error (``BluetoothError/unsupported(_:)``
    /// where the backend cannot read RSSI). A loop that falls behind gets the newest 8 readings.
    public nonisolated func rssiUpdates(every interval: Duration) -> AsyncThrowingStream<RSSI, any Error> {
        // A loop that stops reading for a while gets the newest readings, not a backlog.
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: RSSI.self, bufferingPolicy: .bufferingNewest(8))
        let clock = self.clock
        let task = taskStarter.start { [self] in
            while !Task.isCancelled {
                do {
                    continuation.yield(try await readRSSI(timeout: interval))
                    try await clock.sleep(for: interval)
                } catch {
                    if case BluetoothError.disconnected = error { break }
                    if error is CancellationError || Task.isCancelled { break }
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// True once this handle disconnected or the link ended.
    nonisolated var isEnded: Bool { link.ended.current != nil || isReleased }

    /// True when the link ended (this handle did not let go first) and the system is making it
    /// again by itself.
    nonisolated var isReconnectingBySystem: Bool { !isReleased && link.ended.current != nil && backend.isReconnectingBySystem }
}
