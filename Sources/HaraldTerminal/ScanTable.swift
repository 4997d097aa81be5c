import HaraldCodec
import HaraldCore

/// The live table of `harald scan` on a terminal: a row per device, the strongest first.
public struct ScanTable: Sendable {
    /// What the table knows of one device.
    public struct Device: Equatable, Sendable {
        /// The address as `scan` prints it (the key of the row).
        public var address: String
        /// `public` or `random`, when known.
        public var addressKind: String?
        public var name: String?
        /// Received signal strength of the latest advertisement, in dBm.
        public var rssi: Int?
        public var services: [BluetoothUUID]
        /// The company identifier of its manufacturer-specific data.
        public var companyID: UInt16?
        /// The GAP Appearance value it advertises.
        public var appearance: UInt16?
        public var connectable: Bool
        /// How many advertisements were seen.
        public var seen: Int

        public init(
            address: String, addressKind: String? = nil, name: String? = nil, rssi: Int? = nil, services: [BluetoothUUID] = [],
            companyID: UInt16? = nil, appearance: UInt16? = nil, connectable: Bool = true, seen: Int = 1
        ) {
            self.address = address
            self.addressKind = addressKind
            self.name = name
            self.rssi = rssi
            self.services = services
            self.companyID = companyID
            self.appearance = appearance
            self.connectable = connectable
            self.seen = seen
        }
    }

    public private(set) var devices: [String: Device] = [:]

    public init() {}

    /// Takes one advertisement: a new device gets a row; a known one takes the new RSSI and keeps
    /// what this advertisement lacks (a scan response carries the name, the advertisement the
    /// services).
    public mutating func update(_ device: Device) {
        guard var known = devices[device.address] else {
            devices[device.address] = device
            return
        }
        known.rssi = device.rssi ?? known.rssi
        known.name = device.name ?? known.name
        known.addressKind = device.addressKind ?? known.addressKind
        if !device.services.isEmpty { known.services = device.services }
        known.companyID = device.companyID ?? known.companyID
        known.appearance = device.appearance ?? known.appearance
        known.connectable = known.connectable || device.connectable
        known.seen += device.seen
        devices[device.address] = known
    }

    /// The rows, strongest signal first (devices without an RSSI last; ties by address).
    public var sorted: [Device] {
        devices.values.sorted { left, right in
            switch (left.rssi, right.rssi) {
            case let (l?, r?) where l != r: l > r
            case (.some, nil): true
            case (nil, .some): false
            default: left.address < right.address
            }
        }
    }

    /// The table as lines at most `width` (80 or more) characters wide: a header, then a row per device.
    /// Columns: address, name, RSSI with a bar, services (with SIG names), manufacturer.
    public func render(width: Int = 120) -> [String] {
        let rows = sorted
        let nameWidth = min(20, max(4, rows.map { ($0.name ?? "").count }.max() ?? 4))
        let fixed = 17 + 2 + nameWidth + 2 + 16 + 2
        // Services take three fifths of what is left, the manufacturer the rest (narrower than
        // 80 columns, the columns keep a minimum and lines may wrap).
        let rest = max(20, width - fixed) - 2
        let servicesWidth = max(10, rest * 3 / 5)
        let makerWidth = max(8, rest - servicesWidth)
        func line(_ address: String, _ name: String, _ rssi: String, _ services: String, _ maker: String) -> String {
            let text =
                address.fitted(to: 17) + "  " + name.fitted(to: nameWidth) + "  " + rssi.fitted(to: 16) + "  "
                + services.fitted(to: servicesWidth) + "  " + maker.fitted(to: makerWidth)
            return String(text.reversed().drop { $0 == " " }.reversed())
        }
        var lines = [line("ADDRESS", "NAME", "RSSI", "SERVICES", "MANUFACTURER")]
        for device in rows {
            let rssi = device.rssi.map { "\(String($0).leftPadded(to: 4)) \(Self.bar(rssi: $0))" } ?? "   ?"
            var services = device.services.map { Labels.uuid($0) }.joined(separator: ", ")
            if services.isEmpty, let appearance = device.appearance { services = Labels.appearance(appearance) }
            let maker = device.companyID.map(Labels.company) ?? ""
            lines.append(line(device.address, device.name ?? "", rssi, services, maker))
        }
        return lines
    }

    /// Signal strength as a bar of ten: -100 dBm or weaker is empty, -40 dBm or stronger full.
    public static func bar(rssi: Int) -> String {
        let filled = min(10, max(0, (rssi + 100 + 3) / 6))
        return String(repeating: "█", count: filled) + String(repeating: "·", count: 10 - filled)
    }
}
