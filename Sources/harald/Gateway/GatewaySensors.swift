import Foundation
import Harald
import HaraldCore
import HaraldGoProSimulation
import HaraldMiBandSimulation
import HaraldSimulator

/// The virtual room `harald gateway --transport sim` listens to, in real time: two BTHome sensors
/// whose readings change (a thermometer drifting, a door opening and closing) next to the demo's
/// strap, camera and band.
struct GatewaySensors: Sendable {
    /// The thermometer: temperature, humidity and battery (BTHome v2).
    static let thermometer = BluetoothAddress("A4:C1:38:00:00:01")!
    /// The door sensor: door open or closed, battery (BTHome v2).
    static let door = BluetoothAddress("A4:C1:38:00:00:02")!

    let simulator: Simulator
    let clock: VirtualClock
    private let tasks: [Task<Void, Never>]

    /// The room, its devices heard `attenuation` dB weaker than nominal (a gateway further away),
    /// with `crowd` more BTHome thermometers advertising once a second (a load for measuring).
    init(attenuation: Int, crowd: Int = 0) throws {
        let clock = VirtualClock()
        func weaker(_ device: VirtualPeripheral) -> VirtualPeripheral {
            var device = device
            device.rssi = device.rssi.flatMap { RSSI(dBm: Int($0.dBm) - attenuation) }
            return device
        }
        let devices =
            [
                Self.sensor(Self.thermometer, data: Self.thermometerData(step: 0), rssi: -52),
                Self.sensor(Self.door, data: Self.doorData(open: false), rssi: -67),
                .heartRateStrap(), .actionCamera(), .fitnessBand(),
            ].map(weaker) + (0..<crowd).map(Self.crowdSensor)
        let simulator = try Simulator(clock: clock, devices: devices)
        self.simulator = simulator
        self.clock = clock
        // Virtual time follows the wall clock, so devices advertise at their real intervals.
        let pace = Task {
            let start = ContinuousClock.now
            while !Task.isCancelled {
                clock.advance(to: VirtualInstant(sinceStart: start.duration(to: .now)))
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        // The readings change: every 10 s the thermometer drifts; every 30 s the door turns.
        let readings = Task {
            var step = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(10))
                step += 1
                simulator.setAdvertisingData(Self.thermometerData(step: step), of: Self.thermometer)
                if step % 3 == 0 { simulator.setAdvertisingData(Self.doorData(open: step % 6 == 3), of: Self.door) }
            }
        }
        tasks = [pace, readings]
    }

    func stop() {
        for task in tasks { task.cancel() }
        clock.end()
    }

    /// The `index`th thermometer of the crowd: A4:C1:39:xx:xx:xx, RSSI −60…−89 dBm, temperature
    /// varying with the index.
    static func crowdSensor(_ index: Int) -> VirtualPeripheral {
        let address = BluetoothAddress(value: 0xA4C1_3900_0000 + UInt64(index), kind: .public)!
        return sensor(address, data: thermometerData(step: index), rssi: RSSI(dBm: Int8(-60 - index % 30)))
    }

    private static func sensor(_ address: BluetoothAddress, data: AdvertisingData, rssi: RSSI) -> VirtualPeripheral {
        VirtualPeripheral(address: address, advertisingData: data, isConnectable: false, rssi: rssi, advertisingInterval: .seconds(1)) { _ in
            PeripheralBehaviour(services: [])
        }
    }

    /// BTHome v2, unencrypted: temperature (0x02, 0.01 °C), humidity (0x03, 0.01 %), battery (0x01, %).
    static func thermometerData(step: Int) -> AdvertisingData {
        let temperature = UInt16(2_150 + (step % 12) * 5)
        let humidity = UInt16(4_800 - (step % 8) * 25)
        return AdvertisingData(structures: [
            .init(type: .serviceData16BitUUID, data: [0xD2, 0xFC, 0x40, 0x01, 0x5C] + [0x02] + le(temperature) + [0x03] + le(humidity)),
            .init(type: .completeLocalName, data: Array("Kitchen".utf8)),
        ])
    }

    /// BTHome v2, unencrypted: battery (0x01, %) and door (0x1A, 1 = open).
    static func doorData(open: Bool) -> AdvertisingData {
        AdvertisingData(structures: [
            .init(type: .serviceData16BitUUID, data: [0xD2, 0xFC, 0x40, 0x01, 0x4B, 0x1A, open ? 1 : 0]),
            .init(type: .completeLocalName, data: Array("Front door".utf8)),
        ])
    }

    private static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
