import Foundation
import HaraldCore

/// The bond store of one `harald` run: the bond file, seen through what this run did with it.
///
/// - Our identity is written to the file only together with the first bond. A run that never
///   stores a bond (every `scan`, every `read` of an open characteristic) leaves the file alone,
///   or absent, and connects from a fresh random address as before; once a bond is stored, the
///   identity the peer learnt is kept with it and every later run connects from it.
/// - It records which bonds lookups found and which bonds were saved, so the command can say
///   whether the link was paired or re-encrypted with a stored bond.
/// - `harald pair` hides the stored bond of its target: the lookups find none, so the backend
///   pairs afresh, and the new bond replaces the old one only once pairing succeeded.
actor SessionBondStore: BondStore {
    private let base: any BondStore
    /// The address (`F0:F1:F2:F3:F4:F5`, either type) whose stored bond lookups do not see.
    private let hidden: String?
    /// Our identity when the file has none yet: generated for this run, saved with a bond.
    private var pendingIdentity: LocalIdentity?
    private(set) var found: [Bond] = []
    private(set) var saved: [Bond] = []

    init(_ base: any BondStore, hidingBondOf hidden: String? = nil) {
        self.base = base
        self.hidden = hidden?.uppercased()
    }

    private func visible(_ bond: Bond?) -> Bond? {
        guard let bond else { return nil }
        if let hidden, bond.identityAddress.string == hidden || bond.lastAddress.string == hidden { return nil }
        found.append(bond)
        return bond
    }

    func bond(for identity: BluetoothAddress) async throws(BondStoreError) -> Bond? {
        visible(try await base.bond(for: identity))
    }

    func bond(resolving address: BluetoothAddress) async throws(BondStoreError) -> Bond? {
        visible(try await base.bond(resolving: address))
    }

    func save(_ bond: Bond) async throws(BondStoreError) {
        if let identity = pendingIdentity {
            try await base.setLocalIdentity(identity)
            pendingIdentity = nil
        }
        try await base.save(bond)
        saved.append(bond)
    }

    @discardableResult
    func removeBond(for identity: BluetoothAddress) async throws(BondStoreError) -> Bond? {
        try await base.removeBond(for: identity)
    }

    func allBonds() async throws(BondStoreError) -> [Bond] { try await base.allBonds() }

    func localIdentity() async throws(BondStoreError) -> LocalIdentity? {
        if let pendingIdentity { return pendingIdentity }
        return try await base.localIdentity()
    }

    func setLocalIdentity(_ identity: LocalIdentity?) async throws(BondStoreError) {
        guard let identity else {
            pendingIdentity = nil
            try await base.setLocalIdentity(nil)
            return
        }
        // A store that has an identity keeps it unless told otherwise; a new one waits for a bond.
        if try await base.localIdentity() == nil {
            pendingIdentity = identity
        } else {
            try await base.setLocalIdentity(identity)
        }
    }
}
