import Harald
import HaraldCore

extension PeripheralConnection {
    /// ``readRawValues(of:timeout:)`` with a progress bar: in batches of eight when the bar is
    /// shown (a terminal on stderr), in one call otherwise (the fewest round trips).
    func readRawValues(of characteristics: [DiscoveredCharacteristic], progress: ProgressDisplay) async throws(BluetoothError)
        -> [Result<[UInt8], BluetoothError>]
    {
        guard progress.enabled, characteristics.count > 8 else { return try await readRawValues(of: characteristics) }
        var results: [Result<[UInt8], BluetoothError>] = []
        for start in stride(from: 0, to: characteristics.count, by: 8) {
            progress.show(done: start, total: characteristics.count)
            results += try await readRawValues(of: Array(characteristics[start..<min(start + 8, characteristics.count)]))
        }
        progress.show(done: characteristics.count, total: characteristics.count)
        return results
    }
}

extension PeripheralConnection {
    /// ``discoverDescriptors(ofAll:timeout:)`` with a progress bar: in batches of sixteen
    /// characteristics when the bar is shown, in one call otherwise.
    func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], progress: ProgressDisplay) async throws(BluetoothError)
        -> [[DiscoveredDescriptor]]
    {
        guard progress.enabled, characteristics.count > 16 else { return try await discoverDescriptors(ofAll: characteristics) }
        var lists: [[DiscoveredDescriptor]] = []
        for start in stride(from: 0, to: characteristics.count, by: 16) {
            progress.show(done: start, total: characteristics.count)
            lists += try await discoverDescriptors(ofAll: Array(characteristics[start..<min(start + 16, characteristics.count)]))
        }
        progress.show(done: characteristics.count, total: characteristics.count)
        return lists
    }
}
