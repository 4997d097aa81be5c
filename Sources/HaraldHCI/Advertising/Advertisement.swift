import HaraldCore

/// One advertisement as a scan reports it, with the scan response merged in when there is one.
public struct Advertisement: Hashable, Sendable {
    /// The advertiser's address and its type.
    public var address: BluetoothAddress
    /// Signal strength; nil when the controller did not measure it.
    public var rssi: RSSI?
    /// True when the advertiser accepts connections (as its advertising PDU said; a scan
    /// response repeats what the advertising PDU before it said).
    public var isConnectable: Bool
    /// True when this report was triggered by a scan response.
    public var isScanResponse: Bool
    /// Transmit power from an extended report, in dBm; nil when not given.
    public var txPower: Int8?
    /// Raw AD bytes of the advertising PDU (for extended advertising, all fragments joined).
    public var advertisingData: [UInt8]
    /// Raw AD bytes of the latest scan response from this advertiser (active scans), else empty.
    public var scanResponseData: [UInt8]
    /// True when the controller truncated the extended advertising data.
    public var isTruncated: Bool

    /// An advertisement as the host assembled it from one or more reports.
    public init(
        address: BluetoothAddress, rssi: RSSI?, isConnectable: Bool, isScanResponse: Bool = false, txPower: Int8? = nil,
        advertisingData: [UInt8], scanResponseData: [UInt8] = [], isTruncated: Bool = false
    ) {
        self.address = address
        self.rssi = rssi
        self.isConnectable = isConnectable
        self.isScanResponse = isScanResponse
        self.txPower = txPower
        self.advertisingData = advertisingData
        self.scanResponseData = scanResponseData
        self.isTruncated = isTruncated
    }

    /// The AD structures of the advertising data followed by those of the scan response.
    public var data: AdvertisingData {
        let advertising = AdvertisingData(parsing: advertisingData)
        let response = AdvertisingData(parsing: scanResponseData)
        return AdvertisingData(structures: advertising.structures + response.structures)
    }
}
