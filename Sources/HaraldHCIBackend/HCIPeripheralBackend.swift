import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink
import HaraldHCI
import HaraldL2CAP
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
    /// With `security`: advertise from resolvable private addresses of our IRK (from the bond
    /// store's identity), rotated every ``privateAddressInterval``, instead of the static identity
    /// address.
    public let privateAddress: Bool
    /// How long one private address lasts (T_GAP(private_addr_int), 15 minutes by default).
    public let privateAddressInterval: Duration
    private let serving = Locked(false)

    /// A backend that opens `transport` (`tcp:HOST:PORT` or `hci:N`) when it first serves;
    /// `privateAddress` turns on LE privacy for our address (with `security`, whose bond store
    /// holds our IRK).
    public init(
        transport: String, configuration: HCIHost.Configuration = HCIHost.Configuration(), security: SecurityConfiguration? = nil,
        privateAddress: Bool = false, privateAddressInterval: Duration = PrivateAddressRotation.defaultInterval
    ) {
        self.transport = transport
        self.configuration = configuration
        self.security = security
        self.privateAddress = privateAddress
        self.privateAddressInterval = privateAddressInterval
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
        guard
            serving.withLock({ busy in
                defer { busy = true }; return !busy
            })
        else {
            throw .misuse("this backend serves a definition already (a controller has one GATT database)")
        }
        do {
            let peripheral = try await HCIPeripheral.open(
                transport: transport, services: definition.gattServices(), configuration: configuration, security: security,
                privateAddress: privateAddress, privateAddressInterval: privateAddressInterval)
            // Security events name the central as the served definition's events do; the box is
            // filled before any central can connect (advertising starts below).
            let servingBox = Locked<GATTServing?>(nil)
            await peripheral.setLinkEventSink { connection, event in
                let central = CentralIdentifier(connection)
                let translated: PeripheralEvent? =
                    switch event {
                    case let .encrypted(_, level): .secured(central, level)
                    case let .paired(_, _, bonded): .paired(central, bonded: bonded)
                    case let .pairingFailed(_, reason): .pairingFailed(central, reason: reason)
                    case .connected, .disconnected: nil  // the GATT server reports these
                    }
                if let translated { servingBox.withLock { $0 }?.report(translated) }
            }
            do { try await peripheral.advertise(setup) } catch {
                await peripheral.close()
                if case .unsupported(let detail) = error { throw BluetoothError.unsupported(detail) }
                throw error
            }
            let serving = self.serving
            let served = GATTServing(server: peripheral.server) {
                await peripheral.close()
                serving.withLock { $0 = false }
            }
            served.setChannelServing { psm, level, options throws(BluetoothError) in
                do throws(HCIError) {
                    let listener = try await peripheral.serveChannels(
                        spsm: psm?.rawValue, requirement: GATTSecurityRequirement(level: level), limits: HCIChannel.limits(options))
                    return HCIChannelServer(listener: listener, peripheral: peripheral)
                } catch {
                    throw HCIChannel.translate(error)
                }
            }
            servingBox.withLock { $0 = served }
            return served
        } catch {
            serving.withLock { $0 = false }
            throw BluetoothError(error)
        }
    }
}
