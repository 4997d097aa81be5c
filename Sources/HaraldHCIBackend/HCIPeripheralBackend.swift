import Harald
import HaraldATT
import HaraldCore
import HaraldGATTBackend
import HaraldHCI
import HaraldSMP

/// The Linux peripheral backend: serves a `PeripheralDefinition` with Harald's own host stack
/// over an HCI transport (``HCIPeripheral``): legacy advertising (again after every
/// disconnection), a GATT server per central, and — with a `SecurityConfiguration` — the
/// Security Manager as responder with bonds.
public struct HCIPeripheralBackend: PeripheralBackend {
    /// `tcp:HOST:PORT` or `hci:N`.
    public let transport: String
    /// The host's settings.
    public let configuration: HCIHost.Configuration
    /// Pairing settings; nil refuses pairing.
    public let security: SecurityConfiguration?
    private let serving = Locked(false)

    /// A backend that opens `transport` (`tcp:HOST:PORT` or `hci:N`) when it first serves.
    public init(transport: String, configuration: HCIHost.Configuration = HCIHost.Configuration(), security: SecurityConfiguration? = nil) {
        self.transport = transport
        self.configuration = configuration
        self.security = security
    }

    public func serve(_ definition: PeripheralDefinition) async throws(BluetoothError) -> any ServingBackend {
        // Legacy advertising when it fits (every central scans for it); else one extended
        // advertising set, when the controller has extended advertising.
        let advertisement = definition.advertisement
        let setup: HostAdvertising
        if let payloads = advertisement.legacyPayloads() {
            setup = .legacy(
                LegacyAdvertising(kind: advertisement.isConnectable ? .connectable : .nonConnectable, data: payloads.data, scanResponse: payloads.scanResponse))
        } else {
            setup = .extended(ExtendedAdvertising(kind: advertisement.isConnectable ? .connectable : .nonConnectable, data: advertisement.advertisingData))
        }
        guard serving.withLock({ busy in defer { busy = true }; return !busy }) else {
            throw .misuse("this backend serves a definition already (a controller has one GATT database)")
        }
        do {
            let peripheral = try await HCIPeripheral.open(
                transport: transport, services: definition.gattServices(), configuration: configuration, security: security)
            do { try await peripheral.advertise(setup) } catch {
                await peripheral.close()
                if case .unsupported(let detail) = error { throw BluetoothError.unsupported(detail) }
                throw error
            }
            let serving = self.serving
            return GATTServing(server: peripheral.server) {
                await peripheral.close()
                serving.withLock { $0 = false }
            }
        } catch {
            serving.withLock { $0 = false }
            throw BluetoothError(error)
        }
    }
}
