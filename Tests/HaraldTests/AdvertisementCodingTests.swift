import Foundation
import Harald
import HaraldCodec
import HaraldCore
import Testing

@Suite("Advertisements and peripheral identifiers: identity and JSON")
struct AdvertisementCodingTests {
    static let address = BluetoothAddress("C0:00:00:00:00:01/random")!
    static let strap = Advertisement(
        peripheral: PeripheralIdentifier(address: address), rssi: -61, isConnectable: true,
        data: AdvertisingData(parsing: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18]), receivedAt: .milliseconds(1_250))

    private static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    private static func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func anAdvertisementIsIdentifiedByItsPeripheral() {
        #expect(Self.strap.id == PeripheralIdentifier(address: Self.address))
    }

    @Test func aPeripheralIdentifierIsItsOwnIdentity() {
        let identifier = PeripheralIdentifier(rawValue: "6F1C2D3E-0000-4000-8000-00805F9B34FB")
        #expect(identifier.id == identifier)
    }

    @Test func anAdvertisementDecodesToAnEqualAdvertisement() throws {
        #expect(try Self.roundTrip(Self.strap) == Self.strap)
    }

    @Test func anAdvertisementOfUnknownStrengthFromAnAddresslessPeripheralDecodesToAnEqualAdvertisement() throws {
        let advertisement = Advertisement(
            peripheral: PeripheralIdentifier(rawValue: "6F1C2D3E-0000-4000-8000-00805F9B34FB"), rssi: nil, isConnectable: false,
            data: AdvertisingData())
        #expect(try Self.roundTrip(advertisement) == advertisement)
    }

    @Test func theJSONCarriesTheAddressAsTextTheStrengthInDBmAndTheDataAsHex() throws {
        let object = try Self.object(Self.strap)
        let peripheral = try #require(object["peripheral"] as? [String: Any])
        #expect(peripheral["address"] as? String == "C0:00:00:00:00:01/random")
        #expect(object["rssi"] as? Int == -61)
        #expect(object["data"] as? String == "02010603030d18")
    }

    @Test func anUnknownStrengthIsLeftOut() throws {
        var advertisement = Self.strap
        advertisement.rssi = nil
        #expect(try Self.object(advertisement)["rssi"] == nil)
    }

    @Test func aPeripheralIdentifierDecodesToAnEqualIdentifier() throws {
        let identifier = PeripheralIdentifier(address: Self.address)
        #expect(try Self.roundTrip(identifier) == identifier)
    }

    @Test(arguments: [
        ("data", "\"0x0\""),  // odd number of digits
        ("data", "\"050106\""),  // a structure longer than the data
        ("rssi", "127"),  // HCI's "not available"
        ("rssi", "\"loud\""),
        ("isConnectable", "\"yes\""),
        ("peripheral", #"{"rawValue": "x", "address": "C0:00:00:00:00:01"}"#),  // no kind
        ("peripheral", #"{"address": "C0:00:00:00:00:01/random"}"#),  // no rawValue
    ])
    func anAdvertisementWithAMalformedFieldIsRejected(field: String, json: String) throws {
        var object = try Self.object(Self.strap)
        object[field] = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let malformed = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Advertisement.self, from: malformed) }
    }

    @Test func anAdvertisementMissingItsPeripheralIsRejected() {
        let text = #"{"isConnectable": true, "data": "", "receivedAt": [0, 0]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Advertisement.self, from: Data(text.utf8)) }
    }
}
