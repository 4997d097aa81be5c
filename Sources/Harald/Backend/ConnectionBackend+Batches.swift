/// One-at-a-time defaults for the batch operations of ``ConnectionBackend``, for backends that
/// cannot do better (CoreBluetooth). Results are the same as the batched versions'.
extension ConnectionBackend {
    nonisolated(nonsending) public func discoverCharacteristics(ofAll services: [DiscoveredService], timeout: Duration) async throws(BluetoothError)
        -> [[DiscoveredCharacteristic]]
    {
        var result: [[DiscoveredCharacteristic]] = []
        for service in services { result.append(try await discoverCharacteristics(nil, of: service, timeout: timeout)) }
        return result
    }

    nonisolated(nonsending) public func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError)
        -> [[DiscoveredDescriptor]]
    {
        var result: [[DiscoveredDescriptor]] = []
        for characteristic in characteristics { result.append(try await discoverDescriptors(of: characteristic, timeout: timeout)) }
        return result
    }

    nonisolated(nonsending) public func read(_ characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError) -> [Result<
        [UInt8], BluetoothError
    >] {
        var result: [Result<[UInt8], BluetoothError>] = []
        for characteristic in characteristics {
            do {
                result.append(.success(try await read(characteristic, timeout: timeout)))
            } catch {
                guard case .attribute = error else { throw error }
                result.append(.failure(error))
            }
        }
        return result
    }
}
