import HaraldCore
/// Turns advertising reports into ``Advertisement`` values: joins the fragments of extended
/// advertising data ("incomplete, more to come") and merges scan responses with the advertising
/// data of the same advertiser.
///
/// Memory is bounded: at most ``capacity`` advertisers are remembered and fragmented data stops
/// growing at ``maximumDataLength`` bytes. A scan meets new addresses without end (private
/// addresses change every few minutes), so when a new advertiser finds the table full, the least
/// recently heard eighth of it is forgotten in one sweep: the sweep sorts the table, and doing it
/// once per capacity / 8 new advertisers keeps the cost per report small for large capacities.
public struct AdvertisementAssembler: Sendable {
    private struct Entry: Sendable {
        var advertisingData: [UInt8] = []
        var scanResponseData: [UInt8] = []
        /// Fragments of extended data still arriving, and whether they belong to a scan response.
        var partial: [UInt8]?
        var partialIsScanResponse = false
        /// Connectability comes from the advertising PDU; a scan response carries none of its own.
        var isConnectable = false
        var lastUse = 0
    }

    /// Advertisers remembered at once, at most.
    public let capacity: Int
    /// Largest joined extended advertising data kept (the Core limit is 1650 bytes).
    public let maximumDataLength: Int
    private var entries: [BluetoothAddress: Entry] = [:]
    private var tick = 0

    /// An assembler remembering at most `capacity` advertisers, each with at most `maximumDataLength` bytes of data (1650 is the extended advertising maximum).
    public init(capacity: Int = 256, maximumDataLength: Int = 1650) {
        self.capacity = max(1, capacity)
        self.maximumDataLength = maximumDataLength
    }

    /// How many advertisers are remembered now.
    public var count: Int { entries.count }

    /// Adds a legacy report; returns the advertisement to deliver.
    public mutating func add(_ report: LEAdvertisingReport) -> Advertisement {
        var entry = take(report.address)
        let isResponse = report.eventType == .scanResponse
        if isResponse {
            entry.scanResponseData = report.data
        } else {
            entry.advertisingData = report.data
            entry.isConnectable = report.eventType == .advInd || report.eventType == .advDirectInd
        }
        store(entry, for: report.address)
        return Advertisement(
            address: report.address, rssi: RSSI(hciValue: report.rssi),
            isConnectable: entry.isConnectable, isScanResponse: isResponse,
            advertisingData: entry.advertisingData, scanResponseData: entry.scanResponseData)
    }

    /// Adds an extended report; returns the advertisement once its data is complete (or
    /// truncated), nil while fragments are still arriving.
    public mutating func add(_ report: LEExtendedAdvertisingReport) -> Advertisement? {
        var entry = take(report.address)
        var data = report.data
        if let partial = entry.partial, entry.partialIsScanResponse == report.isScanResponse {
            data = partial + data
        }
        var truncated = report.dataStatus == .incompleteTruncated
        if data.count > maximumDataLength {
            data = Array(data.prefix(maximumDataLength))
            truncated = true
        }
        if report.dataStatus == .incompleteMoreToCome && !truncated {
            entry.partial = data
            entry.partialIsScanResponse = report.isScanResponse
            store(entry, for: report.address)
            return nil
        }
        entry.partial = nil
        if report.isScanResponse {
            entry.scanResponseData = data
        } else {
            entry.advertisingData = data
            entry.isConnectable = report.isConnectable
        }
        store(entry, for: report.address)
        return Advertisement(
            address: report.address, rssi: RSSI(hciValue: report.rssi),
            isConnectable: entry.isConnectable, isScanResponse: report.isScanResponse,
            txPower: report.txPower == 127 ? nil : report.txPower,
            advertisingData: entry.advertisingData, scanResponseData: entry.scanResponseData, isTruncated: truncated)
    }

    /// Forgets every advertiser.
    public mutating func reset() { entries = [:] }

    private mutating func take(_ address: BluetoothAddress) -> Entry {
        entries.removeValue(forKey: address) ?? Entry()
    }

    private mutating func store(_ entry: Entry, for address: BluetoothAddress) {
        tick += 1
        var entry = entry
        entry.lastUse = tick
        // `take` removed a known advertiser first, so only a new one can find the table full.
        if entries.count >= capacity { forgetLeastRecentlyHeard() }
        entries[address] = entry
    }

    /// Forgets the least recently heard eighth of the advertisers (at least one).
    private mutating func forgetLeastRecentlyHeard() {
        let count = max(1, capacity / 8)
        let oldest = entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(count)
        for (address, _) in oldest { entries.removeValue(forKey: address) }
    }
}
