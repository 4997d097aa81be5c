import HaraldCodec
import HaraldCore
import Testing

@Suite("Bluetooth device addresses")
struct BluetoothAddressTests {
    @Test func textIsReadMostSignificantByteFirst() throws {
        let address = try #require(BluetoothAddress("C0:01:02:03:04:05", kind: .random))
        #expect(address.bytes == [0xC0, 0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(address.littleEndianBytes == [0x05, 0x04, 0x03, 0x02, 0x01, 0xC0])
        #expect(address.value == 0xC001_0203_0405)
    }

    @Test func descriptionCarriesTheKindAndParsesBack() throws {
        let address = try #require(BluetoothAddress("c0:01:02:03:04:05", kind: .random))
        #expect(address.description == "C0:01:02:03:04:05/random")
        #expect(address.string == "C0:01:02:03:04:05")
        #expect(BluetoothAddress(address.description) == address)
        #expect(BluetoothAddress("11:22:33:44:55:66/public", kind: .random)?.kind == .public)
    }

    @Test func dashesAreAcceptedAsSeparators() {
        #expect(BluetoothAddress("C0-01-02-03-04-05")?.value == 0xC001_0203_0405)
    }

    @Test(arguments: [
        "", "C0:01:02:03:04", "C0:01:02:03:04:05:06", "C0:01:02:03:04:5", "C0:01:02:03:04:0G",
        "C0:01:02:03:04:05/secret", "C0:01-02:03:04:05", "+0:01:02:03:04:05", "C0:01:02:03:04:05/",
    ])
    func malformedTextIsRejected(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }

    @Test func bytesMustBeSix() {
        #expect(BluetoothAddress(bytes: [1, 2, 3, 4, 5], kind: .public) == nil)
        #expect(BluetoothAddress(bytes: [1, 2, 3, 4, 5, 6, 7], kind: .public) == nil)
        #expect(BluetoothAddress(value: 1 << 48, kind: .public) == nil)
    }

    @Test func randomSubtypeComesFromTheTwoTopBits() throws {
        #expect(BluetoothAddress("C0:00:00:00:00:01", kind: .random)?.randomSubtype == .static)
        #expect(BluetoothAddress("40:00:00:00:00:01", kind: .random)?.randomSubtype == .resolvablePrivate)
        #expect(BluetoothAddress("00:00:00:00:00:01", kind: .random)?.randomSubtype == .nonResolvablePrivate)
        #expect(BluetoothAddress("80:00:00:00:00:01", kind: .random)?.randomSubtype == .reserved)
        #expect(BluetoothAddress("C0:00:00:00:00:01", kind: .public)?.randomSubtype == nil)
    }

    @Test func identityAddressesArePublicOrStatic() {
        #expect(BluetoothAddress("40:00:00:00:00:01", kind: .public)?.isIdentity == true)
        #expect(BluetoothAddress("C0:00:00:00:00:01", kind: .random)?.isIdentity == true)
        #expect(BluetoothAddress("40:00:00:00:00:01", kind: .random)?.isIdentity == false)
    }

    @Test func theKindIsPartOfTheIdentityOfAnAddress() throws {
        let text = "C0:01:02:03:04:05"
        #expect(BluetoothAddress(text, kind: .public) != BluetoothAddress(text, kind: .random))
    }

    @Test func randomStaticAddressesHaveBothTopBitsAndAreNeverAllOnes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let address = BluetoothAddress.randomStatic(using: &generator)
            #expect(address.randomSubtype == .static)
            #expect(address.value != 0xFFFF_FFFF_FFFF)
        }
    }

    @Test func readsAndWritesLeastSignificantByteFirst() throws {
        let wire: [UInt8] = [0x05, 0x04, 0x03, 0x02, 0x01, 0xC0]
        let address = try ByteReader.withReader(wire) { (reader) throws(ByteDecodingError) in
            try BluetoothAddress(from: &reader, kind: .random)
        }
        #expect(address.string == "C0:01:02:03:04:05")
        var writer = ByteWriter()
        address.encode(to: &writer)
        #expect(writer.bytes == wire)
    }

    @Test func aShortReadNamesTheField() {
        #expect(throws: ByteDecodingError.self) {
            try ByteReader.withReader([0x01, 0x02]) { (reader) throws(ByteDecodingError) in
                try BluetoothAddress(from: &reader, kind: .public, field: "peerAddress")
            }
        }
    }
}
