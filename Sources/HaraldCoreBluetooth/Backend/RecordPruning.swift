import Foundation

extension CoreBluetoothBackend {
    /// Drops the least recently used records nothing refers to, down to ``recordLimit`` of them,
    /// once the records outgrow the last pass by ``pruneBatch`` (lock held).
    ///
    /// A record is kept while it is connected or connecting, or an operation, stream or waiter
    /// refers to it (`Link.isUnused`). A dropped one is made again when its peripheral advertises
    /// or connects again; connecting to it finds its peripheral through
    /// `retrievePeripherals(withIdentifiers:)`. Its connection handles, if any, stay ended: the
    /// generations they hold are never given out again.
    func pruneRecords(in state: inout State) {
        guard state.links.count > state.pruneThreshold else { return }
        let unused = state.links.filter { $0.value.isUnused }.sorted { $0.value.lastUsed < $1.value.lastUsed }
        for (uuid, _) in unused.prefix(max(0, unused.count - Self.recordLimit)) { state.links[uuid] = nil }
        state.pruneThreshold = state.links.count + Self.pruneBatch
    }
}
