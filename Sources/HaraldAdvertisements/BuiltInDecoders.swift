import HaraldAssignedNumbers
import HaraldCodec
import HaraldCore
import HaraldProfiles

/// BTHome v2 service data (UUID 0xFCD2), decrypting packets of devices whose bind key it holds.
public struct BTHomeDecoder: AdvertisementDecoder {
    public var name: String { "BTHome" }
    /// The 16-octet bind keys of encrypted devices, by address.
    public var bindKeys: [BluetoothAddress: [UInt8]]

    /// A BTHome decoder holding `bindKeys`.
    public init(bindKeys: [BluetoothAddress: [UInt8]] = [:]) {
        self.bindKeys = bindKeys
    }

    public func decode(_ advertisement: ReceivedAdvertisement, into result: inout AdvertisementDecoding) {
        guard let data = advertisement.data.serviceData[BTHomePacket.serviceUUID] else { return }
        let key = advertisement.address.flatMap { address in
            bindKeys[address] ?? bindKeys.first { $0.key.value == address.value }?.value
        }
        do {
            let packet = try BTHomePacket(serviceData: data, address: advertisement.address, bindKey: key)
            result.readings += packet.readings
            if let stop = packet.stoppedAt { result.failures.append(.init(decoder: name, error: .bthome(stop))) }
        } catch {
            result.failures.append(.init(decoder: name, error: .bthome(error)))
        }
    }
}

/// SIG service data whose value has a standard layout: the Battery Service or Battery Level
/// (one octet, percent), the Health Thermometer or Temperature Measurement (through
/// HaraldProfiles' codecs), and the Environmental Sensing values Temperature (0x2A6E, 0.01 °C),
/// Humidity (0x2A6F, 0.01 %) and Pressure (0x2A6D, 0.1 Pa, reported in hPa).
public struct SIGServiceDataDecoder: AdvertisementDecoder {
    public var name: String { "SIG service data" }

    /// A decoder of SIG service data.
    public init() {}

    public func decode(_ advertisement: ReceivedAdvertisement, into result: inout AdvertisementDecoding) {
        let serviceData = advertisement.data.serviceData
        for uuid in serviceData.keys.sorted() {
            guard let bytes = serviceData[uuid], let decode = Self.decoders[uuid] else { continue }
            collect(into: &result) { () throws(AdvertisementDecodingError) in
                do throws(ByteDecodingError) {
                    return try decode(bytes).map { reading in
                        AdvertisementReading(
                            key: reading.key, value: reading.value, unit: reading.unit, deviceClass: reading.deviceClass,
                            decoder: name)
                    }
                } catch {
                    throw .bytes(error)
                }
            }
        }
    }

    private typealias Decode = @Sendable ([UInt8]) throws(ByteDecodingError) -> [AdvertisementReading]

    private static let decoders: [BluetoothUUID: Decode] = [
        BluetoothUUID(0x180F): battery, BatteryLevel.uuid: battery,
        BluetoothUUID(0x1809): thermometer, TemperatureMeasurement.uuid: thermometer,
        BluetoothUUID(0x2A6E): essTemperature, BluetoothUUID(0x2A6F): essHumidity, BluetoothUUID(0x2A6D): essPressure,
    ]

    private static func reading(_ key: String, _ value: Double, _ unit: String) -> AdvertisementReading {
        AdvertisementReading(key: key, value: .number(value), unit: unit, deviceClass: key, decoder: "")
    }

    private static let battery: Decode = { (bytes) throws(ByteDecodingError) in
        guard let percent = try BatteryLevel(decoding: bytes).percent else { return [] }
        return [reading("battery", Double(percent), "%")]
    }

    private static let thermometer: Decode = { (bytes) throws(ByteDecodingError) in
        let celsius = try TemperatureMeasurement(decoding: bytes).celsius
        return celsius.isFinite ? [reading("temperature", celsius, "°C")] : []
    }

    /// Temperature (0x2A6E): sint16 in 0.01 °C; 0x8000 is "not known".
    private static let essTemperature: Decode = { (bytes) throws(ByteDecodingError) in
        let raw = try Int16(decoding: bytes)
        return raw == Int16.min ? [] : [reading("temperature", Double(raw) / 100, "°C")]
    }

