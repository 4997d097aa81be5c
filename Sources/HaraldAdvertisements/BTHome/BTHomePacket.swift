import HaraldCodec
import HaraldCore

/// The BTHome device information octet, the first octet of BTHome service data.
public struct BTHomeDeviceInformation: Hashable, Sendable {
    /// The octet as sent.
    public var rawValue: UInt8

    /// The device information octet `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: the objects are encrypted (AES-CCM with the device's bind key).
    public var isEncrypted: Bool { rawValue & 0x01 != 0 }
    /// Bit 2: the device advertises when something happens (a button), not at a regular interval,
    /// so a receiver should not call it away for being silent.
    public var isTriggerBased: Bool { rawValue & 0x04 != 0 }
    /// Bits 5–7: the BTHome version (2 for this format).
    public var version: Int { Int(rawValue >> 5) }
}

/// Why BTHome service data could not be decoded. Offsets count from the device information
/// octet (offset 0) of the service data after its UUID; in an encrypted packet the decrypted
/// objects stand where the ciphertext was, from offset 1.
public enum BTHomeError: Error, Hashable, Sendable {
    /// No octets after the UUID.
    case empty
    /// The version bits are not 2 (version 1 used other UUIDs and another layout).
    case unsupportedVersion(Int)
    /// An object id this decoder does not know: the format says to stop there, since its length
    /// is unknown. The objects before it are kept.
    case unknownObjectID(UInt8, offset: Int)
    /// An object's value runs past the end of the data.
    case truncatedObject(UInt8, offset: Int)
    /// An object's value is not valid (a binary sensor that is neither 0 nor 1, text that is not
    /// UTF-8).
    case invalidObject(UInt8, offset: Int)
    /// The packet is encrypted and no bind key was given for the device.
    case missingBindKey
    /// The bind key is not 16 octets.
    case invalidBindKey(length: Int)
    /// An encrypted packet shorter than its counter and MIC (8 octets after the device information).
    case encryptedPacketTooShort(length: Int)
    /// The MIC does not match: wrong bind key, wrong address, or altered bytes.
    case authenticationFailed
}

/// One measurement, state or event of a BTHome packet.
public struct BTHomeMeasurement: Hashable, Sendable {
    /// The object it came from.
    public var object: BTHomeObject
    /// Its value, scaled by the object's factor.
    public var value: AdvertisementValue
    /// The offset of its object id (see ``BTHomeError`` for how offsets count).
    public var offset: Int
}

/// A decoded BTHome v2 packet: the service data for UUID 0xFCD2 (bthome.io/format).
///
/// An object id this decoder does not know ends decoding, as the format asks of receivers (ids
/// are sent in increasing order, so older objects come first): the measurements before it are in
/// ``measurements`` and ``stoppedAt`` says where it stopped. A value that runs past the end or is
/// not valid throws.
public struct BTHomePacket: Hashable, Sendable {
    /// The BTHome service UUID (0xFCD2).
    public static let serviceUUID = BluetoothUUID(0xFCD2)

    /// The device information octet.
    public var deviceInformation: BTHomeDeviceInformation
    /// The packet id (object 0x00), when sent: it changes when the data changes, so a receiver
    /// can skip repeats.
    public var packetID: UInt8?
    /// The encryption counter of an encrypted packet (a receiver checks it increases, against
    /// replay).
    public var counter: UInt32?
    /// The measurements, states and events, in the order sent (without the packet id).
    public var measurements: [BTHomeMeasurement]
    /// Set when decoding stopped at an object id this decoder does not know.
    public var stoppedAt: BTHomeError?

    /// Decodes BTHome `serviceData` (the octets after the UUID) from the device at `address`;
    /// `bindKey` (16 octets) decrypts an encrypted packet, whose nonce includes the address.
    public init(serviceData: [UInt8], address: BluetoothAddress? = nil, bindKey: [UInt8]? = nil) throws(BTHomeError) {
        guard let first = serviceData.first else { throw .empty }
        deviceInformation = BTHomeDeviceInformation(rawValue: first)
        guard deviceInformation.version == 2 else { throw .unsupportedVersion(deviceInformation.version) }
        var objects = Array(serviceData.dropFirst())
        if deviceInformation.isEncrypted {
            guard let bindKey else { throw .missingBindKey }
            let (plaintext, counter) = try Self.decrypt(
                objects, deviceInformation: first, address: address ?? BluetoothAddress.zero, bindKey: bindKey)
            objects = plaintext
            self.counter = counter
        } else {
            counter = nil
        }
        packetID = nil
        measurements = []
        stoppedAt = nil
        try decodeObjects(objects)
    }

    /// The packet of the BTHome service data in `advertisingData`; nil when there is none.
    public init?(advertisingData: AdvertisingData, address: BluetoothAddress? = nil, bindKey: [UInt8]? = nil) throws(BTHomeError) {
        guard let data = advertisingData.serviceData[Self.serviceUUID] else { return nil }
        try self.init(serviceData: data, address: address, bindKey: bindKey)
    }

