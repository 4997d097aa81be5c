import HaraldCodec
import HaraldCore

/// The commands an LE central host sends, built with their parameters in wire order.
extension HCICommand {
    /// Reset the controller to its power-on state.
    public static let reset = HCICommand(.reset)
    /// Read Local Version Information: HCI and LMP versions, manufacturer.
    public static let readLocalVersionInformation = HCICommand(.readLocalVersionInformation)
    /// Read Local Supported Commands: the 64-octet command bit mask.
    public static let readLocalSupportedCommands = HCICommand(.readLocalSupportedCommands)
    /// Read Local Supported Features: the LMP feature bits.
    public static let readLocalSupportedFeatures = HCICommand(.readLocalSupportedFeatures)
    /// The controller's ACL buffers shared by BR/EDR and LE (used when LE has none of its own).
    public static let readBufferSize = HCICommand(.readBufferSize)
    /// Read BD_ADDR: the controller's public address.
    public static let readBDADDR = HCICommand(.readBDADDR)
    /// LE Read Buffer Size: ACL data packet length and count for LE.
    public static let leReadBufferSize = HCICommand(.leReadBufferSize)
    /// LE buffer size with ISO buffers as well (v2).
    public static let leReadBufferSizeV2 = HCICommand(.leReadBufferSizeV2)
    /// LE Read Local Supported Features: the LE feature bits.
    public static let leReadLocalSupportedFeatures = HCICommand(.leReadLocalSupportedFeatures)
    /// LE Create Connection Cancel: stop a pending connection attempt.
    public static let leCreateConnectionCancel = HCICommand(.leCreateConnectionCancel)
    /// LE Read Maximum Data Length: the largest link-layer payload and time the controller supports.
    public static let leReadMaximumDataLength = HCICommand(.leReadMaximumDataLength)

