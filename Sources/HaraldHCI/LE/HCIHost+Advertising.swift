import HaraldCore

/// Legacy advertising (Core spec Vol 6 Part B §2.3.1): what a peripheral broadcasts on the three
/// primary channels so centrals find it and connect.
public struct LegacyAdvertising: Hashable, Sendable {
    /// The advertising PDU type.
    public enum Kind: UInt8, Hashable, Sendable {
        /// ADV_IND: connectable and scannable (a peripheral that accepts connections).
        case connectable = 0x00
        /// ADV_SCAN_IND: scannable, not connectable (a beacon with a scan response).
        case scannable = 0x02
        /// ADV_NONCONN_IND: neither (a pure beacon).
        case nonConnectable = 0x03
    }

    /// Why advertising data cannot go on air.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// Legacy advertising carries at most 31 octets of data, and 31 of scan response.
        case tooLong(field: String, length: Int)
        /// The interval is outside 20 ms…10.24 s, or the minimum exceeds the maximum.
        case intervalOutOfRange

        public var description: String {
            switch self {
            case let .tooLong(field, length): "\(field) is \(length) octets; legacy advertising carries at most 31"
            case .intervalOutOfRange: "the advertising interval must lie within 20 ms…10.24 s, minimum ≤ maximum"
            }
        }
    }

    public var kind: Kind
    /// The AD structures on air (at most 31 octets).
    public var data: AdvertisingData
    /// The AD structures sent to an active scanner (at most 31 octets; not for non-connectable).
    public var scanResponse: AdvertisingData
    /// Advertising interval bounds in units of 0.625 ms (32…16384: 20 ms…10.24 s).
    public var intervalMin: UInt16
    public var intervalMax: UInt16

    public init(
        kind: Kind = .connectable, data: AdvertisingData, scanResponse: AdvertisingData = AdvertisingData(), intervalMin: UInt16 = 160,
        intervalMax: UInt16 = 160
    ) {
        self.kind = kind
        self.data = data
        self.scanResponse = scanResponse
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
    }

    /// Throws when the data does not fit legacy advertising or the interval is out of range.
    public func validate() throws(Problem) {
        guard data.bytes.count <= 31 else { throw .tooLong(field: "advertising data", length: data.bytes.count) }
        guard scanResponse.bytes.count <= 31 else { throw .tooLong(field: "scan response data", length: scanResponse.bytes.count) }
        guard (32...16384).contains(intervalMin), (32...16384).contains(intervalMax), intervalMin <= intervalMax else {
            throw .intervalOutOfRange
        }
    }
}

extension HCIHost {
    /// Starts legacy advertising (replacing what was on air): parameters, data, scan response,
    /// enable. A controller stops connectable advertising when a central connects; call again
    /// to advertise for the next one. Our address is the host's random address.
    public func startAdvertising(_ advertising: LegacyAdvertising) async throws(HCIError) {
        try ensureOpen()
        do throws(LegacyAdvertising.Problem) { try advertising.validate() } catch {
            throw .unsupported(error.description)
        }
        if self.advertising != nil { try await execute(.leSetAdvertisingEnable(false)) }
        self.advertising = nil
        try await execute(
            .leSetAdvertisingParameters(
                intervalMin: advertising.intervalMin, intervalMax: advertising.intervalMax, type: advertising.kind, ownAddressType: .random))
        try await execute(.leSetAdvertisingData(advertising.data.bytes))
        try await execute(.leSetScanResponseData(advertising.scanResponse.bytes))
        try await execute(.leSetAdvertisingEnable(true))
        self.advertising = advertising
    }

    /// Stops advertising (nothing happens when none is on air).
    public func stopAdvertising() async throws(HCIError) {
        guard advertising != nil else { return }
        advertising = nil
        try await execute(.leSetAdvertisingEnable(false))
    }

    /// What is on air now, if anything.
    public var currentAdvertising: LegacyAdvertising? { advertising }

    /// Connections centrals make to us (we are peripheral), from now on, until the host closes.
    /// Each call returns a new stream; each connection goes to every live stream.
    public func incomingConnections() -> AsyncStream<LEConnection> {
        let (stream, continuation) = AsyncStream.makeStream(of: LEConnection.self, bufferingPolicy: .bufferingNewest(64))
        guard closedError == nil else {
            continuation.finish()
            return stream
        }
        let id = newRequestID()
        incomingConnectionWatchers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopWatchingIncomingConnections(id) }
        }
        return stream
    }

    private func stopWatchingIncomingConnections(_ id: UInt64) {
        incomingConnectionWatchers[id] = nil
    }

    /// A central connected to us: connectable legacy advertising has stopped on its own.
    func acceptedAsPeripheral(_ connection: LEConnection) {
        advertising = nil
        for watcher in incomingConnectionWatchers.values { watcher.yield(connection) }
    }

    /// The host closed: no more incoming connections.
    func finishIncomingConnections() {
        for watcher in incomingConnectionWatchers.values { watcher.finish() }
        incomingConnectionWatchers = [:]
    }
}