    /// Humidity (0x2A6F): uint16 in 0.01 %; 0xFFFF is "not known".
    private static let essHumidity: Decode = { (bytes) throws(ByteDecodingError) in
        let raw = try UInt16(decoding: bytes)
        return raw == UInt16.max ? [] : [reading("humidity", Double(raw) / 100, "%")]
    }

    /// Pressure (0x2A6D): uint32 in 0.1 Pa, reported in hPa (1 hPa = 1000 units).
    private static let essPressure: Decode = { (bytes) throws(ByteDecodingError) in
        let raw = try UInt32(decoding: bytes)
        return [reading("pressure", Double(raw) / 1000, "hPa")]
    }
}

/// The beacons HaraldCore decodes: iBeacon (Apple manufacturer data) and Eddystone UID, URL, TLM
/// and EID (service data 0xFEAA).
public struct BeaconDecoder: AdvertisementDecoder {
    public var name: String { "Beacon" }

    /// A decoder of iBeacon and Eddystone frames.
    public init() {}

    public func decode(_ advertisement: ReceivedAdvertisement, into result: inout AdvertisementDecoding) {
        if let beacon = advertisement.data.iBeacon {
            result.readings += [
                text("ibeacon_uuid", beacon.proximityUUID.uuidString),
                number("ibeacon_major", Double(beacon.major)),
                number("ibeacon_minor", Double(beacon.minor)),
                number("ibeacon_tx_power", Double(beacon.measuredPower), unit: "dBm", deviceClass: "signal_strength"),
            ]
        }
        guard let frame = advertisement.data.serviceData[EddystoneFrame.serviceUUID] else { return }
        collect(into: &result) { () throws(AdvertisementDecodingError) in
            let decoded: EddystoneFrame
            do throws(ByteDecodingError) { decoded = try EddystoneFrame(decoding: frame) } catch { throw .bytes(error) }
            switch decoded {
            case let .uid(uid):
                return [
                    text("eddystone_namespace", Hex.encode(uid.namespace)), text("eddystone_instance", Hex.encode(uid.instance)),
                ]
            case let .url(url):
                return [text("eddystone_url", url.url)]
            case let .eid(_, identifier):
                return [text("eddystone_eid", Hex.encode(identifier))]
            case let .tlm(tlm):
                var readings: [AdvertisementReading] = []
                if let millivolts = tlm.batteryVoltage {
                    readings.append(number("battery_voltage", Double(millivolts) / 1000, unit: "V", deviceClass: "voltage"))
                }
                if let celsius = tlm.temperature {
                    readings.append(number("temperature", celsius, unit: "°C", deviceClass: "temperature"))
                }
                readings.append(number("advertising_count", Double(tlm.advertisingCount)))
                readings.append(number("uptime", Double(tlm.uptimeTenths) / 10, unit: "s", deviceClass: "duration"))
                return readings
            }
        }
    }

    private func text(_ key: String, _ value: String) -> AdvertisementReading {
        AdvertisementReading(key: key, value: .text(value), decoder: name)
    }

    private func number(_ key: String, _ value: Double, unit: String? = nil, deviceClass: String? = nil) -> AdvertisementReading {
        AdvertisementReading(key: key, value: .number(value), unit: unit, deviceClass: deviceClass, decoder: name)
    }
}

/// The name of the company whose identifier opens the manufacturer-specific data (Assigned
/// Numbers), as the reading `manufacturer`; nothing for an identifier the table does not name.
public struct ManufacturerNameDecoder: AdvertisementDecoder {
    public var name: String { "Manufacturer" }

    /// A decoder of the manufacturer's name.
    public init() {}

    public func decode(_ advertisement: ReceivedAdvertisement, into result: inout AdvertisementDecoding) {
        guard let companyID = advertisement.data.manufacturerData?.companyID,
            let company = AssignedNumbers.companyName(companyID)
        else { return }
        result.readings.append(AdvertisementReading(key: "manufacturer", value: .text(company), decoder: name))
    }
}
