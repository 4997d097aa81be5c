#if canImport(Observation)
import HaraldCore
import Observation

/// A connection's state, MTU and signal strength as observable properties, for SwiftUI.
///
/// ```swift
/// @State private var observed: ObservedConnection
/// var body: some View {
///     Text(observed.state == .connected ? "Connected" : "Disconnected")
///         .task { await observed.follow() }
/// }
/// ```
///
/// The properties change on the main actor while ``follow()`` runs (start it in a `.task`, so
/// it stops with the view).
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
@Observable
public final class ObservedConnection {
    /// The connection observed.
    public let connection: PeripheralConnection
    /// Connected, or how it ended.
    public private(set) var state: ConnectionState
    /// The ATT_MTU in effect, once known.
    public private(set) var mtu: Int?
    /// The latest signal strength read, when ``rssiInterval`` is set and the backend reads RSSI.
    public private(set) var rssi: RSSI?
    /// How often ``follow()`` reads the RSSI; nil reads none.
    public let rssiInterval: Duration?

    /// Observes `connection`, reading its RSSI every `rssiInterval`: nil, the default, reads
    /// none (each read is a radio request and, on CoreBluetooth, a delegate round trip; ask for
    /// it when a screen shows the signal).
    public init(_ connection: PeripheralConnection, rssiInterval: Duration? = nil) {
        self.connection = connection
        self.rssiInterval = rssiInterval
        self.state = connection.isEnded ? .disconnected(.localRequest) : .connected
    }

    /// Keeps the properties current until the connection ends or the calling task is cancelled.
    public func follow() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.followState() }
            group.addTask { await self.followMTU() }
            if rssiInterval != nil { group.addTask { await self.followRSSI() } }
        }
    }

    private func followState() async {
        for await state in connection.states() { self.state = state }
    }

    private func followMTU() async {
        for await mtu in connection.mtuUpdates() { self.mtu = mtu }
    }

    private func followRSSI() async {
        guard let interval = rssiInterval else { return }
        // A backend without RSSI ends this stream with an error; rssi then stays nil.
        do {
            for try await rssi in connection.rssiUpdates(every: interval) { self.rssi = rssi }
        } catch {}
    }
}
#endif
