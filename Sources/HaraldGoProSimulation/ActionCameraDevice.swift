import Harald
import HaraldCodec
import HaraldCore
import HaraldSimulator

/// Being a GoPro-like action camera (the Open GoPro BLE protocol, written from its documentation):
/// the device definition and the camera behind it, for any `PeripheralBackend` — the simulator
/// (`VirtualPeripheral/actionCamera(address:name:rssi:pairing:bootTime:faults:)` wraps it),
/// Harald's HCI host (`harald serve gopro`), CoreBluetooth.
///
/// Requests written to the command, settings and query characteristics are reassembled per
/// central and characteristic; answers and pushes go out as notifications of the matching
/// response characteristic, one whole message at a time per central. The SSID of the WiFi AP
/// service needs an encrypted link, as on the real camera.
public final class ActionCameraDevice: Sendable {
    /// What the camera serves and advertises.
    public let definition: PeripheralDefinition
    private let camera: Locked<ActionCameraState>
    private let assemblers = CameraRequestAssemblers()
    /// The camera's clock: time since it was made.
    private let stopwatch: Stopwatch

    /// - Parameters:
    ///   - name: the Complete Local Name it advertises.
    ///   - bootTime: how long after a central connects Get Hardware Info is still refused (status
    ///     1, busy), as on a camera that is booting.
    ///   - faults: misbehaviours to play (see ``ActionCameraFault``).
    ///   - clock: the camera's time (virtual in a simulation).
    public convenience init(
        name: String = "GoPro 0042", bootTime: Duration = .seconds(1), faults: [ActionCameraFault] = [],
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(identity: CameraIdentity(), name: name, bootTime: bootTime, faults: faults, clock: clock)
    }

    init(identity: CameraIdentity, name: String, bootTime: Duration, faults: [ActionCameraFault], clock: any Clock<Duration>) {
        let camera = Locked(ActionCameraState(identity: identity, bootTime: bootTime, faults: faults))
        let assemblers = assemblers
        let stopwatch = Stopwatch(clock)
        self.camera = camera
        self.stopwatch = stopwatch
        func request(_ uuid: BluetoothUUID) -> CharacteristicDefinition {
            CharacteristicDefinition(
                uuid: uuid, properties: [.write],
                onWrite: { request, value throws(ATTErrorCode) in
                    guard let message = assemblers.take(value, from: request.central, on: uuid) else { return }
                    let now = stopwatch.elapsed
                    camera.withLock { $0.handle(message, on: uuid, from: request.central, at: now) }
                })
        }
        definition = PeripheralDefinition(
            advertisement: PeripheralAdvertisement(name: name, services: [OpenGoPro.service]),
            services: [
                ServiceDefinition(
                    uuid: OpenGoPro.service,
                    characteristics: [
                        request(OpenGoPro.command),
                        CharacteristicDefinition(uuid: OpenGoPro.commandResponse, properties: [.notify]),
                        request(OpenGoPro.settings),
                        CharacteristicDefinition(uuid: OpenGoPro.settingsResponse, properties: [.notify]),
                        request(OpenGoPro.query),
                        CharacteristicDefinition(uuid: OpenGoPro.queryResponse, properties: [.notify]),
                    ]),
                ServiceDefinition(
                    uuid: OpenGoPro.wifiService,
                    characteristics: [
                        CharacteristicDefinition(
                            uuid: OpenGoPro.wifiSSID, properties: [.read], readSecurity: .encrypted, value: Array(identity.accessPointSSID.utf8))
                    ]),
                ServiceDefinition(
                    uuid: BluetoothUUID(0x180A),
                    characteristics: [
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A29), properties: [.read], value: Array("Harald Labs".utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: [.read], value: Array("Action 12".utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A25), properties: [.read], value: Array(identity.serial.utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A26), properties: [.read], value: Array(identity.firmware.utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A27), properties: [.read], value: Array("1".utf8)),
                    ]),
            ])
    }

    /// Serves one central for as long as it stays connected: sends its answers and pushes through
    /// `notify` (characteristic, packet) and keeps the camera's one-second clock; `sleep` returns
    /// false once the central is gone.
    public func serve(
        _ central: CentralIdentifier, notify: @escaping @Sendable (BluetoothUUID, [UInt8]) async -> Void,
        sleep: @escaping @Sendable (Duration) async -> Bool
    ) async {
        let (camera, stopwatch) = (camera, stopwatch)
        let outbox = camera.withLock { $0.connected(central, at: stopwatch.elapsed) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The central's only sender: the packets of an answer and of a push never interleave.
                for await message in outbox {
                    if message.delay > .zero, await !sleep(message.delay) { break }
                    for packet in message.packets { await notify(message.characteristic, packet) }
                }
            }
            group.addTask {
                while await sleep(.seconds(1)) {
                    let now = stopwatch.elapsed
                    camera.withLock { $0.tick(central, at: now) }
                }
            }
            await group.next()
            group.cancelAll()
        }
        camera.withLock { $0.disconnected(central) }?.finish()
        assemblers.forget(central)
    }

    /// Runs the camera on `served` until the calling task is cancelled or serving stops: one
    /// ``serve(_:notify:sleep:)`` per connected central.
    public func run(_ served: ServedPeripheral, clock: any Clock<Duration> = ContinuousClock()) async {
        await served.serveEachCentral(clock: clock) { [self] central, sleep in
            await serve(
                central,
                notify: { characteristic, packet in
                    _ = try? await served.backend.notify(packet, characteristic: characteristic, service: OpenGoPro.service, to: central)
                },
                sleep: sleep)
        }
    }
}

private typealias OpenGoPro = VirtualPeripheral.OpenGoPro

/// The camera's request assemblers: one per central and request characteristic.
final class CameraRequestAssemblers: Sendable {
    private let assemblers = Locked<[CentralIdentifier: [BluetoothUUID: CameraRequestAssembler]]>([:])

    /// The complete request when `packet` ends one; nil while more packets are due, and for a
    /// packet the camera drops.
    func take(_ packet: [UInt8], from central: CentralIdentifier, on characteristic: BluetoothUUID) -> [UInt8]? {
        assemblers.withLock { $0[central, default: [:]][characteristic, default: CameraRequestAssembler()].take(packet) }
    }

    func forget(_ central: CentralIdentifier) {
        _ = assemblers.withLock { $0.removeValue(forKey: central) }
    }
}
