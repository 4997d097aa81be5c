import HaraldCodec
import HaraldCore

/// What ``GATTServer/notify(handle:value:to:)`` needs, readable without entering the server's
/// actor: which CCCD belongs to which value handle, where each characteristic UUID's value is,
/// for each connection its bearer, its ATT_MTU
/// and the CCCDs that have notifications on, plus the notifications sent (merged into the
/// server's counters when they are read).
///
/// The actor writes it whenever one of those changes (attach, MTU exchange, CCCD write, close,
/// a change of the database), so a notifying task — a peripheral's script — sends without an
/// executor hop into the actor and back out.
final class GATTNotificationTable: Sendable {
    struct Target {
        let connection: GATTConnectionID
        let bearer: any ATTBearer
        let mtu: Int
    }

    /// One connection's state.
    private struct Entry {
        let bearer: any ATTBearer
        var mtu = ATT.defaultMTU
        /// The link's security, as the server last heard it.
        var security: GATTSecurity
        /// CCCD handles whose notifications bit is set.
        var enabled: Set<UInt16> = []
        var sent = 0
        var bytes = 0

        init(bearer: any ATTBearer, security: GATTSecurity) {
            self.bearer = bearer
            self.security = security
        }
    }

    private struct State {
        /// Value handle → the handle of its CCCD.
        var cccdHandles: [UInt16: UInt16] = [:]
        /// Characteristic UUID → the value handle of the first characteristic with it.
        var valueHandles: [BluetoothUUID: UInt16] = [:]
        /// Value handle → what reading it needs: notifications of it go only to links that meet it.
        var requirements: [UInt16: GATTSecurityRequirement] = [:]
        /// Value handle → notifications and indications not sent because the link's security did
        /// not meet the value's read security, or (notifications) its ATT_MTU − 3 was shorter
        /// than the value.
        var withheld: [UInt16: Int] = [:]
        var entries: [GATTConnectionID: Entry] = [:]
        var sentTotal = 0
        var bytesTotal = 0
        /// What a notification of a characteristic needs, by value handle and by the UUID of the
        /// first characteristic with it: one lookup instead of three on the notification path.
        var notifiableByHandle: [UInt16: Notifiable] = [:]
        var notifiableByUUID: [BluetoothUUID: Notifiable] = [:]
    }

    /// A characteristic that has a CCCD: its value handle, its CCCD and its read security.
    private struct Notifiable {
        let valueHandle: UInt16
        let cccd: UInt16
        let requirement: GATTSecurityRequirement
    }

    private let state = Locked(State())

    /// The CCCD of the characteristic whose value is at `valueHandle`.
    func cccd(forValueHandle valueHandle: UInt16) -> UInt16? {
        state.withLock { $0.cccdHandles[valueHandle] }
    }

