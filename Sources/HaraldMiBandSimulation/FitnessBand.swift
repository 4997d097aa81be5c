import Foundation
import HaraldCodec
import HaraldCore
import HaraldSimulator

/// The simulated Mi Band 2.
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
            // The same band `harald serve miband` serves, on the simulation's clock.
            let band = FitnessBandDevice(
                name: name, key: key, battery: battery, historyEnd: historyEnd, historyMinutes: historyMinutes,
                continuousTimeout: continuousTimeout, clock: runtime.clock, taskStarter: runtime.clock.taskStarter)
            return PeripheralBehaviour(definition: band.definition) { session in
                band.attach(session.runtime.serving)
                await band.serve(session.central) { await session.sleep(for: $0) }
            }
        }
    }
}
