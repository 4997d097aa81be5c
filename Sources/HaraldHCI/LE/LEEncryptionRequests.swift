import HaraldCore

/// The LE Enable Encryption requests of a central, one per link at most: who waits for each
/// link's Encryption Change (or Encryption Key Refresh Complete, on a link encrypted already),
/// with its timer, and what an event means for it.
///
/// LE Enable Encryption (Core spec Vol 4 Part E §7.8.24) is answered by Command Status and then,
/// when the link layers have agreed, by Encryption Change (§7.7.8) on a link in clear or
/// Encryption Key Refresh Complete (§7.7.39) on an encrypted one. A value the host drives, like
/// ``LECentralConnector``: `Waiter` is the caller's continuation and `Timer` the host's timer
/// identity (tests use plain values).
package struct LEEncryptionRequests<Waiter, Timer> {
    package struct Request {
        /// The request's identity: a step for another (ended) request does nothing.
        package let id: UInt64
        /// Who gets the outcome.
        package let waiter: Waiter
        /// The bound on the controller's answer.
        package var timer: Timer?
    }

    /// The request under way on each link, by connection handle.
    package private(set) var requests: [UInt16: Request] = [:]

    /// No request.
    package init() {}

    /// Starts request `id` on link `handle`; false (nothing changes) when one is under way there.
    package mutating func begin(handle: UInt16, id: UInt64, waiter: Waiter) -> Bool {
        guard requests[handle] == nil else { return false }
        requests[handle] = Request(id: id, waiter: waiter)
        return true
    }

    /// Sets request `id`'s timer; false (the host stops the timer) when it is no longer under way.
    package mutating func arm(_ timer: Timer, handle: UInt16, id: UInt64) -> Bool {
        guard requests[handle]?.id == id else { return false }
        requests[handle]?.timer = timer
        return true
    }

    /// Ends the request on `handle` (only request `id`, when given) and returns it: the host stops
    /// its timer and resumes its waiter.
    package mutating func end(handle: UInt16, id: UInt64? = nil) -> Request? {
        guard let request = requests[handle], id == nil || request.id == id else { return nil }
        requests[handle] = nil
        return request
    }

    /// What an Encryption Change means for its link's request: the link is encrypted (with the
    /// key size the controller reported, if it did), or the request failed with the event's status
    /// (Unspecified Error when the status is success but encryption is off).
    package static func outcome(of change: EncryptionChange) -> Result<LinkEncryption, HCIError> {
        guard change.status.isSuccess else { return .failure(.encryptionFailed(change.status)) }
        guard change.isEncrypted else { return .failure(.encryptionFailed(.unspecifiedError)) }
        return .success(LinkEncryption(isEncrypted: true, keySize: change.keySize.map(Int.init)))
    }

    /// What an Encryption Key Refresh Complete means for its link's request; the key size is the
    /// one the link had (`keySize`), as the event reports none.
    package static func outcome(of refresh: EncryptionKeyRefreshComplete, keySize: UInt8?) -> Result<LinkEncryption, HCIError> {
        guard refresh.status.isSuccess else { return .failure(.encryptionFailed(refresh.status)) }
        return .success(LinkEncryption(isEncrypted: true, keySize: keySize.map(Int.init)))
    }
}
