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

        /// The limit that was broken, e.g. `advertising data is 40 octets; legacy advertising carries at
        /// most 31`.
        public var description: String {
            switch self {
            case let .tooLong(field, length): "\(field) is \(length) octets; legacy advertising carries at most 31"
            case .intervalOutOfRange: "the advertising interval must lie within 20 ms…10.24 s, minimum ≤ maximum"
            }
        }
    }

    /// Which legacy PDU type is sent (ADV_IND, ADV_SCAN_IND or ADV_NONCONN_IND).
    public var kind: Kind
    /// The AD structures on air (at most 31 octets).
    public var data: AdvertisingData
    /// The AD structures sent to an active scanner (at most 31 octets; not for non-connectable).
    public var scanResponse: AdvertisingData
    /// Advertising interval bounds in units of 0.625 ms (32…16384: 20 ms…10.24 s).
    public var intervalMin: UInt16
    /// Upper advertising interval bound, in units of 0.625 ms.
    public var intervalMax: UInt16

    /// Legacy advertising; the default interval, 160, is 100 ms.
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

/// Extended advertising (Core spec Vol 6 Part B §2.3.1, 4.4.2.12): one advertising set whose
/// data may exceed 31 octets (up to what the controller takes, 1650 at most), carried in auxiliary
/// packets on the secondary channels. Centrals must scan with the extended commands to see it.
public struct ExtendedAdvertising: Hashable, Sendable {
    /// An extended advertising PDU is connectable or scannable, never both.
    public enum Kind: Hashable, Sendable {
        /// Centrals may connect; there is no scan response.
        case connectable
        /// Active scanners get ``ExtendedAdvertising/scanResponse``; no connections.
        case scannable
        /// A beacon.
        case nonConnectable

        var properties: UInt16 {
            switch self {
            case .connectable: 0x0001
            case .scannable: 0x0002
            case .nonConnectable: 0x0000
            }
        }
    }

    /// Whether the set is connectable, scannable or neither.
    public var kind: Kind
    /// The AD structures of the set (up to the controller's maximum advertising data length).
    public var data: AdvertisingData
    /// Only for ``Kind/scannable``.
    public var scanResponse: AdvertisingData
    /// Advertising interval bounds in units of 0.625 ms (32…16,777,215: 20 ms…10,485 s).
    public var intervalMin: UInt32
    /// Upper advertising interval bound, in units of 0.625 ms.
    public var intervalMax: UInt32

    /// One extended advertising set; the default interval, 160, is 100 ms.
    public init(
        kind: Kind = .connectable, data: AdvertisingData, scanResponse: AdvertisingData = AdvertisingData(), intervalMin: UInt32 = 160,
        intervalMax: UInt32 = 160
    ) {
        self.kind = kind
        self.data = data
        self.scanResponse = scanResponse
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
    }
}

/// What the host puts on air: legacy advertising (31 octets, every controller) or an extended
/// advertising set (longer data, controllers with LE Extended Advertising).
public enum HostAdvertising: Hashable, Sendable {
    /// Advertise with the legacy commands (31-octet payloads).
    case legacy(LegacyAdvertising)
    /// Advertise with an extended advertising set (Bluetooth 5).
    case extended(ExtendedAdvertising)
}

extension HCIHost {
    /// Starts extended advertising on one advertising set (replacing what was on air): its random
    /// address (the host's), parameters, data and scan response in fragments of 251 octets, enable.
    /// Throws ``HCIError/unsupported(_:)`` when the controller has no extended advertising, the
    /// data exceeds what it takes (LE Read Maximum Advertising Data Length), a connectable set has
    /// a scan response, or the interval is out of range.
    public func startAdvertising(_ advertising: ExtendedAdvertising) async throws(HCIError) {
        try ensureOpen()
        guard let controller, controller.supports(.extendedAdvertising) else {
            throw .unsupported("this controller has no extended advertising")
        }
        try LEAdvertiser.check(advertising)
        let answer = try await execute(.leReadMaximumAdvertisingDataLength)
        let maximum = answer.count >= 2 ? Int(answer[0]) | Int(answer[1]) << 8 : 31
        let commands = try LEAdvertiser.startCommands(advertising, address: controller.randomAddress, maximumDataLength: maximum)
        try await stopAnyAdvertising()
        for command in commands { try await execute(command) }
        advertiser.current = .extended(advertising)
    }

    /// Stops what is on air, legacy or extended.
    private func stopAnyAdvertising() async throws(HCIError) {
        for command in LEAdvertiser.stopCommands(advertiser.current) { try await execute(command) }
        advertiser.current = nil
    }

    /// Starts legacy advertising (replacing what was on air): parameters, data, scan response,
    /// enable. A controller stops connectable advertising when a central connects; call again
    /// to advertise for the next one. Our address is the host's random address.
    public func startAdvertising(_ advertising: LegacyAdvertising) async throws(HCIError) {
        try ensureOpen()
        let commands = try LEAdvertiser.startCommands(advertising)
        try await stopAnyAdvertising()
        for command in commands { try await execute(command) }
        advertiser.current = .legacy(advertising)
    }

    /// Starts `advertising`, legacy or extended.
    public func startAdvertising(_ advertising: HostAdvertising) async throws(HCIError) {
        switch advertising {
        case .legacy(let legacy): try await startAdvertising(legacy)
        case .extended(let extended): try await startAdvertising(extended)
        }
    }

    /// Stops advertising (nothing happens when none is on air).
    public func stopAdvertising() async throws(HCIError) {
        try await stopAnyAdvertising()
    }

    /// Whether something is on air now.
    public var isAdvertising: Bool { advertiser.current != nil }

    /// Connections centrals make to us (we are peripheral), from now on, until the host closes.
    /// Each call returns a new stream; each connection goes to every live stream.
    public func incomingConnections() -> AsyncStream<LEConnection> {
        let (stream, continuation) = AsyncStream.makeStream(of: LEConnection.self, bufferingPolicy: .bufferingNewest(64))
        guard closedError == nil else {
            continuation.finish()
            return stream
        }
        let id = newRequestID()
        advertiser.watch(continuation, id: id)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopWatchingIncomingConnections(id) }
        }
        return stream
    }

    private func stopWatchingIncomingConnections(_ id: UInt64) {
        advertiser.stopWatching(id)
    }
}