    /// Which events the controller may send (bit n = event code n+1).
    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(.setEventMask) { $0.write(mask) }
    }

    /// Which LE meta subevents the controller may send (bit n = subevent n+1).
    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(.leSetEventMask) { $0.write(mask) }
    }

    /// The random address used when own address type is random.
    public static func leSetRandomAddress(_ address: BluetoothAddress) -> HCICommand {
        HCICommand(.leSetRandomAddress, parameters: address.littleEndianBytes)
    }

    /// Legacy scan parameters. `interval`/`window` in units of 0.625 ms.
    public static func leSetScanParameters(
        active: Bool, interval: UInt16, window: UInt16, ownAddressType: LEAddressType, filterPolicy: UInt8 = 0
    ) -> HCICommand {
        HCICommand(.leSetScanParameters) {
            $0.write(UInt8(active ? 1 : 0))
            $0.write(interval)
            $0.write(window)
            $0.write(ownAddressType.rawValue)
            $0.write(filterPolicy)
        }
    }

    /// Starts or stops legacy scanning.
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(.leSetScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// Extended scan parameters on the LE 1M PHY only. `interval`/`window` in units of 0.625 ms.
    public static func leSetExtendedScanParameters(
        active: Bool, interval: UInt16, window: UInt16, ownAddressType: LEAddressType, filterPolicy: UInt8 = 0
    ) -> HCICommand {
        HCICommand(.leSetExtendedScanParameters) {
            $0.write(ownAddressType.rawValue)
            $0.write(filterPolicy)
            $0.write(UInt8(0x01))  // scanning PHYs: LE 1M
            $0.write(UInt8(active ? 1 : 0))
            $0.write(interval)
            $0.write(window)
        }
    }

    /// Starts or stops extended scanning; `duration` in 10 ms units (0 = until stopped),
    /// `period` in 1.28 s units (0 = continuous).
    public static func leSetExtendedScanEnable(
        _ enable: Bool, filterDuplicates: Bool = false, duration: UInt16 = 0, period: UInt16 = 0
    ) -> HCICommand {
        HCICommand(.leSetExtendedScanEnable) {
            $0.write(UInt8(enable ? 1 : 0))
            $0.write(UInt8(filterDuplicates ? 1 : 0))
            $0.write(duration)
            $0.write(period)
        }
    }

    /// Legacy LE Create Connection to one peer (filter accept list not used).
    public static func leCreateConnection(
        peer: BluetoothAddress, ownAddressType: LEAddressType, scanInterval: UInt16, scanWindow: UInt16,
        parameters: LEConnectionParameters
    ) -> HCICommand {
        HCICommand(.leCreateConnection) {
            $0.write(scanInterval)
            $0.write(scanWindow)
            $0.write(UInt8(0))  // initiator filter policy: use the peer address
            $0.write(peer.kind.rawValue)
            peer.encode(to: &$0)
            $0.write(ownAddressType.rawValue)
            parameters.write(to: &$0)
        }
    }

    /// LE Extended Create Connection (v1) on the LE 1M PHY.
    public static func leExtendedCreateConnection(
        peer: BluetoothAddress, ownAddressType: LEAddressType, scanInterval: UInt16, scanWindow: UInt16,
        parameters: LEConnectionParameters
    ) -> HCICommand {
        HCICommand(.leExtendedCreateConnection) {
            $0.write(UInt8(0))  // initiator filter policy
            $0.write(ownAddressType.rawValue)
            $0.write(peer.kind.rawValue)
            peer.encode(to: &$0)
            $0.write(UInt8(0x01))  // initiating PHYs: LE 1M
            $0.write(scanInterval)
            $0.write(scanWindow)
            parameters.write(to: &$0)
        }
    }

    /// Ends a connection; `reason` is an HCI error code (0x13 remote user terminated by default).
    public static func disconnect(handle: UInt16, reason: HCIStatus = .remoteUserTerminatedConnection) -> HCICommand {
        HCICommand(.disconnect) {
            $0.write(handle)
            $0.write(reason.rawValue)
        }
    }

    /// The signal strength of a connection (answered with status, handle, RSSI as a signed dBm
    /// byte; 127 when the controller cannot tell).
    public static func readRSSI(handle: UInt16) -> HCICommand {
        HCICommand(.readRSSI) { $0.write(handle) }
    }

    /// Starts (or refreshes) encryption of a link we are central of with a Long Term Key and,
    /// for a legacy key, its Rand and EDIV (both 0 for Secure Connections). Answered by Command
    /// Status, then Encryption Change (or Encryption Key Refresh Complete).
    public static func leEnableEncryption(handle: UInt16, rand: UInt64, ediv: UInt16, key: SecretKey128) -> HCICommand {
        HCICommand(.leEnableEncryption) { writer in
            writer.write(handle)
            writer.write(rand)
            writer.write(ediv)
            key.withUnsafeKeyBytes { writer.write(bytes: $0) }
        }
    }

    /// Answers an LE Long Term Key Request with the key.
    public static func leLongTermKeyRequestReply(handle: UInt16, key: SecretKey128) -> HCICommand {
        HCICommand(.leLongTermKeyRequestReply) { writer in
            writer.write(handle)
            key.withUnsafeKeyBytes { writer.write(bytes: $0) }
        }
    }

    /// Answers an LE Long Term Key Request: there is no key for that peer (the central then
    /// sees Encryption Change with PIN or Key Missing).
    public static func leLongTermKeyRequestNegativeReply(handle: UInt16) -> HCICommand {
        HCICommand(.leLongTermKeyRequestNegativeReply) { $0.write(handle) }
    }

    /// Data Length Extension: the largest LL payload (27…251 bytes) and its air time (µs).
    public static func leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: UInt16) -> HCICommand {
        HCICommand(.leSetDataLength) {
            $0.write(handle)
            $0.write(txOctets)
            $0.write(txTime)
        }
    }

    /// The LL payload size the controller proposes for new connections.
    public static func leWriteSuggestedDefaultDataLength(txOctets: UInt16, txTime: UInt16) -> HCICommand {
        HCICommand(.leWriteSuggestedDefaultDataLength) {
            $0.write(txOctets)
            $0.write(txTime)
        }
    }

    /// Asks for a PHY change on a connection. PHY bits: 0x01 1M, 0x02 2M, 0x04 Coded.
    public static func leSetPHY(handle: UInt16, txPHYs: UInt8, rxPHYs: UInt8, options: UInt16 = 0) -> HCICommand {
        HCICommand(.leSetPHY) {
            $0.write(handle)
            $0.write(UInt8(0))  // all PHYs: the host states both preferences
            $0.write(txPHYs)
            $0.write(rxPHYs)
            $0.write(options)
        }
    }

    /// Reads the peer's LE features (answered by LE Read Remote Features Complete).
    public static func leReadRemoteFeatures(handle: UInt16) -> HCICommand {
        HCICommand(.leReadRemoteFeatures) { $0.write(handle) }
    }

    /// Asks for new connection parameters on a connection we are central of.
    public static func leConnectionUpdate(handle: UInt16, parameters: LEConnectionParameters) -> HCICommand {
        HCICommand(.leConnectionUpdate) {
            $0.write(handle)
            parameters.write(to: &$0)
        }
    }
}

