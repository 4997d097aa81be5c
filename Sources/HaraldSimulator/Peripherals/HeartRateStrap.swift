import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldProfiles

extension VirtualPeripheral {
    /// A chest heart-rate strap: Heart Rate (0x180D) with a measurement notified about once a
    /// second while subscribed (heart rate drifting 60…100 bpm, sensor contact, energy expended
    /// growing ~1 kJ per measurement, one RR interval), Body Sensor Location (chest), Heart Rate
    /// Control Point (0x01 resets energy expended; any other value is refused with ATT error 0x80,
    /// Control Point Not Supported), Battery (0x180F, 87 %, readable and notifiable) and Device
    /// Information (0x180A). Values are deterministic, so runs repeat exactly.
    ///
    /// With `protectedSerialNumber` the Serial Number String (0x2A25) needs an encrypted link: a
    /// read before pairing is refused with Insufficient Encryption, which starts pairing (see
    /// ``PairingResponse``), as a strap that keeps its identity private until bonded does.
    public static func heartRateStrap(
        address: BluetoothAddress = BluetoothAddress("C0:FF:EE:00:00:01", kind: .random)!, name: String = "Harald HR",
        rssi: RSSI? = -58, measurementInterval: Duration = .seconds(1), protectedSerialNumber: Bool = false
    ) -> VirtualPeripheral {
        VirtualPeripheral(
            address: address,
            advertisingData: .device(name: name, services: [BluetoothUUID(0x180D), BluetoothUUID(0x180F)]),
            rssi: rssi, advertisingInterval: .milliseconds(100)
        ) { _ in
            let state = HeartRateStrapState()
            var services = HeartRateStrapState.services(state: state)
            if protectedSerialNumber {
                for service in services.indices where services[service].uuid == BluetoothUUID(0x180A) {
                    for index in services[service].characteristics.indices
                    where services[service].characteristics[index].uuid == BluetoothUUID(0x2A25) {
                        services[service].characteristics[index].permissions = [.read, .readEncrypted]
                    }
                }
            }
            return PeripheralBehaviour(services: services) { session in
                while await session.sleep(for: measurementInterval) {
                    await session.notify(HeartRateMeasurement.uuid, state.nextMeasurement())
                }
            }
        }
    }
}

/// The strap's sensor state, shared by its control point handler and its measurement script.
final class HeartRateStrapState: Sendable {
    /// Measurements so far, and the energy expended (kJ) since the last reset.
    private let sensor = Locked((tick: 0, energy: UInt16(0)))

    /// The next measurement's bytes: heart rate follows a fixed 20-step pattern.
    func nextMeasurement() -> [UInt8] {
        let (rate, spent) = sensor.withLock { sensor -> (UInt16, UInt16) in
            let pattern: [UInt16] = [72, 74, 77, 80, 84, 88, 91, 95, 98, 100, 97, 93, 89, 85, 81, 78, 75, 71, 66, 62]
            let rate = pattern[sensor.tick % pattern.count]
            sensor.tick += 1
            sensor.energy = sensor.energy == .max ? .max : sensor.energy + 1
            return (rate, sensor.energy)
        }
        let measurement = HeartRateMeasurement(
            heartRate: rate, sensorContact: .detected, energyExpended: spent, rrIntervals: RRIntervals([UInt16(60 * 1024 / Int(rate))]))
        return wireBytes(measurement)
    }

    func resetEnergyExpended() { sensor.withLock { $0.energy = 0 } }

    static func services(state: HeartRateStrapState) -> [GATTServiceDefinition] {
        [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180D),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: HeartRateMeasurement.uuid, properties: [.notify]),
                    GATTCharacteristicDefinition(uuid: BodySensorLocation.uuid, properties: [.read], value: wireBytes(BodySensorLocation.chest)),
                    GATTCharacteristicDefinition(
                        uuid: HeartRateControlPoint.uuid, properties: [.write],
                        onWrite: { _, value throws(ATTErrorCode) in
                            guard value == [0x01] else { throw ATTErrorCode(HeartRateControlPoint.controlPointNotSupported) }
                            state.resetEnergyExpended()
                        }),
                ]),
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180F),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BatteryLevel.uuid, properties: [.read, .notify], value: BatteryLevel(percent: 87).map(wireBytes) ?? [])
                ]),
            .deviceInformation(manufacturer: "Harald Labs", model: "HR-1", serial: "HR1-000042", firmware: "1.4.2", hardware: "B"),
        ]
    }
}
