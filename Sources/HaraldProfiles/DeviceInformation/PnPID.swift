import HaraldCodec

/// PnP ID (0x2A50): vendor, product and version identifiers, 7 bytes.
///
/// The vendor ID source is 1 (Bluetooth SIG company identifier) or 2 (USB Implementer's Forum
/// vendor ID); other codes are reserved and kept as ``VendorIDSource/reserved(_:)``.
public struct PnPID: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A50)
    public static let name = "PnP ID"

    /// Who assigned ``vendorID``.
    public enum VendorIDSource: Hashable, Sendable {
        /// 1: a company identifier assigned by the Bluetooth SIG.
        case bluetoothSIG
        /// 2: a vendor ID assigned by the USB Implementers Forum.
        case usbImplementersForum
        /// A reserved code, as received.
        case reserved(UInt8)

        /// The source named by its code byte.
        public init(code: UInt8) {
            switch code {
            case 1: self = .bluetoothSIG
            case 2: self = .usbImplementersForum
            default: self = .reserved(code)
            }
        }

        /// The code byte sent on air.
        public var code: UInt8 {
            switch self {
            case .bluetoothSIG: 1
            case .usbImplementersForum: 2
            case let .reserved(code): code
            }
        }
    }

    /// Who assigned the vendor ID.
    public var vendorIDSource: VendorIDSource
    /// The vendor (a Bluetooth SIG company identifier or a USB vendor ID).
    public var vendorID: UInt16
    /// The vendor's product identifier.
    public var productID: UInt16
    /// The product version (0xJJMN for version JJ.M.N).
    public var productVersion: UInt16

    /// A PnP ID; `productVersion` is 0xJJMN for version JJ.M.N.
    public init(vendorIDSource: VendorIDSource, vendorID: UInt16, productID: UInt16, productVersion: UInt16) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.productVersion = productVersion
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        vendorIDSource = VendorIDSource(code: try reader.read(UInt8.self, field: "vendorIDSource"))
        vendorID = try reader.read(UInt16.self, field: "vendorID")
        productID = try reader.read(UInt16.self, field: "productID")
        productVersion = try reader.read(UInt16.self, field: "productVersion")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if case let .reserved(code) = vendorIDSource {
            try requireEncodable(code != 1 && code != 2, field: "vendorIDSource", "reserved code \(code) names a defined source")
        }
        writer.write(vendorIDSource.code)
        writer.write(vendorID)
        writer.write(productID)
        writer.write(productVersion)
    }

    /// `{vendorIDSource (code), vendorIDSourceName, vendorID, productID, productVersion}`.
    public var jsonValue: JSONValue {
        let sourceName =
            switch vendorIDSource {
            case .bluetoothSIG: "bluetoothSIG"
            case .usbImplementersForum: "usbImplementersForum"
            case .reserved: "reserved"
            }
        return .object([
            "vendorIDSource": .int(vendorIDSource.code), "vendorIDSourceName": .string(sourceName),
            "vendorID": .int(vendorID), "productID": .int(productID), "productVersion": .int(productVersion),
        ])
    }
}