    /// The measurements as readings (repeated keys numbered `_2`, `_3`, …).
    public var readings: [AdvertisementReading] {
        measurements.map { measurement in
            AdvertisementReading(
                key: measurement.object.key, value: measurement.value, unit: measurement.object.unit,
                deviceClass: measurement.object.deviceClass, decoder: "BTHome")
        }.numberingRepeatedKeys()
    }

    private mutating func decodeObjects(_ bytes: [UInt8]) throws(BTHomeError) {
        var index = 0
        while index < bytes.count {
            let id = bytes[index]
            let offset = index + 1
            guard let object = BTHomeObject.object(for: id) else {
                stoppedAt = .unknownObjectID(id, offset: offset)
                return
            }
            let (value, length) = try Self.value(of: object, in: bytes, at: index + 1, offset: offset)
            if id == BTHomeObject.packetIDObject, case let .number(number) = value {
                packetID = UInt8(number)
            } else {
                measurements.append(BTHomeMeasurement(object: object, value: value, offset: offset))
            }
            index += 1 + length
        }
    }

    /// The value of `object` starting at `start` in `bytes`, and how many octets it took.
    private static func value(
        of object: BTHomeObject, in bytes: [UInt8], at start: Int, offset: Int
    ) throws(BTHomeError) -> (AdvertisementValue, Int) {
        func take(_ count: Int) throws(BTHomeError) -> ArraySlice<UInt8> {
            guard count >= 0, bytes.count - start >= count else { throw .truncatedObject(object.id, offset: offset) }
            return bytes[start..<(start + count)]
        }
        func unsigned(_ octets: ArraySlice<UInt8>) -> UInt64 {
            octets.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch object.layout {
        case let .number(size, signed):
            let raw = unsigned(try take(size))
            let integer: Int64
            if signed {
                let shift = UInt64(64 - 8 * size)
                integer = Int64(bitPattern: raw << shift) >> Int64(shift)
            } else {
                integer = Int64(raw)
            }
            return (.number(scaled(integer, by: object.factor)), size)
        case .binary:
            let octet = try take(1).first ?? 0
            guard octet <= 1 else { throw .invalidObject(object.id, offset: offset) }
            return (.bool(octet == 1), 1)
        case .text, .raw:
            let length = Int(try take(1).first ?? 0)
            guard bytes.count - start - 1 >= length else { throw .truncatedObject(object.id, offset: offset) }
            let content = Array(bytes[(start + 1)..<(start + 1 + length)])
            if object.layout == .raw { return (.text(Hex.encode(content)), 1 + length) }
            // Decoding repairs invalid UTF-8; text that does not survive the round trip was invalid.
            let text = String(decoding: content, as: UTF8.self)
            guard Array(text.utf8) == content else { throw .invalidObject(object.id, offset: offset) }
            return (.text(text), 1 + length)
        case .buttonEvent:
            let octet = try take(1).first ?? 0
            guard let name = BTHomeObject.buttonEvents[octet] else { throw .invalidObject(object.id, offset: offset) }
            return (.text(name), 1)
        case .dimmerEvent:
            let octets = Array(try take(2))
            guard let name = BTHomeObject.dimmerEvents[octets[0]] else { throw .invalidObject(object.id, offset: offset) }
            return (.text(octets[0] == 0 ? name : "\(name) \(octets[1])"), 2)
        case let .firmwareVersion(size):
            let parts = try take(size).reversed().map { String($0) }
            return (.text(parts.joined(separator: ".")), size)
        case .timestamp:
            return (.number(Double(unsigned(try take(4)))), 4)
        }
    }

    /// `integer × factor`, rounded to the factor's decimals so 2506 × 0.01 is 25.06, not
    /// 25.060000000000002.
    private static func scaled(_ integer: Int64, by factor: Double) -> Double {
        guard factor != 1 else { return Double(integer) }
        var decimals = 0
        var probe = factor
        while decimals < 9, (probe - probe.rounded()).magnitude > 1e-9 {
            probe *= 10
            decimals += 1
        }
        var power = 1.0
        for _ in 0..<decimals { power *= 10 }
        return (Double(integer) * factor * power).rounded() / power
    }

    /// Decrypts the octets after the device information: ciphertext, then a 4-octet counter
    /// (little-endian), then the 4-octet MIC. The nonce is the address (as written, most
    /// significant octet first), the UUID as sent (D2 FC), the device information octet and the
    /// counter octets.
    private static func decrypt(
        _ bytes: [UInt8], deviceInformation: UInt8, address: BluetoothAddress, bindKey: [UInt8]
    ) throws(BTHomeError) -> ([UInt8], UInt32) {
        guard bindKey.count == 16 else { throw .invalidBindKey(length: bindKey.count) }
        guard bytes.count >= 8 else { throw .encryptedPacketTooShort(length: bytes.count) }
        let ciphertext = Array(bytes.dropLast(8))
        let counterOctets = Array(bytes.suffix(8).prefix(4))
        let mic = Array(bytes.suffix(4))
        let nonce = address.bytes + [0xD2, 0xFC, deviceInformation] + counterOctets
        let plaintext: [UInt8]
        do {
            plaintext = try AESCCM.open(ciphertext, tag: mic, key: bindKey, nonce: nonce)
        } catch {
            throw .authenticationFailed
        }
        let counter = counterOctets.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (plaintext, counter)
    }
}
