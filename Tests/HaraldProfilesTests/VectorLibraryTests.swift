import HaraldCodec
import HaraldProfiles
import Testing

/// Every characteristic vector of vectors.json, through the library's registry.
@Suite("Characteristic vectors through the library")
struct VectorLibraryTests {
    @Test func theCopiedVectorFileLoadsWithBothKindsOfVector() {
        #expect(!CharacteristicVector.decodable.isEmpty)
        #expect(!CharacteristicVector.failing.isEmpty)
    }

    @Test func everyVectorUUIDHasARegisteredDecoder() {
        for vector in CharacteristicVector.all {
            let entry = BluetoothUUID(vector.uuid).flatMap { CharacteristicRegistry.standard.entry(for: $0) }
            #expect(entry != nil, "\(vector.uuid)")
        }
    }

    @Test(arguments: CharacteristicVector.decodable)
    func decodesToTheExpectedDescription(vector: CharacteristicVector) throws {
        let uuid = try #require(BluetoothUUID(vector.uuid))
        let entry = try #require(CharacteristicRegistry.standard.entry(for: uuid), "no decoder for \(vector.uuid)")
        let bytes = try [UInt8](hex: vector.hex)
        let description = try entry.describe(bytes)
        let expected = try #require(vector.expected)
        let problems = JSONExpectation.mismatches(expected: expected, actual: description)
        #expect(problems.isEmpty, "\(problems) in \(description)")
    }

    @Test(arguments: CharacteristicVector.failing)
    func rejectsTheInvalidValue(vector: CharacteristicVector) throws {
        let uuid = try #require(BluetoothUUID(vector.uuid))
        let entry = try #require(CharacteristicRegistry.standard.entry(for: uuid))
        let bytes = try [UInt8](hex: vector.hex)
        #expect(throws: ByteDecodingError.self) { try entry.describe(bytes) }
    }

    @Test(arguments: CharacteristicVector.decodable)
    func reencodesToTheSameBytes(vector: CharacteristicVector) throws {
        let uuid = try #require(BluetoothUUID(vector.uuid))
        let type = try #require(CharacteristicRegistry.standardTypes.first { $0.uuid == uuid })
        let bytes = try [UInt8](hex: vector.hex)
        #expect(try Self.reencode(type, bytes) == bytes)
    }

    @Test(arguments: CharacteristicVector.all)
    func roundTripIsStableOrRejected(vector: CharacteristicVector) throws {
        let uuid = try #require(BluetoothUUID(vector.uuid))
        let entry = try #require(CharacteristicRegistry.standard.entry(for: uuid))
        let outcome = try #require(entry.roundTrip(vector.bytes))
        if vector.mustFail {
            guard case .rejected = outcome else { Issue.record("accepted: \(outcome)"); return }
        } else {
            #expect(outcome == .stable)
        }
    }

    private static func reencode<T: CharacteristicValue>(_ type: T.Type, _ bytes: [UInt8]) throws -> [UInt8] {
        try T(decoding: bytes).encodedBytes()
    }
}
