import HaraldCodec
import HaraldCore

// Notifications: sent on the caller's executor from the notification table the actor keeps up
// to date, never through the actor (indications, which wait for a confirmation, stay on it).
extension GATTServer {
    /// Sends a Handle Value Notification of `value` to every connection that enabled
    /// notifications for `handle` (or only to `connection`) and whose link meets the value's read
    /// security and carries the whole value (a notification holds at most ATT_MTU − 3 bytes of
    /// it; a value is never cut). Returns how many were sent; subscribed connections left out for
    /// their security or their ATT_MTU are counted in ``withheldNotifications(valueHandle:)``.
    ///
    /// Runs on the caller's executor, not on the server's actor: it reads the connections'
    /// bearers and CCCD states from a table the actor keeps up to date, so a script notifying at
    /// a high rate costs no hop into the actor and back.
    @discardableResult
    nonisolated(nonsending) public func notify(handle: UInt16, value: [UInt8], to connection: GATTConnectionID? = nil) async -> Int {
        if let connection {
            guard let target = notificationTable.target(connection, valueHandle: handle, valueLength: value.count) else { return 0 }
            return await notify(handle: handle, value: value, target) ? 1 : 0
        }
        var sent = 0
        for target in notificationTable.targets(valueHandle: handle, valueLength: value.count) where await notify(handle: handle, value: value, target) {
            sent += 1
        }
        return sent
    }

    /// Sends a Handle Value Notification of `value` to every connection that enabled
    /// notifications for `handle` (or only to `connection`) and whose bearer can take it right
    /// now without waiting, as a peripheral's radio queue either takes a notification or refuses
    /// it. For synchronous code (a simulated device's timer); never suspends. Returns how many
    /// were sent: a connection whose transmit buffer is full, whose bearer cannot send without
    /// waiting, or that is closing is skipped (its close reaches the server through the bearer);
    /// one whose ATT_MTU − 3 is shorter than the value is skipped and counted as withheld, as by
    /// ``notify(handle:value:to:)``.
    @discardableResult
    public nonisolated func notifyWithoutWaiting(handle: UInt16, value: [UInt8], to connection: GATTConnectionID? = nil) -> Int {
        if let connection {
            return notifyWithoutWaiting(valueHandle: handle, uuid: nil, value: value, to: connection) ? 1 : 0
        }
        var sent = 0
        for target in notificationTable.targets(valueHandle: handle, valueLength: value.count) where notifyWithoutWaiting(handle: handle, value: value, target)
        { sent += 1 }
        return sent
    }

    /// ``notifyWithoutWaiting(handle:value:to:)`` to one connection, for the first characteristic
    /// with `uuid` (in handle order, in the database as it is now): one lookup for the handle, the
    /// connection and its count. For a simulated device notifying from its timer.
    package nonisolated func notifyWithoutWaiting(characteristic uuid: BluetoothUUID, value: [UInt8], to connection: GATTConnectionID) -> Bool {
        notifyWithoutWaiting(valueHandle: nil, uuid: uuid, value: value, to: connection)
    }

    private nonisolated func notifyWithoutWaiting(valueHandle: UInt16?, uuid: BluetoothUUID?, value: [UInt8], to connection: GATTConnectionID) -> Bool {
        guard let (target, handle, _) = notificationTable.claim(connection, valueHandle: valueHandle, uuid: uuid, valueLength: value.count) else {
            return false
        }
        let bytes = Self.notificationPDU(handle: handle, value: value)
        guard target.bearer.sendWithoutWaiting(bytes) == .sent else {
            notificationTable.uncount(bytes.count, to: target)
            return false
        }
        return true
    }

    private nonisolated func notifyWithoutWaiting(handle: UInt16, value: [UInt8], _ target: GATTNotificationTable.Target) -> Bool {
        let bytes = Self.notificationPDU(handle: handle, value: value)
        guard target.bearer.sendWithoutWaiting(bytes) == .sent else { return false }
        notificationTable.countSent(bytes.count, to: target)
        return true
    }

    /// A Handle Value Notification PDU with the whole value (the notification table passed only
    /// targets whose ATT_MTU − 3 holds it).
    private static func notificationPDU(handle: UInt16, value: [UInt8]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(3 + value.count)
        bytes.append(ATTOpcode.handleValueNotification.rawValue)
        bytes.append(UInt8(handle & 0xFF))
        bytes.append(UInt8(handle >> 8))
        bytes.append(contentsOf: value)
        return bytes
    }

    /// Encodes and sends one notification; false when the connection is gone.
    nonisolated(nonsending) private func notify(handle: UInt16, value: [UInt8], _ target: GATTNotificationTable.Target) async -> Bool {
        let bytes = Self.notificationPDU(handle: handle, value: value)
        notificationTable.countSent(bytes.count, to: target)
        do {
            try await target.bearer.send(bytes)
            return true
        } catch {
            await connectionClosed(target.connection, .linkLost(code: nil))
            return false
        }
    }
}
