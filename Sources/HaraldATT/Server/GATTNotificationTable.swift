import Foundation
import HaraldCodec

/// What ``GATTServer/notify(handle:value:to:)`` needs, readable without entering the server's
/// actor: which CCCD belongs to which value handle, where each characteristic UUID's value is,
/// for each connection its bearer, its ATT_MTU
/// and the CCCDs that have notifications on, plus the notifications sent (merged into the
/// server's counters when they are read).
///
/// The actor writes it whenever one of those changes (attach, MTU exchange, CCCD write, close,
/// a change of the database), so a notifying task — a peripheral's script — sends without an
/// executor hop into the actor and back out.
final class GATTNotificationTable: @unchecked Sendable {
    // @unchecked Sendable: `cccdHandles`, `valueHandles`, `requirements`, `withheld`, `entries` (and the
    // fields of every `Entry`, reached through it or a `Target`), `sentTotal` and `bytesTotal` are only touched with `lock`
    // held; no code runs under the lock but dictionary and set updates.
    struct Target {
        let connection: GATTConnectionID
        let bearer: any ATTBearer
        let mtu: Int
        fileprivate let entry: Entry
    }

    /// One connection's state; a class so a lookup copies nothing. Guarded by the table's lock.
    fileprivate final class Entry {
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

    private let lock = NSLock()
    /// Value handle → the handle of its CCCD.
    private var cccdHandles: [UInt16: UInt16] = [:]
    /// Characteristic UUID → the value handle of the first characteristic with it.
    private var valueHandles: [BluetoothUUID: UInt16] = [:]
    /// Value handle → what reading it needs: notifications of it go only to links that meet it.
    private var requirements: [UInt16: GATTSecurityRequirement] = [:]
    /// Value handle → notifications and indications not sent because the link's security did
    /// not meet the value's read security.
    private var withheld: [UInt16: Int] = [:]
    private var entries: [GATTConnectionID: Entry] = [:]
    private var sentTotal = 0
    private var bytesTotal = 0

    /// The CCCD of the characteristic whose value is at `valueHandle`.
    func cccd(forValueHandle valueHandle: UInt16) -> UInt16? {
        lock.lock()
        defer { lock.unlock() }
        return cccdHandles[valueHandle]
    }

    /// The value handle of the first characteristic with `uuid`, in handle order.
    func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        lock.lock()
        defer { lock.unlock() }
        return valueHandles[uuid]
    }

    /// Takes the layout of a (new) database — value handle → CCCD handle, characteristic UUID →
    /// first value handle — and turns notifications off on every connection for the CCCDs
    /// in `forgetting` (those of removed services).
    func setLayout(
        _ layout: [UInt16: UInt16], valueHandles: [BluetoothUUID: UInt16], requirements: [UInt16: GATTSecurityRequirement],
        forgetting: Set<UInt16> = []
    ) {
        lock.lock()
        cccdHandles = layout
        self.requirements = requirements
        self.valueHandles = valueHandles
        for entry in entries.values { entry.enabled.subtract(forgetting) }
        lock.unlock()
    }

    func add(_ connection: GATTConnectionID, bearer: any ATTBearer, security: GATTSecurity) {
        lock.lock()
        entries[connection] = Entry(bearer: bearer, security: security)
        lock.unlock()
    }

    func setSecurity(_ security: GATTSecurity, for connection: GATTConnectionID) {
        lock.lock()
        entries[connection]?.security = security
        lock.unlock()
    }

    /// What reading the value at `valueHandle` needs.
    func requirement(valueHandle: UInt16) -> GATTSecurityRequirement {
        lock.lock()
        defer { lock.unlock() }
        return requirements[valueHandle] ?? .none
    }

    /// Counts one notification or indication of the value at `valueHandle` not sent for lack of
    /// security; returns the count so far.
    @discardableResult
    func countWithheld(valueHandle: UInt16) -> Int {
        lock.lock()
        defer { lock.unlock() }
        withheld[valueHandle, default: 0] += 1
        return withheld[valueHandle] ?? 0
    }

    /// Notifications and indications of the value at `valueHandle` not sent for lack of security.
    func withheldCount(valueHandle: UInt16) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return withheld[valueHandle] ?? 0
    }

    func remove(_ connection: GATTConnectionID) {
        lock.lock()
        entries[connection] = nil
        lock.unlock()
    }

    func setMTU(_ mtu: Int, for connection: GATTConnectionID) {
        lock.lock()
        entries[connection]?.mtu = mtu
        lock.unlock()
    }

    func setNotifications(_ enabled: Bool, cccd: UInt16, for connection: GATTConnectionID) {
        lock.lock()
        if enabled { entries[connection]?.enabled.insert(cccd) } else { entries[connection]?.enabled.remove(cccd) }
        lock.unlock()
    }

    /// The connection, if it has notifications on for the characteristic whose value is at
    /// `valueHandle` and its link meets the value's read security (one that does not is
    /// counted as withheld).
    func target(_ connection: GATTConnectionID, valueHandle: UInt16) -> Target? {
        lock.lock()
        defer { lock.unlock() }
        guard let cccd = cccdHandles[valueHandle], let entry = entries[connection], entry.enabled.contains(cccd) else { return nil }
        guard (requirements[valueHandle] ?? .none).refusal(for: entry.security) == nil else {
            withheld[valueHandle, default: 0] += 1
            return nil
        }
        return Target(connection: connection, bearer: entry.bearer, mtu: entry.mtu, entry: entry)
    }

    /// Every connection with notifications on for the characteristic whose value is at
    /// `valueHandle` whose link meets the value's read security, in connection order; each
    /// subscribed connection left out is counted as withheld.
    func targets(valueHandle: UInt16) -> [Target] {
        lock.lock()
        defer { lock.unlock() }
        guard let cccd = cccdHandles[valueHandle] else { return [] }
        let requirement = requirements[valueHandle] ?? .none
        var targets: [Target] = []
        for (connection, entry) in entries where entry.enabled.contains(cccd) {
            if requirement.refusal(for: entry.security) == nil {
                targets.append(Target(connection: connection, bearer: entry.bearer, mtu: entry.mtu, entry: entry))
            } else {
                withheld[valueHandle, default: 0] += 1
            }
        }
        return targets.sorted { $0.connection.rawValue < $1.connection.rawValue }
    }

    /// Counts a Handle Value Notification of `length` bytes sent to `target`.
    func countSent(_ length: Int, to target: Target) {
        lock.lock()
        target.entry.sent += 1
        target.entry.bytes += length
        sentTotal += 1
        bytesTotal += length
        lock.unlock()
    }

    /// `counters` with the notifications sent on `connection` (every connection when nil) added.
    func adding(to counters: ATTCounters, connection: GATTConnectionID? = nil) -> ATTCounters {
        lock.lock()
        let (sent, bytes) = connection.map { (entries[$0]?.sent ?? 0, entries[$0]?.bytes ?? 0) } ?? (sentTotal, bytesTotal)
        lock.unlock()
        var result = counters
        if sent > 0 { result.pdusSent[.handleValueNotification, default: 0] += sent }
        result.bytesSent += bytes
        return result
    }
}