    /// The value handle of the first characteristic with `uuid`, in handle order.
    func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        state.withLock { $0.valueHandles[uuid] }
    }

    /// Takes the layout of a (new) database — value handle → CCCD handle, characteristic UUID →
    /// first value handle — and turns notifications off on every connection for the CCCDs
    /// in `forgetting` (those of removed services).
    func setLayout(
        _ layout: [UInt16: UInt16], valueHandles: [BluetoothUUID: UInt16], requirements: [UInt16: GATTSecurityRequirement],
        forgetting: Set<UInt16> = []
    ) {
        state.withLock { state in
            state.cccdHandles = layout
            state.requirements = requirements
            state.valueHandles = valueHandles
            state.notifiableByHandle = layout.reduce(into: [:]) { table, pair in
                table[pair.key] = Notifiable(valueHandle: pair.key, cccd: pair.value, requirement: requirements[pair.key] ?? .none)
            }
            state.notifiableByUUID = valueHandles.reduce(into: [:]) { table, pair in
                if let notifiable = state.notifiableByHandle[pair.value] { table[pair.key] = notifiable }
            }
            guard !forgetting.isEmpty else { return }
            for connection in Array(state.entries.keys) { state.entries[connection]?.enabled.subtract(forgetting) }
        }
    }

    func add(_ connection: GATTConnectionID, bearer: any ATTBearer, security: GATTSecurity) {
        state.withLock { $0.entries[connection] = Entry(bearer: bearer, security: security) }
    }

    func setSecurity(_ security: GATTSecurity, for connection: GATTConnectionID) {
        state.withLock { $0.entries[connection]?.security = security }
    }

    /// What reading the value at `valueHandle` needs.
    func requirement(valueHandle: UInt16) -> GATTSecurityRequirement {
        state.withLock { $0.requirements[valueHandle] ?? .none }
    }

    /// Counts one notification or indication of the value at `valueHandle` not sent for lack of
    /// security; returns the count so far.
    @discardableResult
    func countWithheld(valueHandle: UInt16) -> Int {
        state.withLock { state in
            state.withheld[valueHandle, default: 0] += 1
            return state.withheld[valueHandle] ?? 0
        }
    }

    /// Notifications and indications of the value at `valueHandle` not sent for lack of security,
    /// and notifications of it not sent because the link could not carry the whole value.
    func withheldCount(valueHandle: UInt16) -> Int {
        state.withLock { $0.withheld[valueHandle] ?? 0 }
    }

    func remove(_ connection: GATTConnectionID) {
        _ = state.withLock { $0.entries.removeValue(forKey: connection) }
    }

    func setMTU(_ mtu: Int, for connection: GATTConnectionID) {
        state.withLock { $0.entries[connection]?.mtu = mtu }
    }

    func setNotifications(_ enabled: Bool, cccd: UInt16, for connection: GATTConnectionID) {
        state.withLock { state in
            if enabled { state.entries[connection]?.enabled.insert(cccd) } else { state.entries[connection]?.enabled.remove(cccd) }
        }
    }

    /// The connection, if it has notifications on for the characteristic whose value is at
    /// `valueHandle` and its link meets the value's read security (one that does not is
    /// counted as withheld) and carries `valueLength` bytes in a notification (ATT_MTU − 3; one
    /// that does not is counted as withheld too).
    func target(_ connection: GATTConnectionID, valueHandle: UInt16, valueLength: Int) -> Target? {
        state.withLock { state in
            guard let notifiable = state.notifiableByHandle[valueHandle], let entry = state.entries[connection], entry.enabled.contains(notifiable.cccd) else {
                return nil
            }
            guard notifiable.requirement.refusal(for: entry.security) == nil, valueLength <= entry.mtu - 3 else {
                state.withheld[valueHandle, default: 0] += 1
                return nil
            }
            return Target(connection: connection, bearer: entry.bearer, mtu: entry.mtu)
        }
    }

    /// ``target(_:valueHandle:)`` for the characteristic at `valueHandle`, or for the first
    /// characteristic with `uuid` when `valueHandle` is nil, with the notification counted as
    /// sent at once (one lock for both): the caller takes the count back with
    /// ``uncount(_:to:)`` if its bearer refuses the PDU. Returns the target, the value handle and
    /// the PDU's length (the value plus the 3-byte header). A connection whose ATT_MTU − 3 is
    /// shorter than the value is not claimed: the value is counted as withheld, never cut.
    func claim(_ connection: GATTConnectionID, valueHandle: UInt16?, uuid: BluetoothUUID?, valueLength: Int) -> (
        target: Target, valueHandle: UInt16, length: Int
    )? {
        state.withLock { state in
            guard let notifiable = valueHandle.map({ state.notifiableByHandle[$0] }) ?? uuid.flatMap({ state.notifiableByUUID[$0] }),
                let index = state.entries.index(forKey: connection)
            else { return nil }
            // The entry is read and counted in place (a copy would retain its bearer and set).
            let claimed = Self.claim(&state.entries.values[index], notifiable, valueLength: valueLength)
            switch claimed {
            case nil: return nil
            case .withheld?:
                state.withheld[notifiable.valueHandle, default: 0] += 1
                return nil
            case .claimed(let bearer, let mtu, let length)?:
                state.sentTotal += 1
                state.bytesTotal += length
                return (Target(connection: connection, bearer: bearer, mtu: mtu), notifiable.valueHandle, length)
            }
        }
    }

    private enum Claim {
        case claimed(bearer: any ATTBearer, mtu: Int, length: Int)
        case withheld
    }

    /// The part of ``claim(_:valueHandle:uuid:valueLength:)`` on one connection's entry.
    private static func claim(_ entry: inout Entry, _ notifiable: Notifiable, valueLength: Int) -> Claim? {
        guard entry.enabled.contains(notifiable.cccd) else { return nil }
        guard notifiable.requirement.refusal(for: entry.security) == nil, valueLength <= entry.mtu - 3 else { return .withheld }
        let length = 3 + valueLength
        entry.sent += 1
        entry.bytes += length
        return .claimed(bearer: entry.bearer, mtu: entry.mtu, length: length)
    }

    /// Takes back a notification ``claim(_:valueHandle:uuid:valueLength:)`` counted and the
    /// bearer refused.
    func uncount(_ length: Int, to target: Target) {
        state.withLock { state in
            if let index = state.entries.index(forKey: target.connection) {
                state.entries.values[index].sent -= 1
                state.entries.values[index].bytes -= length
            }
            state.sentTotal -= 1
            state.bytesTotal -= length
        }
    }

    /// Every connection with notifications on for the characteristic whose value is at
    /// `valueHandle` whose link meets the value's read security and carries `valueLength` bytes
    /// in a notification (ATT_MTU − 3), in connection order; each subscribed connection left out
    /// is counted as withheld.
    func targets(valueHandle: UInt16, valueLength: Int) -> [Target] {
        state.withLock { state in
            guard let notifiable = state.notifiableByHandle[valueHandle] else { return [] }
            var targets: [Target] = []
            for (connection, entry) in state.entries where entry.enabled.contains(notifiable.cccd) {
                if notifiable.requirement.refusal(for: entry.security) == nil, valueLength <= entry.mtu - 3 {
                    targets.append(Target(connection: connection, bearer: entry.bearer, mtu: entry.mtu))
                } else {
                    state.withheld[valueHandle, default: 0] += 1
                }
            }
            return targets.sorted { $0.connection.rawValue < $1.connection.rawValue }
        }
    }

    /// Counts a Handle Value Notification of `length` bytes sent to `target`.
    func countSent(_ length: Int, to target: Target) {
        state.withLock { state in
            if let index = state.entries.index(forKey: target.connection) {
                state.entries.values[index].sent += 1
                state.entries.values[index].bytes += length
            }
            state.sentTotal += 1
            state.bytesTotal += length
        }
    }

    /// `counters` with the notifications sent on `connection` (every connection when nil) added.
    func adding(to counters: ATTCounters, connection: GATTConnectionID? = nil) -> ATTCounters {
        let (sent, bytes) = state.withLock { state in
            connection.map { (state.entries[$0]?.sent ?? 0, state.entries[$0]?.bytes ?? 0) } ?? (state.sentTotal, state.bytesTotal)
        }
        var result = counters
        if sent > 0 { result.pdusSent[.handleValueNotification, default: 0] += sent }
        result.bytesSent += bytes
        return result
    }
}