/// Connection parameters a central asks for.
public struct LEConnectionParameters: Hashable, Sendable {
    /// Connection interval bounds in units of 1.25 ms (6…3200).
    public var intervalMin: UInt16
    /// Upper connection interval bound, in units of 1.25 ms.
    public var intervalMax: UInt16
    /// Connection events the peripheral may skip.
    public var latency: UInt16
    /// Supervision timeout in units of 10 ms (10…3200).
    public var supervisionTimeout: UInt16
    /// Expected connection event length bounds in units of 0.625 ms.
    public var minCELength: UInt16
    /// Upper connection event length bound, in units of 0.625 ms.
    public var maxCELength: UInt16

    /// Parameters; the defaults ask for a 30–50 ms interval, no latency and a 720 ms supervision timeout.
    public init(
        intervalMin: UInt16 = 0x18, intervalMax: UInt16 = 0x28, latency: UInt16 = 0, supervisionTimeout: UInt16 = 0x48,
        minCELength: UInt16 = 0, maxCELength: UInt16 = 0
    ) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    /// 30-50 ms interval, no latency, 720 ms supervision timeout.
    public static let `default` = LEConnectionParameters()

    func write(to writer: inout ByteWriter) {
        writer.write(intervalMin)
        writer.write(intervalMax)
        writer.write(latency)
        writer.write(supervisionTimeout)
        writer.write(minCELength)
        writer.write(maxCELength)
    }
}

/// The commands of legacy advertising (Core spec Vol 4 Part E §7.8.5–7.8.9).
extension HCICommand {
    /// Advertising interval bounds in units of 0.625 ms (0x0020…0x4000), the PDU type, our
    /// address type, and all three primary channels.
    public static func leSetAdvertisingParameters(
        intervalMin: UInt16, intervalMax: UInt16, type: LegacyAdvertising.Kind, ownAddressType: LEAddressType
    ) -> HCICommand {
        HCICommand(.leSetAdvertisingParameters) {
            $0.write(intervalMin)
            $0.write(intervalMax)
            $0.write(type.rawValue)
            $0.write(ownAddressType.rawValue)
            $0.write(UInt8(0))  // peer address type: no directed advertising
            $0.write(bytes: [UInt8](repeating: 0, count: 6))  // peer address
            $0.write(UInt8(0x07))  // channels 37, 38 and 39
            $0.write(UInt8(0))  // filter policy: anyone may scan and connect
        }
    }

    /// Advertising data: its length, then 31 octets (zero-padded).
    public static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
        HCICommand(.leSetAdvertisingData, parameters: [UInt8(min(data.count, 31))] + padded(data))
    }

    /// Scan response data: its length, then 31 octets (zero-padded).
    public static func leSetScanResponseData(_ data: [UInt8]) -> HCICommand {
        HCICommand(.leSetScanResponseData, parameters: [UInt8(min(data.count, 31))] + padded(data))
    }

    /// Starts or stops legacy advertising.
    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        HCICommand(.leSetAdvertisingEnable, parameters: [enable ? 1 : 0])
    }

    private static func padded(_ data: [UInt8]) -> [UInt8] {
        Array(data.prefix(31)) + [UInt8](repeating: 0, count: max(0, 31 - data.count))
    }
}

/// The commands of extended advertising (Core spec Vol 4 Part E §7.8.53–7.8.60): advertising sets
/// whose data may exceed 31 octets, carried in fragments of at most 251 octets per command.
extension HCICommand {
    /// The largest data fragment one LE Set Extended Advertising/Scan Response Data command carries.
    public static let extendedAdvertisingFragment = 251

