import HaraldCodec
import Testing

@Suite("MedicalFloat32 (FLOAT)")
struct MedicalFloat32Tests {
    // MARK: Special values

    @Test(arguments: [
        (UInt32(0x007F_FFFF), MedicalFloatKind.nan, "NaN"),
        (0x0080_0000, .nres, "NRes"),
        (0x007F_FFFE, .positiveInfinity, "+INF"),
        (0x0080_0002, .negativeInfinity, "-INF"),
        (0x0080_0001, .reserved, "reserved"),
    ])
    func specialPatternsDecodeToTheirKind(pattern: UInt32, kind: MedicalFloatKind, name: String) throws {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: pattern >> (8 * $0)) }
        let value = try MedicalFloat32(decoding: bytes)
        #expect(value.kind == kind)
        #expect(!value.isFinite)
        #expect(value.description == name)
    }

    @Test func specialConstantsHaveTheStandardPatterns() {
        #expect(MedicalFloat32.nan.bitPattern == 0x007F_FFFF)
        #expect(MedicalFloat32.nres.bitPattern == 0x0080_0000)
        #expect(MedicalFloat32.positiveInfinity.bitPattern == 0x007F_FFFE)
        #expect(MedicalFloat32.negativeInfinity.bitPattern == 0x0080_0002)
        #expect(MedicalFloat32.reserved.bitPattern == 0x0080_0001)
    }

    @Test func specialDoubleValues() {
        #expect(MedicalFloat32.nan.doubleValue.isNaN)
        #expect(MedicalFloat32.nres.doubleValue.isNaN)
        #expect(MedicalFloat32.reserved.doubleValue.isNaN)
        #expect(MedicalFloat32.positiveInfinity.doubleValue == .infinity)
        #expect(MedicalFloat32.negativeInfinity.doubleValue == -.infinity)
    }

    @Test func specialMantissasWithNonZeroExponentAreFinite() {
        #expect(MedicalFloat32(bitPattern: 0x017F_FFFF).kind == .finite(mantissa: 0x7F_FFFF, exponent: 1))
        #expect(MedicalFloat32(bitPattern: 0xFF80_0000).kind == .finite(mantissa: -0x80_0000, exponent: -1))
    }

    // MARK: Decoding

    @Test func nordicVectorFE12D687Is12345point67() throws {
        let value = try MedicalFloat32(decoding: [0x87, 0xD6, 0x12, 0xFE])
        #expect(value.kind == .finite(mantissa: 1_234_567, exponent: -2))
        #expect(value.doubleValue == 12345.67)
    }

    @Test func nordicVector01000000IsOne() throws {
        #expect(try MedicalFloat32(decoding: [0x01, 0x00, 0x00, 0x00]).doubleValue == 1)
    }

    @Test func temperatureStyleValueDecodes() throws {
        // 0xFF00016F: 367 × 10⁻¹ = 36.7 °C.
        #expect(try MedicalFloat32(decoding: [0x6F, 0x01, 0x00, 0xFF]).doubleValue == 36.7)
    }

    @Test func differentEncodingsOfOneNumberDecodeEqual() {
        let short = MedicalFloat32(mantissa: 367, exponent: -1)!
        let long = MedicalFloat32(mantissa: 36_700, exponent: -3)!
        #expect(short.doubleValue == long.doubleValue)
        #expect(short != long)
    }

    @Test func extremeExponentsDecode() {
        #expect(MedicalFloat32(mantissa: 1, exponent: 127)?.doubleValue == 1e127)
        #expect(MedicalFloat32(mantissa: 1, exponent: -128)?.doubleValue == 1e-128)
        #expect(MedicalFloat32(mantissa: 0x7F_FFFF, exponent: 127)?.doubleValue == 8_388_607e127)
    }

    @Test func truncatedInputNamesTypeAndOffset() {
        let error = decodingError { () throws(ByteDecodingError) in try MedicalFloat32(decoding: [0x01, 0x02, 0x03]) }
        #expect(error == ByteDecodingError(typeName: "MedicalFloat32", field: "", offset: 0, reason: .truncated(needed: 4, available: 3)))
    }

    @Test func writesLittleEndian() throws {
        #expect(try MedicalFloat32(bitPattern: 0xFE12_D687).encodedBytes() == [0x87, 0xD6, 0x12, 0xFE])
    }

    // MARK: init(mantissa:exponent:)

    @Test(arguments: [(0x7F_FFFD, 0), (-0x7F_FFFD, 0), (0x7F_FFFF, 127), (-0x80_0000, -128), (0, 0)])
    func mantissaExponentInRangeIsAccepted(mantissa: Int, exponent: Int) {
        #expect(MedicalFloat32(mantissa: mantissa, exponent: exponent)?.kind == .finite(mantissa: Int32(mantissa), exponent: Int8(exponent)))
    }

    @Test(arguments: [(0x80_0000, 0), (-0x80_0001, 1), (1, 128), (1, -129), (Int.min, 0)])
    func mantissaExponentOutOfRangeIsNil(mantissa: Int, exponent: Int) {
        #expect(MedicalFloat32(mantissa: mantissa, exponent: exponent) == nil)
    }

    @Test(arguments: [0x7F_FFFE, 0x7F_FFFF, -0x7F_FFFE, -0x7F_FFFF, -0x80_0000])
    func mantissaSpellingASpecialValueIsNil(mantissa: Int) {
        #expect(MedicalFloat32(mantissa: mantissa, exponent: 0) == nil)
    }

    // MARK: Encoding

    @Test func encodesNordicVectorExactly() {
        #expect(MedicalFloat32(12345.67).bitPattern == 0xFE12_D687)
        #expect(MedicalFloat32(1).bitPattern == 0x0000_0001)
    }

    @Test func encodesZero() {
        #expect(MedicalFloat32(0).doubleValue == 0)
        #expect(MedicalFloat32(0).isFinite)
        #expect(MedicalFloat32(-0.0).doubleValue == 0)
    }

    @Test(arguments: [36.7, -273.15, 0.001, 83_886.07, 1e-100, 1e100, -8_388_607e-128])
    func encodesExactValuesExactly(input: Double) {
        #expect(MedicalFloat32(input).doubleValue == input)
    }

    @Test func roundsToSevenSignificantDigits() {
        #expect(MedicalFloat32(3.14159265358979).kind == .finite(mantissa: 3_141_593, exponent: -6))
        #expect(MedicalFloat32(-1_234_567_890).kind == .finite(mantissa: -1_234_568, exponent: 3))
    }

    @Test(arguments: [8_388_606.0, 8_388_607, -8_388_606, -8_388_607, -8_388_608])
    func finiteInputNearTheSpecialPatternsStaysFinite(input: Double) {
        let encoded = MedicalFloat32(input)
        #expect(encoded.isFinite, "\(input) encoded as \(encoded)")
        #expect(abs(encoded.doubleValue - input) <= 2)
    }

    @Test func negativeMinimumMantissaIsUsedWhenItIsExact() {
        // −8 388 608 × 10¹ is a valid pattern and the only exact encoding of that number.
        #expect(MedicalFloat32(-83_886_080).doubleValue == -83_886_080)
    }

    @Test func largestFiniteValueEncodesExactly() {
        #expect(MedicalFloat32(8_388_607e127).kind == .finite(mantissa: 0x7F_FFFF, exponent: 127))
    }

    @Test(arguments: [8_388_607.5e127, 1e140, 1e300, Double.greatestFiniteMagnitude])
    func overflowBecomesPositiveInfinity(input: Double) {
        #expect(MedicalFloat32(input) == .positiveInfinity)
    }

    @Test(arguments: [-8_388_608.5e127, -1e140, -1e300, -Double.greatestFiniteMagnitude])
    func overflowBecomesNegativeInfinity(input: Double) {
        #expect(MedicalFloat32(input) == .negativeInfinity)
    }

    @Test func negativeRangeReachesOneStepFurther() {
        #expect(MedicalFloat32(-8_388_608e127).kind == .finite(mantissa: -0x80_0000, exponent: 127))
    }

    @Test func nanAndInfinityInputsMapToSpecialValues() {
        #expect(MedicalFloat32(Double.nan) == .nan)
        #expect(MedicalFloat32(Double.infinity) == .positiveInfinity)
        #expect(MedicalFloat32(-Double.infinity) == .negativeInfinity)
    }

    @Test(arguments: [1e-130, -1e-130, 1e-300, Double.leastNonzeroMagnitude, -Double.leastNormalMagnitude])
    func tinyValuesBecomeZero(input: Double) {
        #expect(MedicalFloat32(input).doubleValue == 0)
        #expect(MedicalFloat32(input).isFinite)
    }

    @Test func smallestStepEncodes() {
        #expect(MedicalFloat32(1e-128).kind == .finite(mantissa: 1, exponent: -128))
    }
}
