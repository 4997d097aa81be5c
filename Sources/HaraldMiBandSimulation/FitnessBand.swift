import Foundation
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator

extension VirtualPeripheral {
    /// A Mi-Band-2-like fitness band, written from the band's protocol (protocols.md B), not
    /// from the Mi Band kit:
    ///
    /// - 0xFEE1 auth (0x0009): `02 08` → `10 02 01 <16-byte challenge>` (from a fixed-seed
    ///   generator), `03 08 <AES-128-ECB(key, challenge)>` → `10 03 01` or `10 03 04`;
    ///   `01 08 <key>` → `10 01 01` installs a key. A band without a key (`key: nil`) refuses the
    ///   challenge request (`10 02 04`) until one is installed.
    /// - 0xFEE0: realtime steps (0x0007, read/notify once a second, growing by 2 steps a second),
    ///   battery info (0x0006, ``FitnessBandBattery``), activity fetch control (0x0004) and data
    ///   (0x0005, a packet of four minutes every 10 ms) over a deterministic history
    ///   (``FitnessBandSample/minute(_:)``) of `historyMinutes` minutes ending at `historyEnd`.
    /// - Heart Rate: control point `15 02 01` → one measurement `00 <bpm>` 2 s later;
    ///   `15 01 01` → one a second until `15 01 00`, or until no keep-alive (`16`) came for
    ///   `continuousTimeout`.
    /// - Device Information.
    ///
    /// Everything follows virtual time, so runs repeat exactly.
    public static func fitnessBand(
        address: BluetoothAddress = BluetoothAddress("C8:0F:10:00:00:03", kind: .public)!, name: String = "MI Band 2", rssi: RSSI? = -70,
        key: [UInt8]? = FitnessBandState.defaultKey, battery: FitnessBandBattery = FitnessBandState.defaultBattery,
        historyEnd: Date = FitnessBandState.defaultHistoryEnd, historyMinutes: Int = 6 * 60, continuousTimeout: Duration = .seconds(15)
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address, advertisingData: .device(name: name, services: [BandUUID.service]), rssi: rssi,
            advertisingInterval: .milliseconds(250)
        ) { runtime in
            let band = Locked(FitnessBandState(key: key, historyEnd: historyEnd, historyMinutes: historyMinutes, continuousTimeout: continuousTimeout))
            return PeripheralBehaviour(services: services(band, battery: battery, runtime)) { session in
                let connection = session.connection
                var tick = 0
                while await session.sleep(for: .milliseconds(500)) {
                    tick += 1
                    let now = runtime.clock.now.sinceStart
                    let everySecond = tick % 2 == 0
                    if everySecond {
                        let steps = band.withLock { band in
                            band.walk()
                            return band.stepsValue
                        }
                        await session.notify(BandUUID.realtimeSteps, steps)
                    }
                    // Heart Rate Measurement flags 0x00 (8-bit value, nothing else), then bpm.
                    for bpm in band.withLock({ $0.heartRates(for: connection, at: now, everySecond: everySecond) }) {
                        await session.notify(BandUUID.heartRateMeasurement, [0x00, bpm])
                    }
                }
                band.withLock { $0.forget(connection) }
            }
        }
    }

    private static func services(_ band: Locked<FitnessBandState>, battery: FitnessBandBattery, _ runtime: PeripheralRuntime) -> [GATTServiceDefinition] {
        [
            GATTServiceDefinition(uuid: BandUUID.service, characteristics: [
                GATTCharacteristicDefinition(uuid: BandUUID.activityControl, properties: [.write, .notify], onWrite: { context, value throws(ATTErrorCode) in
                    let connection = context.connection
                    switch band.withLock({ $0.fetch(value, connection: connection) }) {
                    case let .reply(bytes):
                        await runtime.notify(BandUUID.activityControl, bytes, to: connection)
                    case let .transfer(packets, closing):
                        // The history goes out after the write is answered, one packet every
                        // 10 ms, as a band streams it; the transfer stops if the link goes.
                        runtime.clock.taskStarter.start {
                            for packet in packets {
                                guard (try? await runtime.clock.sleep(for: .milliseconds(10))) != nil,
                                    await runtime.notify(BandUUID.activityData, packet, to: connection) > 0
                                else { return }
                            }
                            await runtime.notify(BandUUID.activityControl, closing, to: connection)
                        }
                    }
                }),
                GATTCharacteristicDefinition(uuid: BandUUID.activityData, properties: [.notify]),
                GATTCharacteristicDefinition(uuid: BandUUID.batteryInfo, properties: [.read], value: battery.bytes),
                GATTCharacteristicDefinition(uuid: BandUUID.realtimeSteps, properties: [.read, .notify], onRead: { _ throws(ATTErrorCode) in
                    band.withLock { $0.stepsValue }
                }),
            ]),
            GATTServiceDefinition(uuid: BandUUID.authService, characteristics: [
                GATTCharacteristicDefinition(uuid: BandUUID.auth, properties: [.write, .writeWithoutResponse, .notify], onWrite: { context, value throws(ATTErrorCode) in
                    let reply = band.withLock { $0.authenticate(value, connection: context.connection) }
                    await runtime.notify(BandUUID.auth, reply, to: context.connection)
                }),
            ]),
            GATTServiceDefinition(uuid: BandUUID.heartRateService, characteristics: [
                GATTCharacteristicDefinition(uuid: BandUUID.heartRateMeasurement, properties: [.notify]),
                GATTCharacteristicDefinition(uuid: BandUUID.heartRateControlPoint, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                    let now = runtime.clock.now.sinceStart
                    try band.withLock { (state) throws(ATTErrorCode) in try state.control(value, connection: context.connection, at: now) }
                }),
            ]),
            .deviceInformation(manufacturer: "Huami-like", model: "Band 2", serial: "B2-000003", firmware: "1.0.1.81", hardware: "V0.1.3.2"),
        ]
    }
}