    /// LE Read Maximum Advertising Data Length: what one extended advertising set may carry.
    public static let leReadMaximumAdvertisingDataLength = HCICommand(.leReadMaximumAdvertisingDataLength)

    /// The random address set `handle` advertises from.
    public static func leSetAdvertisingSetRandomAddress(handle: UInt8, address: BluetoothAddress) -> HCICommand {
        HCICommand(.leSetAdvertisingSetRandomAddress, parameters: [handle] + address.littleEndianBytes)
    }

    /// Parameters of advertising set `handle` on the LE 1M PHY (primary and secondary), all three
    /// primary channels, no filter, no preferred TX power. `properties`: bit 0 connectable, bit 1
    /// scannable (an extended PDU may be one or the other, not both). Interval in 0.625 ms units.
    public static func leSetExtendedAdvertisingParameters(
        handle: UInt8, properties: UInt16, intervalMin: UInt32, intervalMax: UInt32, ownAddressType: LEAddressType
    ) -> HCICommand {
        func uint24(_ value: UInt32) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
        return HCICommand(.leSetExtendedAdvertisingParameters) {
            $0.write(handle)
            $0.write(properties)
            $0.write(bytes: uint24(intervalMin))
            $0.write(bytes: uint24(intervalMax))
            $0.write(UInt8(0x07))  // channels 37, 38 and 39
            $0.write(ownAddressType.rawValue)
            $0.write(UInt8(0))  // peer address type (no directed advertising)
            $0.write(bytes: [UInt8](repeating: 0, count: 6))  // peer address
            $0.write(UInt8(0))  // filter policy
            $0.write(UInt8(0x7F))  // TX power: no preference
            $0.write(UInt8(0x01))  // primary PHY: LE 1M
            $0.write(UInt8(0))  // secondary max skip
            $0.write(UInt8(0x01))  // secondary PHY: LE 1M
            $0.write(handle & 0x0F)  // advertising SID
            $0.write(UInt8(0))  // no scan request notifications
        }
    }

    /// One fragment of set `handle`'s advertising data; `operation`: 0 intermediate, 1 first,
    /// 2 last, 3 complete.
    public static func leSetExtendedAdvertisingData(handle: UInt8, operation: UInt8, fragment: [UInt8]) -> HCICommand {
        HCICommand(.leSetExtendedAdvertisingData, parameters: [handle, operation, 0x01, UInt8(fragment.count)] + fragment)
    }

    /// One fragment of set `handle`'s scan response data (operations as for advertising data).
    public static func leSetExtendedScanResponseData(handle: UInt8, operation: UInt8, fragment: [UInt8]) -> HCICommand {
        HCICommand(.leSetExtendedScanResponseData, parameters: [handle, operation, 0x01, UInt8(fragment.count)] + fragment)
    }

    /// Starts or stops advertising set `handle` (no duration, no event limit).
    public static func leSetExtendedAdvertisingEnable(_ enable: Bool, handle: UInt8) -> HCICommand {
        HCICommand(.leSetExtendedAdvertisingEnable, parameters: [enable ? 1 : 0, 1, handle, 0, 0, 0])
    }

    /// Removes advertising set `handle`.
    public static func leRemoveAdvertisingSet(handle: UInt8) -> HCICommand {
        HCICommand(.leRemoveAdvertisingSet, parameters: [handle])
    }

    /// The commands that set `data` (advertising or scan response) on set `handle`, in fragments
    /// of at most 251 octets; an empty payload is one empty complete fragment.
    static func extendedDataFragments(_ data: [UInt8], handle: UInt8, scanResponse: Bool) -> [HCICommand] {
        let make = scanResponse ? leSetExtendedScanResponseData : leSetExtendedAdvertisingData
        guard data.count > extendedAdvertisingFragment else { return [make(handle, 0x03, data)] }
        var commands: [HCICommand] = []
        var offset = 0
        while offset < data.count {
            let end = min(offset + extendedAdvertisingFragment, data.count)
            let operation: UInt8 = offset == 0 ? 0x01 : end == data.count ? 0x02 : 0x00
            commands.append(make(handle, operation, Array(data[offset..<end])))
            offset = end
        }
        return commands
    }
}
