import HaraldCodec
import HaraldCore

/// One advertisement as a decoder sees it: its data (advertising data and scan response merged)
/// and, when known, the address that sent it (BTHome's encryption nonce includes it).
public struct ReceivedAdvertisement: Hashable, Sendable {
    /// The advertising data.
    public var data: AdvertisingData
    /// The advertiser's address, when known.
    public var address: BluetoothAddress?

    /// An advertisement carrying `data`, from `address`.
    public init(data: AdvertisingData, address: BluetoothAddress? = nil) {
        self.data = data
        self.address = address
    }
}

/// Why a decoder could not read its part of an advertisement.
public enum AdvertisementDecodingError: Error, Hashable, Sendable {
    /// BTHome service data that did not decode.
    case bthome(BTHomeError)
    /// Bytes that did not decode as the value they claim to be (SIG service data, a beacon).
    case bytes(ByteDecodingError)
    /// A kit's decoder rejected its data, saying why.
    case rejected(String)
}

/// What decoding one advertisement found: the readings, and what could not be read (bad bytes
/// end up here, never in a trap).
public struct AdvertisementDecoding: Hashable, Sendable {
    /// One failure of one decoder.
    public struct Failure: Hashable, Sendable {
        /// The decoder's name.
        public var decoder: String
        /// What went wrong.
        public var error: AdvertisementDecodingError

        /// `decoder` failed with `error`.
        public init(decoder: String, error: AdvertisementDecodingError) {
            self.decoder = decoder
            self.error = error
        }
    }

    /// Every reading, in decoder order (repeated keys across decoders numbered `_2`, `_3`, …).
    public var readings: [AdvertisementReading]
    /// Every failure, in decoder order.
    public var failures: [Failure]

    /// A result holding `readings` and `failures`.
    public init(readings: [AdvertisementReading] = [], failures: [Failure] = []) {
        self.readings = readings
        self.failures = failures
    }

    /// The reading with `key`, if any.
    public subscript(key: String) -> AdvertisementReading? { readings.first { $0.key == key } }
}

/// Turns the part of an advertisement it knows (a service data UUID, a company's manufacturer
/// data) into readings. A decoder appends what it finds to `result` and leaves it unchanged when
/// the advertisement carries nothing for it.
public protocol AdvertisementDecoder: Sendable {
    /// The decoder's name, carried by its readings and failures (`BTHome`).
    var name: String { get }
    /// Appends the readings (or a failure) found in `advertisement` to `result`.
    func decode(_ advertisement: ReceivedAdvertisement, into result: inout AdvertisementDecoding)
}

extension AdvertisementDecoder {
    /// Appends `readings`, or the failure `body` throws.
    func collect(into result: inout AdvertisementDecoding, _ body: () throws(AdvertisementDecodingError) -> [AdvertisementReading]) {
        do {
            result.readings += try body()
        } catch {
            result.failures.append(AdvertisementDecoding.Failure(decoder: name, error: error))
        }
    }
}

/// The decoders a gateway runs over every advertisement: the built-in ones (BTHome, SIG service
/// data, beacons, the manufacturer's name) and any a kit registers.
///
/// A registry is a value: copy ``standard`` and register on the copy.
///
/// ```swift
/// var decoders = AdvertisementDecoderRegistry.standard
/// decoders.setBTHomeBindKey(key, for: sensorAddress)
/// decoders.register(MyVendorDecoder())
/// let decoding = decoders.decode(ReceivedAdvertisement(data: data, address: address))
/// decoding["temperature"]?.value   // .number(25.06)
/// ```
public struct AdvertisementDecoderRegistry: Sendable {
    /// The registered decoders, in the order they run.
    public private(set) var decoders: [any AdvertisementDecoder]

    /// A registry running `decoders`, in order.
    public init(decoders: [any AdvertisementDecoder] = []) {
        self.decoders = decoders
    }

    /// BTHome (no bind keys yet), SIG service data, iBeacon and Eddystone, the manufacturer's name.
    public static let standard = AdvertisementDecoderRegistry(decoders: [
        BTHomeDecoder(), SIGServiceDataDecoder(), BeaconDecoder(), ManufacturerNameDecoder(),
    ])

    /// Adds `decoder` after the others; one with the same name replaces the earlier one in place.
    public mutating func register(_ decoder: some AdvertisementDecoder) {
        if let index = decoders.firstIndex(where: { $0.name == decoder.name }) {
            decoders[index] = decoder
        } else {
            decoders.append(decoder)
        }
    }

    /// Removes the decoder named `name`, if registered.
    public mutating func unregister(named name: String) {
        decoders.removeAll { $0.name == name }
    }

    /// Sets the 16-octet BTHome bind key of the device at `address` (replacing the BTHome decoder
    /// with one that knows it; registers one when there is none).
    public mutating func setBTHomeBindKey(_ key: [UInt8], for address: BluetoothAddress) {
        var bthome = decoders.lazy.compactMap { $0 as? BTHomeDecoder }.first ?? BTHomeDecoder()
        bthome.bindKeys[address] = key
        register(bthome)
    }

    /// Runs every decoder over `advertisement`.
    public func decode(_ advertisement: ReceivedAdvertisement) -> AdvertisementDecoding {
        var result = AdvertisementDecoding()
        for decoder in decoders { decoder.decode(advertisement, into: &result) }
        result.readings = result.readings.numberingRepeatedKeys()
        return result
    }
}
