import HaraldCodec
import HaraldCore

/// Discovery of many services or characteristics at once.
///
/// The per-service procedures (§4.6.1, §4.7.1) send at least one request per service and per
/// characteristic with room for descriptors. Read By Type and Find Information accept any handle
/// range, so the same attributes can be collected by sweeping one range that spans them all and
/// sorting the answers by handle afterwards: the results are identical, the round trips are
/// about as many as the answers need PDUs.
extension GATTClient {
    /// Discover All Characteristics of several services with one Read By Type (0x2803) sweep over
    /// the handles from the first service's start to the last one's end. Declarations that fall
    /// in none of `services` (a secondary service in between, say) are ignored.
    ///
    /// Returns one list per service, in the order of `services`, each equal to what
    /// ``discoverCharacteristics(of:uuid:timeout:)`` returns for that service.
    public func discoverCharacteristics(ofAll services: [GATTService], timeout: Duration? = nil) async throws(GATTError)
        -> [[GATTCharacteristic]]
    {
        guard !services.isEmpty else { return [] }
        // The ranges come from the server's discovery responses: a bad or overlapping one is the
        // server's protocol violation, named by the handle where it starts.
        for service in services where !service.handles.isValid {
            throw .protocolViolation(
                ATTProtocolViolation(
                    pdu: .readByGroupTypeResponse, handle: service.handles.start, rule: "service group \(service.handles) is no handle range"))
        }
        let order = services.indices.sorted { services[$0].handles.start < services[$1].handles.start }
        for (previous, next) in zip(order, order.dropFirst()) where services[previous].handles.end >= services[next].handles.start {
            throw .protocolViolation(
                ATTProtocolViolation(
                    pdu: .readByGroupTypeResponse, handle: services[next].handles.start,
                    rule: "service groups \(services[previous].handles) and \(services[next].handles) overlap"))
        }
        let span = ATTHandleRange(start: services[order.first!].handles.start, end: services[order.last!].handles.end)
        let deadline = deadline(timeout)
        return try await closingOnViolation { () async throws(GATTError) -> [[GATTCharacteristic]] in
            let entries = try await readByTypeLoop(GATTAttributeType.characteristic, in: span, deadline: deadline)
            return try Self.characteristics(declaredBy: entries, inEachOf: services, order: order)
        }
    }

    /// Sorts the declarations of a sweep (in increasing handle order, which ``readByTypeLoop(_:in:deadline:)``
    /// checked) into the services they lie in.
    private static func characteristics(declaredBy entries: [ATTHandleValue], inEachOf services: [GATTService], order: [Int]) throws(GATTError)
        -> [[GATTCharacteristic]]
    {
        var declarations = Array(repeating: [ATTHandleValue](), count: services.count)
        var position = order.startIndex
        for entry in entries {
            while position < order.endIndex, services[order[position]].handles.end < entry.handle { position += 1 }
            guard position < order.endIndex else { break }
            let index = order[position]
            if services[index].handles.contains(entry.handle) { declarations[index].append(entry) }
        }
        var result: [[GATTCharacteristic]] = []
        result.reserveCapacity(services.count)
        for (service, entries) in zip(services, declarations) {
            result.append(try Self.characteristics(declaredBy: entries, in: service))
        }
        return result
    }

    /// Discover All Characteristic Descriptors of several characteristics with one Find
    /// Information sweep: each request runs from the first handle still unknown that may hold a
    /// descriptor to the last such handle, and handles that cannot hold one (declarations and
    /// values between the characteristics) are skipped rather than asked about. Characteristics
    /// without room for descriptors cost nothing.
    ///
    /// Returns one list per characteristic, in the order of `characteristics`, each equal to what
    /// ``discoverDescriptors(of:timeout:)`` returns for it.
    public func discoverDescriptors(ofAll characteristics: [GATTCharacteristic], timeout: Duration? = nil) async throws(GATTError)
        -> [[GATTDescriptor]]
    {
        let result = Array(repeating: [GATTDescriptor](), count: characteristics.count)
        // The ranges where descriptors may be, in handle order, with the characteristic each belongs to.
        let ranges = characteristics.indices
            .compactMap { index in characteristics[index].descriptorHandles.map { (range: $0, owner: index) } }
            .sorted { $0.range.start < $1.range.start }
        guard let last = ranges.last else { return result }
        for (previous, next) in zip(ranges, ranges.dropFirst()) where previous.range.end >= next.range.start {
            throw .protocolViolation(
                ATTProtocolViolation(
                    pdu: .readByTypeResponse, handle: next.range.start,
                    rule: "characteristics ending at 0x\(Hex.word(previous.range.end)) and 0x\(Hex.word(next.range.end)) overlap"))
        }
        let end = last.range.end
        let deadline = deadline(timeout)
        return try await closingOnViolation { () async throws(GATTError) -> [[GATTDescriptor]] in
            try await sweepDescriptors(ranges, end: end, into: result, deadline: deadline)
        }
    }

    /// The Find Information sweep of ``discoverDescriptors(ofAll:timeout:)`` over `ranges` (in
    /// handle order, with the characteristic each belongs to).
    private func sweepDescriptors(
        _ ranges: [(range: ATTHandleRange, owner: Int)], end: UInt16, into result: [[GATTDescriptor]], deadline: Duration
    ) async throws(GATTError) -> [[GATTDescriptor]] {
        var result = result
        var position = 0
        var start = ranges[0].range.start
        while true {
            let response: ATTFindInformationResponse
            let requested = ATTHandleRange(start: start, end: end)
            do {
                response = try await transact(
                    ATTFindInformationRequest(range: requested), expecting: ATTFindInformationResponse.self, deadline: deadline)
            } catch .attribute(.attributeNotFound, _, _) {
                break  // nothing at all from `start` to the last range's end
            }
            var previous: UInt16?
            for entry in response.entries {
                if let violation = Self.handleViolation(entry.handle, in: .findInformationResponse, "descriptor", requested: requested, previous: previous) {
                    throw .protocolViolation(violation)
                }
                previous = entry.handle
                while position < ranges.count, ranges[position].range.end < entry.handle { position += 1 }
                if position < ranges.count, ranges[position].range.contains(entry.handle) {
                    result[ranges[position].owner].append(GATTDescriptor(uuid: entry.type, handle: entry.handle))
                }
            }
            guard let lastHandle = response.entries.last?.handle, lastHandle < end else { break }
            // Continue after the last answer, jumping over handles no characteristic leaves for descriptors.
            start = lastHandle + 1
            while position < ranges.count, ranges[position].range.end < start { position += 1 }
            guard position < ranges.count else { break }
            start = max(start, ranges[position].range.start)
        }
        return result
    }
}
