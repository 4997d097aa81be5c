import Foundation

/// Answers whether a resolvable private address was made from an IRK: `ah(IRK, prand) == hash`
/// (Core spec Vol 3 Part H §2.2.2). HaraldCore has no cryptography; the SMP module provides `ah`
/// and a store is handed the check when it is made.
public typealias PrivateAddressResolver = @Sendable (IdentityResolvingKey, BluetoothAddress) -> Bool

/// Where bonds live between runs: one ``Bond`` per peer identity address, and our own
/// ``LocalIdentity``.
///
/// The Security Manager saves a bond after pairing, looks it up when a peer connects (by identity
/// or by resolving its private address) to re-encrypt the link, and removes it when the user
/// unpairs. Every operation is atomic with respect to the others on the same store.
public protocol BondStore: Sendable {
    /// The bond stored under `identity` (a public or static random address), if any.
    func bond(for identity: BluetoothAddress) async throws(BondStoreError) -> Bond?

    /// The bond of the peer that connected from `address`: looked up directly for an identity
    /// address (else the bond whose peer last connected from it: a peer may distribute an
    /// identity other than the address it connects from, as Bumble gives its public address while
    /// it connects from a static random one), through each bond's IRK for a resolvable private
    /// address, never for a non-resolvable private one.
    func bond(resolving address: BluetoothAddress) async throws(BondStoreError) -> Bond?

    /// Stores `bond`, replacing any bond under the same identity address.
    func save(_ bond: Bond) async throws(BondStoreError)

    /// Forgets the bond under `identity`; returns it, or nil if there was none.
    @discardableResult
    func removeBond(for identity: BluetoothAddress) async throws(BondStoreError) -> Bond?

    /// Every bond, ordered by identity address.
    func allBonds() async throws(BondStoreError) -> [Bond]

    /// Our identity address and IRK, once set.
    func localIdentity() async throws(BondStoreError) -> LocalIdentity?

    /// Keeps `identity` as ours (nil forgets it).
    func setLocalIdentity(_ identity: LocalIdentity?) async throws(BondStoreError)

    /// A number that changes whenever a bond is saved or removed, so a cache built from the
    /// bonds (the HCI backend's list of IRKs that resolve private addresses) knows when to
    /// reload; nil when the store cannot tell (the default), and then such caches reload only
    /// at the points they document.
    func revision() async -> UInt64?
}

extension BondStore {
    public func revision() async -> UInt64? { nil }
}

/// Why a bond store could not read or write. Never carries key material.
public enum BondStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file exists but could not be read (permissions, a directory in its place, I/O).
    case unreadableFile(path: String, reason: String)
    /// The file was read but is not a bond file this version understands: not JSON, a missing or
    /// malformed field, an invalid bond, two bonds for one identity. It is left as it is.
    case corruptFile(path: String, reason: String)
    /// The file was written by a newer Harald (its schema version is higher than ours). It is
    /// left as it is rather than rewritten without the fields this version does not know.
    case unsupportedSchemaVersion(path: String, found: Int, supported: Int)
    /// Writing the new file, or renaming it over the old one, failed; the old file is unchanged.
    case writeFailed(path: String, reason: String)
    /// No default location: neither `XDG_CONFIG_HOME` nor `HOME` is an absolute path, or the
    /// system has no Application Support directory.
    case noDefaultLocation
    /// The file's permissions let other users read or change it (any group or other bit of
    /// `mode`, shown in octal): its keys may already be known to them, or planted. It is neither
    /// read nor rewritten; restrict it (`chmod 600`) once you trust it, or pair again afresh.
    case insecurePermissions(path: String, mode: UInt16)

    /// What failed and on which file, e.g.
    /// `the bond file /path/bonds.json is corrupt (…); it was left untouched`.
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read the bond file \(path): \(reason)"
        case .corruptFile(let path, let reason): "the bond file \(path) is corrupt (\(reason)); it was left untouched"
        case .unsupportedSchemaVersion(let path, let found, let supported):
            "the bond file \(path) has schema version \(found), newer than \(supported); it was left untouched"
        case .writeFailed(let path, let reason): "cannot write the bond file \(path): \(reason)"
        case .noDefaultLocation: "no default location for the bond file (set XDG_CONFIG_HOME or HOME)"
        case .insecurePermissions(let path, let mode):
            "the bond file \(path) has mode 0\(String(mode, radix: 8)), readable or writable by other users; it holds link keys, "
                + "so it was not used: check it, then `chmod 600 \(path)` (or move it aside and pair again)"
        }
    }
}

/// The bonds and local identity a store holds, and the lookups every store shares.
struct BondTable: Hashable, Sendable {
    var bonds: [BluetoothAddress: Bond] = [:]
    var localIdentity: LocalIdentity?

    /// Every bond, ordered by identity address.
    var sortedBonds: [Bond] { bonds.values.sorted { $0.identityAddress < $1.identityAddress } }

    func bond(resolving address: BluetoothAddress, with resolver: PrivateAddressResolver?) -> Bond? {
        if address.isIdentity { return bonds[address] ?? sortedBonds.first { $0.lastAddress == address } }
        guard address.isResolvablePrivate, let resolver else { return nil }
        return sortedBonds.first { bond in
            guard let key = bond.peerIdentityResolvingKey?.nonZero else { return false }
            return resolver(key, address)
        }
    }
}

/// A bond store in memory, for tests and for apps that must not keep bonds.
public actor InMemoryBondStore: BondStore, CustomStringConvertible, CustomReflectable {
    private var table: BondTable
    private let resolver: PrivateAddressResolver?
    private var changes: UInt64 = 0

    /// A store holding `bonds` and `localIdentity`, resolving private addresses with `resolver`
    /// (without one, only identity addresses find a bond).
    public init(bonds: [Bond] = [], localIdentity: LocalIdentity? = nil, resolver: PrivateAddressResolver? = nil) {
        table = BondTable(
            bonds: Dictionary(bonds.map { ($0.identityAddress, $0) }, uniquingKeysWith: { _, last in last }),
            localIdentity: localIdentity)
        self.resolver = resolver
    }

    public func bond(for identity: BluetoothAddress) -> Bond? { table.bonds[identity] }
    public func bond(resolving address: BluetoothAddress) -> Bond? { table.bond(resolving: address, with: resolver) }
    public func save(_ bond: Bond) {
        table.bonds[bond.identityAddress] = bond
        changes &+= 1
    }
    @discardableResult
    public func removeBond(for identity: BluetoothAddress) -> Bond? {
        changes &+= 1
        return table.bonds.removeValue(forKey: identity)
    }
    public func revision() -> UInt64? { changes }
    public func allBonds() -> [Bond] { table.sortedBonds }
    public func localIdentity() -> LocalIdentity? { table.localIdentity }
    public func setLocalIdentity(_ identity: LocalIdentity?) { table.localIdentity = identity }

    /// Never the bonds.
    public nonisolated var description: String { "InMemoryBondStore" }
    /// No children: the bonds stay out of `dump` and debuggers' summaries.
    public nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
