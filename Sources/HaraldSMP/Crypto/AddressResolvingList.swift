import HaraldCore

/// The bonded peers' IRKs, and which identity each resolvable private address seen so far
/// belongs to (Core spec Vol 3 Part H §2.2.2, Vol 6 Part B §1.3.2.3): the host's counterpart of a
/// controller's resolving list.
///
/// Resolving an address costs one AES block per IRK, and a scanner sees the same address many
/// times a second, so every answer (a match or no match) is kept in a cache of at most
/// ``capacity`` addresses, the oldest answer dropped first. An all-zero IRK is never used: it
/// would let anyone make addresses that "resolve" to that peer.
public struct AddressResolvingList: Sendable {
    /// A bonded peer: its identity address and its IRK.
    public struct Entry: Hashable, Sendable {
        /// The bonded device's identity address.
        public var identity: BluetoothAddress
        /// The IRK it gave when pairing.
        public var key: IdentityResolvingKey

        /// An entry for one bonded device.
        public init(identity: BluetoothAddress, key: IdentityResolvingKey) {
            self.identity = identity
            self.key = key
        }
    }

    /// The most addresses whose answers are kept.
    public let capacity: Int
    private let entries: [Entry]
    /// Address → the identity it resolved to, or nil for an address no IRK resolves.
    private var answers: [BluetoothAddress: BluetoothAddress?] = [:]
    /// The cached addresses in the order they were answered (a ring of `capacity` slots).
    private var order: [BluetoothAddress] = []
    private var oldest = 0
    /// How many times an address was checked against the IRKs (cache misses), for tests.
    public private(set) var computations = 0

    /// A list of `entries` (those with an all-zero IRK are left out), caching at most `capacity`
    /// answers (at least 1).
    public init(_ entries: [Entry], capacity: Int = 256) {
        self.entries = entries.filter { entry in
            entry.key.key.withUnsafeKeyBytes { bytes in bytes.contains { $0 != 0 } }
        }
        self.capacity = max(capacity, 1)
    }

    /// How many IRKs the list resolves with.
    public var count: Int { entries.count }

    /// How many answers are cached.
    public var cachedCount: Int { answers.count }

    /// The identity address whose IRK resolves `address`; nil when none does or `address` is not a
    /// resolvable private address.
    public mutating func identity(of address: BluetoothAddress) -> BluetoothAddress? {
        guard address.isResolvablePrivate, !entries.isEmpty else { return nil }
        if let known = answers[address] { return known }
        computations += 1
        let identity = entries.first { $0.key.resolves(address) }?.identity
        remember(identity, for: address)
        return identity
    }

    private mutating func remember(_ identity: BluetoothAddress?, for address: BluetoothAddress) {
        if order.count < capacity {
            order.append(address)
        } else {
            answers.removeValue(forKey: order[oldest])
            order[oldest] = address
            oldest = (oldest + 1) % capacity
        }
        answers[address] = .some(identity)
    }
}
