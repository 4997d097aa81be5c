import HaraldCore
import HaraldSMP

/// Which bonded peer a resolvable private address belongs to, and where each bonded peer was last
/// seen: how the HCI backend recognises a bonded device that changed its address, in scan results
/// and when connecting to it by its identity.
///
/// The IRKs come from the bond store, reloaded when its ``BondStore/revision()`` changes (a store
/// that cannot tell is reloaded at every scan start and after this backend stores a bond).
/// Answers are cached (``AddressResolvingList``), so an advertiser seen again costs no AES.
actor BondedAddressBook {
    private let bonds: any BondStore
    private var list = AddressResolvingList([])
    private var loaded = false
    private var loadedRevision: UInt64?
    /// Identity → the resolvable private address it was last seen at; only bonded identities.
    private var lastSeen: [BluetoothAddress: BluetoothAddress] = [:]

    init(bonds: any BondStore) { self.bonds = bonds }

    /// Reloads the IRKs when the store changed since the last load, or always with `force`.
    func refresh(force: Bool = false) async {
        let revision = await bonds.revision()
        if loaded, !force, revision == nil || revision == loadedRevision { return }
        guard let all = try? await bonds.allBonds() else { return }
        let entries = all.compactMap { bond in
            bond.peerIdentityResolvingKey.map { AddressResolvingList.Entry(identity: bond.identityAddress, key: $0) }
        }
        list = AddressResolvingList(entries)
        loaded = true
        loadedRevision = revision
        let identities = Set(entries.map(\.identity))
        lastSeen = lastSeen.filter { identities.contains($0.key) }
    }

    /// The identity of the bonded peer whose IRK resolves `address`, remembering that it was
    /// seen there; nil when `address` is not a resolvable private address of a bonded peer.
    func identity(of address: BluetoothAddress) async -> BluetoothAddress? {
        guard address.isResolvablePrivate else { return nil }
        await refresh()
        guard let identity = list.identity(of: address) else { return nil }
        lastSeen[identity] = address
        return identity
    }

    /// Where to connect to reach `address`: for a bonded identity last seen at a resolvable private
    /// address, that address; otherwise `address` itself.
    func addressToReach(_ address: BluetoothAddress) -> BluetoothAddress {
        lastSeen[address] ?? address
    }
}
