import HaraldCodec
import Testing

@Suite("IEEE-11073 vectors from protocols.md C.0")
struct MedicalFloatVectorTests {
    @Test func sfloat65F0Is10point1() throws {
        let value = try MedicalFloat16(decoding: [0x65, 0xF0])
        #expect(abs(value.doubleValue - 10.1) < 1e-9)
    }

    @Test func floatFE12D687Is12345point67() throws {
        let value = try MedicalFloat32(decoding: [0x87, 0xD6, 0x12, 0xFE])
        #expect(abs(value.doubleValue - 12345.67) < 1e-9)
    }

    @Test(arguments: [(123.45, 123.5), (0.12344, 0.1234), (1_000_400, 1_000_000), (1_000_500, 1_001_000)])
    func sfloatEncodingRoundsToNearest(input: Double, expected: Double) {
        #expect(MedicalFloat16(input).doubleValue == expected)
    }

    @Test func spezisNormalisedEncodingsDecodeToo() throws {
        #expect(try MedicalFloat16(decoding: [0xE8, 0xF3]).doubleValue == 100)
        #expect(try MedicalFloat16(decoding: [0x84, 0xF3]).doubleValue == 90)
    }

    @Test func specialValuesAreDistinct() throws {
        #expect(try MedicalFloat16(decoding: [0xFF, 0x07]).kind == .nan)
        #expect(try MedicalFloat16(decoding: [0x00, 0x08]).kind == .nres)
        #expect(try MedicalFloat16(decoding: [0xFE, 0x07]).kind == .positiveInfinity)
        #expect(try MedicalFloat16(decoding: [0x02, 0x08]).kind == .negativeInfinity)
        #expect(try MedicalFloat16(decoding: [0x01, 0x08]).kind == .reserved)
    }

    @Test func truncatedInputNamesTypeAndOffset() {
        #expect(throws: ByteDecodingError(typeName: "MedicalFloat16", field: "", offset: 0, reason: .truncated(needed: 2, available: 1))) {
            try MedicalFloat16(decoding: [0x65])
        }
    }
}
