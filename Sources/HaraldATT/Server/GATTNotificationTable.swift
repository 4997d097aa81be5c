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
    // @unchecked Sendable: `cccdHandles`, `valueHandles`, `entries` (and the fields of every `Entry`, reached
    // through it or a `Target`), `sentTotal` and `bytesTotal` are only touched with `lock`
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
        /// CCCD handles whose notifications bit is set.
        var enabled: Set<UInt16> = []
        var sent = 0
        var bytes = 0

        init(bearer: any ATTBearer) { self.bearer = bearer }
    }

    private let lock = NSLock()
    /// Value handle → the handle of its CCCD.
    private var cccdHandles: [UInt16: UInt16] = [:]
    /// Characteristic UUID → the value handle of the first characteristic with it.
    private var valueHandles: [BluetoothUUID: UInt16] = [:]
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
    func setLayout(_ layout: [UInt16: UInt16], valueHandles: [BluetoothUUID: UInt16], forgetting: Set<UInt16> = []) {
        lock.lock()
        cccdHandles = layout
        self.valueHandles = valueHandles
        for entry in entries.values { entry.enabled.subtract(forgetting) }
        lock.unlock()
    }

    func add(_ connection: GATTConnectionID, bearer: any ATTBearer) {
        lock.lock()
        entries[connection] = Entry(bearer: bearer)
        lock.unlock()
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

    /// The connection, if it has notifications on for the characteristic whose value is at `valueHandle`.
    func target(_ connection: GATTConnectionID, valueHandle: UInt16) -> Target? {
        lock.lock()
        defer { lock.unlock() }
        guard let cccd = cccdHandles[valueHandle], let entry = entries[connection], entry.enabled.contains(cccd) else { return nil }
        return Target(connection: connection, bearer: entry.bearer, mtu: entry.mtu, entry: entry)
    }

    /// Every connection with notifications on for the characteristic whose value is at
    /// `valueHandle`, in connection order.
    func targets(valueHandle: UInt16) -> [Target] {
        lock.lock()
        defer { lock.unlock() }
        guard let cccd = cccdHandles[valueHandle] else { return [] }
        return entries.filter { $0.value.enabled.contains(cccd) }
            .sorted { $0.key.rawValue < $1.key.rawValue }
            .map { Target(connection: $0.key, bearer: $0.value.bearer, mtu: $0.value.mtu, entry: $0.value) }
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
