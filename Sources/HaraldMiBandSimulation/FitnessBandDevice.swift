import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldSimulator

/// Being a Mi-Band-2-like fitness band (written from the band's protocol, protocols.md B, not
/// from the Mi Band kit): the device definition and the band behind it, for any
/// `PeripheralBackend` — the simulator (`VirtualPeripheral/fitnessBand(address:name:rssi:key:battery:historyEnd:historyMinutes:continuousTimeout:)`
/// wraps it), Harald's HCI host (`harald serve miband`), CoreBluetooth.
///
/// What it does is described on the simulator's `fitnessBand`; answers go out as notifications
/// to the central that asked, through the `ServingBackend` the band runs on.
public final class FitnessBandDevice: Sendable {
    /// What the band serves and advertises.
    public let definition: PeripheralDefinition
    private let band: Locked<FitnessBandState>
    private let clock: any Clock<Duration>
    private let stopwatch: Stopwatch
    /// Where notifications go: the backend the band runs on (set by ``run(_:)`` or ``attach(_:)``).
    private let backend: Locked<(any ServingBackend)?>

    /// A band: its advertised name, its 16-byte auth key, its battery and the minutes of history it holds.
    public init(
        name: String = "MI Band 2", key: [UInt8]? = FitnessBandState.defaultKey, battery: FitnessBandBattery = FitnessBandState.defaultBattery,
        historyEnd: Date = FitnessBandState.defaultHistoryEnd, historyMinutes: Int = 6 * 60, continuousTimeout: Duration = .seconds(15),
        clock: any Clock<Duration> = ContinuousClock(), taskStarter: TaskStarter = .default
    ) {
        let band = Locked(FitnessBandState(key: key, historyEnd: historyEnd, historyMinutes: historyMinutes, continuousTimeout: continuousTimeout))
        let backend = Locked<(any ServingBackend)?>(nil)
        let stopwatch = Stopwatch(clock)
        self.band = band
        self.clock = clock
        self.stopwatch = stopwatch
        self.backend = backend
        let taskClock = clock
        // Weak: the band's server holds these handlers and the backend holds the server, so a
        // strong capture would keep band, backend and server alive for ever.
        let send: @Sendable (BluetoothUUID, BluetoothUUID, [UInt8], CentralIdentifier) async -> Bool = { [weak backend] uuid, service, bytes, central in
            guard let backend = backend?.withLock({ $0 }) else { return false }
            return ((try? await backend.notify(bytes, characteristic: uuid, service: service, to: central)) ?? 0) > 0
        }
        @Sendable func notify(_ uuid: BluetoothUUID, in service: BluetoothUUID, _ bytes: [UInt8], to central: CentralIdentifier) async -> Bool {
            await send(uuid, service, bytes, central)
        }
        definition = PeripheralDefinition(
            advertisement: PeripheralAdvertisement(name: name, services: [BandUUID.service]),
            services: [
                ServiceDefinition(
                    uuid: BandUUID.service,
                    characteristics: [
                        CharacteristicDefinition(
                            uuid: BandUUID.activityControl, properties: [.write, .notify],
                            onWrite: { request, value throws(ATTErrorCode) in
                                let central = request.central
                                switch band.withLock({ $0.fetch(value, connection: central) }) {
                                case let .reply(bytes):
                                    _ = await notify(BandUUID.activityControl, in: BandUUID.service, bytes, to: central)
                                case let .transfer(packets, closing):
                                    // The history goes out after the write is answered, one packet every
                                    // 10 ms, as a band streams it; the transfer stops if the link goes.
                                    taskStarter.start {
                                        for packet in packets {
                                            guard (try? await taskClock.sleep(for: .milliseconds(10))) != nil,
                                                await notify(BandUUID.activityData, in: BandUUID.service, packet, to: central)
                                            else { return }
                                        }
                                        _ = await notify(BandUUID.activityControl, in: BandUUID.service, closing, to: central)
                                    }
                                }
                            }),
                        CharacteristicDefinition(uuid: BandUUID.activityData, properties: [.notify]),
                        CharacteristicDefinition(uuid: BandUUID.batteryInfo, properties: [.read], value: battery.bytes),
                        CharacteristicDefinition(
                            uuid: BandUUID.realtimeSteps, properties: [.read, .notify],
                            onRead: { _ throws(ATTErrorCode) in
                                band.withLock { $0.stepsValue }
                            }),
                    ]),
                ServiceDefinition(
                    uuid: BandUUID.authService,
                    characteristics: [
                        CharacteristicDefinition(
                            uuid: BandUUID.auth, properties: [.write, .writeWithoutResponse, .notify],
                            onWrite: { request, value throws(ATTErrorCode) in
                                let reply = band.withLock { $0.authenticate(value, connection: request.central) }
                                _ = await notify(BandUUID.auth, in: BandUUID.authService, reply, to: request.central)
                            })
                    ]),
                ServiceDefinition(
                    uuid: BandUUID.heartRateService,
                    characteristics: [
                        CharacteristicDefinition(uuid: BandUUID.heartRateMeasurement, properties: [.notify]),
                        CharacteristicDefinition(
                            uuid: BandUUID.heartRateControlPoint, properties: [.write],
                            onWrite: { request, value throws(ATTErrorCode) in
                                let now = stopwatch.elapsed
                                try band.withLock { (state) throws(ATTErrorCode) in try state.control(value, connection: request.central, at: now) }
                            }),
                    ]),
                ServiceDefinition(
                    uuid: BluetoothUUID(0x180A),
                    characteristics: [
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A29), properties: [.read], value: Array("Huami-like".utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: [.read], value: Array("Band 2".utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A25), properties: [.read], value: Array("B2-000003".utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A26), properties: [.read], value: Array("1.0.1.81".utf8)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0x2A27), properties: [.read], value: Array("V0.1.3.2".utf8)),
                    ]),
            ])
    }

    /// Sends the band's notifications through `backend` from now on.
    public func attach(_ backend: any ServingBackend) { self.backend.withLock { $0 = backend } }

    /// Serves one central while it stays connected: realtime steps every second, heart-rate
    /// measurements when asked for; `sleep` returns false once the central is gone.
    public func serve(_ central: CentralIdentifier, sleep: @escaping @Sendable (Duration) async -> Bool) async {
        var tick = 0
        while await sleep(.milliseconds(500)) {
            tick += 1
            let now = stopwatch.elapsed
            let everySecond = tick % 2 == 0
            guard let backend = backend.withLock({ $0 }) else { continue }
            if everySecond {
                let steps = band.withLock { band in
                    band.walk()
                    return band.stepsValue
                }
                _ = try? await backend.notify(steps, characteristic: BandUUID.realtimeSteps, service: BandUUID.service, to: central)
            }
            // Heart Rate Measurement flags 0x00 (8-bit value, nothing else), then bpm.
            for bpm in band.withLock({ $0.heartRates(for: central, at: now, everySecond: everySecond) }) {
                _ = try? await backend.notify([0x00, bpm], characteristic: BandUUID.heartRateMeasurement, service: BandUUID.heartRateService, to: central)
            }
        }
        band.withLock { $0.forget(central) }
    }

    /// Runs the band on `served` until the calling task is cancelled or serving stops.
    public func run(_ served: ServedPeripheral) async {
        attach(served.backend)
        await served.serveEachCentral(clock: clock) { [self] central, sleep in await serve(central, sleep: sleep) }
    }
}
