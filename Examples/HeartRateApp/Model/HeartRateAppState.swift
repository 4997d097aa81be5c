import Harald
import HaraldHeartRateMonitor

/// Everything the heart-rate screen shows, as one value.
///
/// ``HeartRateCore`` publishes a new one on every change; ``HeartRateModel`` mirrors it on the
/// main actor for SwiftUI.
public struct HeartRateAppState: Hashable, Sendable {
    /// What the app is doing.
    public var status: Status = .idle
    /// The radio's state (a view says "Bluetooth is off" from it).
    public var radio: RadioState = .unknown
    /// Heart-rate straps found by the running scan, in the order they were heard.
    public var straps: [FoundStrap] = []
    /// The advertised name of the strap in use, when the scan heard it.
    public var strapName: String?
    /// The latest measurement of the connected strap; nil while not connected.
    public var reading: HeartRateReading?
    /// The connected strap's battery charge in percent, once read (nil while the strap cannot
    /// tell).
    public var batteryLevel: Int?

    public init() {}

    /// Heart rate in beats per minute, while connected.
    public var beatsPerMinute: Int? { reading?.beatsPerMinute }
    /// The latest measurement's RR intervals in milliseconds.
    public var rrIntervalsMilliseconds: [Int] { reading?.rrIntervalsMilliseconds ?? [] }
    /// Whether the strap touches the skin; nil when not connected or the strap cannot tell.
    public var hasSkinContact: Bool? {
        guard let reading, reading.sensorContact != .notSupported else { return nil }
        return reading.hasContact
    }

    /// Where the app is, from looking for a strap to being connected to one.
    public enum Status: Hashable, Sendable, CustomStringConvertible {
        /// Not looking for a strap and not using one.
        case idle
        /// Looking for heart-rate straps (``HeartRateAppState/straps``).
        case scanning
        /// A pending connect to the strap: it completes whenever the strap is in range.
        case connecting(PeripheralIdentifier)
        /// Connected; readings arrive.
        case connected(PeripheralIdentifier)
        /// The link was lost; a pending connect brings the strap back.
        case reconnecting(PeripheralIdentifier, lost: DisconnectReason)
        /// Disconnected and staying so: the user's disconnect (`.localRequest`), or the
        /// reconnect policy gave up (the strap stays remembered for the next launch then).
        case disconnected(PeripheralIdentifier, DisconnectReason)
        /// Something other than a lost link stopped the scan or the connection.
        case failed(String)

        /// The strap this status is about.
        public var strap: PeripheralIdentifier? {
            switch self {
            case .idle, .scanning, .failed: nil
            case let .connecting(strap), let .connected(strap), let .reconnecting(strap, _), let .disconnected(strap, _): strap
            }
        }

        /// True while a pending connect waits for the strap (a Cancel button applies).
        public var isConnecting: Bool {
            switch self {
            case .connecting, .reconnecting: true
            default: false
            }
        }

        public var description: String {
            switch self {
            case .idle: "Not connected"
            case .scanning: "Looking for heart-rate straps…"
            case .connecting: "Waiting for the strap…"
            case .connected: "Connected"
            case let .reconnecting(_, reason): "Reconnecting (\(reason))…"
            case .disconnected(_, .localRequest): "Disconnected"
            case let .disconnected(_, reason): "Disconnected: \(reason)"
            case let .failed(problem): "Failed: \(problem)"
            }
        }
    }
}

/// A heart-rate strap heard while scanning.
public struct FoundStrap: Identifiable, Hashable, Sendable {
    /// What to connect to.
    public var id: PeripheralIdentifier
    /// The advertised name, if any.
    public var name: String?
    /// Signal strength when last heard.
    public var rssi: RSSI?

    public init(id: PeripheralIdentifier, name: String?, rssi: RSSI?) {
        self.id = id
        self.name = name
        self.rssi = rssi
    }

    init(_ advertisement: Advertisement) {
        self.init(id: advertisement.peripheral, name: advertisement.localName, rssi: advertisement.rssi)
    }
}
