import Harald
import HaraldATT
import HaraldCodec
import HaraldCore

extension VirtualPeripheral {
    /// The service and characteristic of ``streamingSensor(number:interval:payloadSize:)``.
    public enum StreamingSensor {
        /// A vendor service (16-bit 0xFFF0).
        public static let service = BluetoothUUID(0xFFF0)
        /// The notifying sample characteristic (0xFFF1).
        public static let samples = Characteristic<[UInt8], Notify>(BluetoothUUID(0xFFF1), service: service)
    }

    /// A bare sensor for load tests and benchmarks: while a central has notifications enabled it
    /// notifies a `payloadSize`-byte sample every `interval` (the first 4 bytes count samples,
    /// little-endian), from a timer of the simulation clock (no task per sample); a sample the
    /// link has no room for is dropped, as a sensor's radio queue would drop it. Device `number` gets address `5E:45:00:00:HH:LL` and name `Sensor <number>`.
    ///
    /// 100 of them at 50 Hz for 60 virtual seconds (`interval: .milliseconds(20)`) is the
    /// fan-in benchmark of the engines.
    public static func streamingSensor(number: Int, interval: Duration = .milliseconds(20), payloadSize: Int = 8) -> VirtualPeripheral {
        let address = BluetoothAddress(bytes: [0x5E, 0x45, 0x00, 0x00, UInt8((number >> 8) & 0xFF), UInt8(number & 0xFF)], kind: .random)!
        return VirtualPeripheral(
            address: address, advertisingData: .device(name: "Sensor \(number)", services: [StreamingSensor.service]),
            rssi: RSSI(dBm: Int8(-50 - number % 40)), advertisingInterval: .milliseconds(100)
        ) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: StreamingSensor.service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: StreamingSensor.samples.uuid, properties: [.notify])
                    ])
            ]) { session in
                // A hardware timer, not a task: each sample costs the simulation no job.
                let count = Locked<UInt32>(0)
                let size = max(4, payloadSize)
                session.repeating(every: interval) {
                    let number = count.withLock { value -> UInt32 in
                        value &+= 1
                        return value
                    }
                    var sample = [UInt8](repeating: 0xA5, count: size)
                    sample[0] = UInt8(number & 0xFF)
                    sample[1] = UInt8((number >> 8) & 0xFF)
                    sample[2] = UInt8((number >> 16) & 0xFF)
                    sample[3] = UInt8(number >> 24)
                    session.notifyWithoutWaiting(StreamingSensor.samples.uuid, sample)
                    return true
                }
            }
        }
    }
}
