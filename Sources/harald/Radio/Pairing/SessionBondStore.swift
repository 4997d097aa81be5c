import Foundation
import HaraldCore

/// The bond store of one `harald` run: the bond file, seen through what this run did with it.
///
/// - Our identity is written to the file only together with the first bond. A run that never
///   stores a bond (every `scan`, every `read` of an open characteristic) leaves the file alone,
///   or absent, and connects from a fresh random address as before; once a bond is stored, the
///   identity the peer learnt is kept with it and every later run connects from it.
/// - A bond saved again unchanged (a backend noting where a bonded peer was seen, at the address
///   it was seen at before) is not written: re-encrypting leaves the file as it was.
/// - It records which bonds lookups found and which bonds were saved, so the command can say
///   whether the link was paired or re-encrypted with a stored bond.
actor SessionBondStore: BondStore {
    private let base: any BondStore
    /// Our identity when the file has none yet: generated for this run, saved with a bond.
    private var pendingIdentity: LocalIdentity?
    private(set) var found: [Bond] = []
    private(set) var saved: [Bond] = []

    init(_ base: any BondStore) {
        self.base = base
    }

    private func visible(_ bond: Bond?) -> Bond? {
        if let bond { found.append(bond) }
        return bond
    }

    func bond(for identity: BluetoothAddress) async throws(BondStoreError) -> Bond? {
        visible(try await base.bond(for: identity))
    }

    func bond(resolving address: BluetoothAddress) async throws(BondStoreError) -> Bond? {
        visible(try await base.bond(resolving: address))
    }

    func save(_ bond: Bond) async throws(BondStoreError) {
        if try await base.bond(for: bond.identityAddress) == bond { return }
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
