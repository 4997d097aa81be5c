import Harald
import HaraldGoProSimulation
import HaraldMiBand
import HaraldSimulator

/// The devices `harald demo` shows, in the order it shows them.
enum DemoDevice: CaseIterable, Sendable {
    case strap, camera, band

    var title: String {
        switch self {
        case .strap: "heart-rate strap"
        case .camera: "camera"
        case .band: "fitness band"
        }
    }

    /// Whether an advertisement is this kind of device: by service UUID, or by name when the
    /// device keeps its services out of the advertisement.
    func matches(_ advertisement: Advertisement) -> Bool {
        let name = advertisement.localName ?? ""
        switch self {
        case .strap:
            return advertisement.serviceUUIDs.contains(ServiceSpec.heartRate.uuid) || name.hasPrefix("Harald HR") || name.hasPrefix("Harald-HR")
        case .camera:
            return advertisement.serviceUUIDs.contains(VirtualPeripheral.OpenGoPro.service) || name.hasPrefix("GoPro")
        case .band:
            return advertisement.serviceUUIDs.contains(MiBandUUID.service) || name.uppercased().hasPrefix("MI BAND")
        }
    }
}
