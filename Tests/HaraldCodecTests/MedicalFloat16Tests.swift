import HaraldCodec
import Testing

@Suite("MedicalFloat16 (SFLOAT)")
struct MedicalFloat16Tests {
    // MARK: Special values

    @Test(arguments: [
        (UInt16(0x07FF), MedicalFloatKind.nan, "NaN"),
        (0x0800, .nres, "NRes"),
        (0x07FE, .positiveInfinity, "+INF"),
        (0x0802, .negativeInfinity, "-INF"),
        (0x0801, .reserved, "reserved"),
    ])
    func specialPatternsDecodeToTheirKind(pattern: UInt16, kind: MedicalFloatKind, name: String) throws {
        let value = try MedicalFloat16(decoding: [UInt8(pattern & 0xFF), UInt8(pattern >> 8)])
        #expect(value.kind == kind)
        #expect(!value.isFinite)
        #expect(value.description == name)
        #expect(kind.specialName == name)
    }

    @Test func specialConstantsHaveTheStandardPatterns() {
        #expect(MedicalFloat16.nan.bitPattern == 0x07FF)
        #expect(MedicalFloat16.nres.bitPattern == 0x0800)
        #expect(MedicalFloat16.positiveInfinity.bitPattern == 0x07FE)
        #expect(MedicalFloat16.negativeInfinity.bitPattern == 0x0802)
        #expect(MedicalFloat16.reserved.bitPattern == 0x0801)
    }

    @Test func specialDoubleValues() {
        #expect(MedicalFloat16.nan.doubleValue.isNaN)
        #expect(MedicalFloat16.nres.doubleValue.isNaN)
        #expect(MedicalFloat16.reserved.doubleValue.isNaN)
        #expect(MedicalFloat16.positiveInfinity.doubleValue == .infinity)
        #expect(MedicalFloat16.negativeInfinity.doubleValue == -.infinity)
    }

    @Test func finiteDescriptionIsTheDecimalValue() {
        #expect(MedicalFloat16(bitPattern: 0xF065).description == "10.1")
        #expect(MedicalFloat16(mantissa: -5, exponent: 0)?.description == "-5.0")
    }

    @Test func specialMantissasWithNonZeroExponentAreFinite() {
        // Only exponent 0 spells the special values; 0x17FF is 2047 × 10.
        let value = MedicalFloat16(bitPattern: 0x17FF)
        #expect(value.kind == .finite(mantissa: 2047, exponent: 1))
        #expect(value.doubleValue == 20470)
        #expect(MedicalFloat16(bitPattern: 0x1800).doubleValue == -20480)
    }

    // MARK: Decoding

    @Test func nordicVector65F0Is10point1() throws {
        let value = try MedicalFloat16(decoding: [0x65, 0xF0])
        #expect(value.kind == .finite(mantissa: 101, exponent: -1))
        #expect(value.doubleValue == 10.1)
    }

    @Test func speziNormalisedEncodingsDecode() throws {
        #expect(try MedicalFloat16(decoding: [0xE8, 0xF3]).kind == .finite(mantissa: 1000, exponent: -1))
        #expect(try MedicalFloat16(decoding: [0xE8, 0xF3]).doubleValue == 100)
        #expect(try MedicalFloat16(decoding: [0x84, 0xF3]).doubleValue == 90)
    }

    @Test func speziVectorsDecode() {
        #expect(MedicalFloat16(mantissa: 1230, exponent: 2)?.doubleValue == 123_000)
        #expect(MedicalFloat16(mantissa: 1234, exponent: -2)?.doubleValue == 12.34)
        #expect(MedicalFloat16(mantissa: 120, exponent: -8)?.doubleValue == 0.0000012)
    }

    @Test func differentEncodingsOfOneNumberDecodeEqual() {
        let short = MedicalFloat16(mantissa: 101, exponent: -1)!
        let long = MedicalFloat16(mantissa: 1010, exponent: -2)!
        #expect(short.doubleValue == long.doubleValue)
        #expect(short != long)  // equality compares wire patterns
    }

    @Test func negativeMantissaAndExponent() {
        // 0xFF9C: exponent −1, mantissa 0xF9C = −100.
        #expect(MedicalFloat16(bitPattern: 0xFF9C).kind == .finite(mantissa: -100, exponent: -1))
        #expect(MedicalFloat16(bitPattern: 0xFF9C).doubleValue == -10)
    }

    @Test func extremeExponents() {
        #expect(MedicalFloat16(bitPattern: 0x7001).doubleValue == 1e7)
        #expect(MedicalFloat16(bitPattern: 0x8001).doubleValue == 1e-8)
    }

    @Test func readsLittleEndianFromAReader() throws {
        let (a, b) = try ByteReader.withReader([0x65, 0xF0, 0xFF, 0x07] as [UInt8]) { r throws(ByteDecodingError) in
            (try r.decode(MedicalFloat16.self, field: "a"), try r.decode(MedicalFloat16.self, field: "b"))
        }
        #expect(a.doubleValue == 10.1)
        #expect(b.kind == .nan)
    }

    @Test func truncatedInputNamesTypeAndOffset() {
        let error = decodingError { () throws(ByteDecodingError) in try MedicalFloat16(decoding: [0x65]) }
        #expect(error == ByteDecodingError(typeName: "MedicalFloat16", field: "", offset: 0, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func writesLittleEndian() throws {
        #expect(try MedicalFloat16(bitPattern: 0xF065).encodedBytes() == [0x65, 0xF0])
    }

    // MARK: init(mantissa:exponent:)

    @Test(arguments: [(2045, 0), (-2045, 0), (2047, 7), (-2048, 7), (-2048, -8), (0, 0), (1, -8)])
    func mantissaExponentInRangeIsAccepted(mantissa: Int, exponent: Int) {
        let value = MedicalFloat16(mantissa: mantissa, exponent: exponent)
        #expect(value?.kind == .finite(mantissa: Int32(mantissa), exponent: Int8(exponent)))
    }

    @Test(arguments: [(2048, 0), (-2049, 1), (1, 8), (1, -9), (Int.max, 0), (0, Int.min)])
    func mantissaExponentOutOfRangeIsNil(mantissa: Int, exponent: Int) {
        #expect(MedicalFloat16(mantissa: mantissa, exponent: exponent) == nil)
    }

    @Test(arguments: [2046, 2047, -2046, -2047, -2048])
    func mantissaSpellingASpecialValueIsNil(mantissa: Int) {
        #expect(MedicalFloat16(mantissa: mantissa, exponent: 0) == nil)
    }

    // MARK: Encoding

    @Test func encodesExactValuesExactly() {
        #expect(MedicalFloat16(10.1).doubleValue == 10.1)
        #expect(MedicalFloat16(98.6).doubleValue == 98.6)
        #expect(MedicalFloat16(-40).doubleValue == -40)
        #expect(MedicalFloat16(0.0000012).doubleValue == 0.0000012)
    }

    @Test func encodesWithTheShortestMantissa() {
        #expect(MedicalFloat16(10.1).kind == .finite(mantissa: 101, exponent: -1))
        #expect(MedicalFloat16(123_000).kind == .finite(mantissa: 123, exponent: 3))
        #expect(MedicalFloat16(1).bitPattern == 0x0001)
    }

    @Test func encodesZeroAsZero() {
        #expect(MedicalFloat16(0).bitPattern == 0)
        #expect(MedicalFloat16(-0.0).doubleValue == 0)
    }

    @Test(arguments: [(123.45, 123.5), (0.12344, 0.1234), (1_000_400, 1_000_000), (1_000_500, 1_001_000)])
    func nordicRoundingVectors(input: Double, expected: Double) {
        #expect(MedicalFloat16(input).doubleValue == expected)
    }

    @Test(arguments: [123.45, 0.12344, 2046, 2047, -2046, -2047, -2048, 3.14159265, -9_999_999, 1.23456e-5, 20_474_999_999])
    func inexactValuesRoundToTheNearestRepresentable(input: Double) {
        let encoded = MedicalFloat16(input)
        #expect(encoded.isFinite)
        #expect(abs(encoded.doubleValue - input) == SFloatTable.shared.nearestError(to: input))
    }

    @Test(arguments: [2046.0, 2047, -2046, -2047, -2048, 2045.6, -2045.6])
    func finiteInputNearTheSpecialPatternsStaysFinite(input: Double) {
        let encoded = MedicalFloat16(input)
        #expect(encoded.isFinite, "\(input) encoded as \(encoded)")
    }

    @Test func negativeMinimumMantissaIsUsedWhenItIsExact() {
        // −2048 × 10¹ is a valid pattern (0x1800); it is the only exact encoding of −20480.
        #expect(MedicalFloat16(-20480).doubleValue == -20480)
        #expect(MedicalFloat16(-2048e7).doubleValue == -2048e7)
    }

    @Test func largestFiniteValueEncodesExactly() {
        #expect(MedicalFloat16(2047e7).kind == .finite(mantissa: 2047, exponent: 7))
    }

    @Test(arguments: [2047.5e7, 1e12, Double.greatestFiniteMagnitude])
    func overflowBecomesPositiveInfinity(input: Double) {
        #expect(MedicalFloat16(input) == .positiveInfinity)
    }

    @Test(arguments: [-2048.5e7, -1e12, -Double.greatestFiniteMagnitude])
    func overflowBecomesNegativeInfinity(input: Double) {
        #expect(MedicalFloat16(input) == .negativeInfinity)
    }

    @Test func negativeRangeReachesOneStepFurther() {
        // −2048 × 10⁷ exists, so −2047.5 × 10⁷ rounds to it rather than overflowing.
        #expect(MedicalFloat16(-2047.5e7).kind == .finite(mantissa: -2048, exponent: 7))
    }

    @Test func justBelowOverflowRoundsToTheLargestValue() {
        #expect(MedicalFloat16(2047.4e7).kind == .finite(mantissa: 2047, exponent: 7))
    }

    @Test func nanAndInfinityInputsMapToSpecialValues() {
        #expect(MedicalFloat16(Double.nan) == .nan)
        #expect(MedicalFloat16(Double.infinity) == .positiveInfinity)
        #expect(MedicalFloat16(-Double.infinity) == .negativeInfinity)
    }

    @Test(arguments: [1e-12, -1e-12, 4.9e-9, Double.leastNonzeroMagnitude, -Double.leastNormalMagnitude])
    func tinyValuesBecomeZero(input: Double) {
        #expect(MedicalFloat16(input).doubleValue == 0)
        #expect(MedicalFloat16(input).isFinite)
    }

    @Test func halfTheSmallestStepRoundsAwayFromZero() {
        #expect(MedicalFloat16(6e-9).doubleValue == 1e-8)
        #expect(MedicalFloat16(-6e-9).doubleValue == -1e-8)
    }

    @Test func everyFinitePatternReEncodesToTheSameNumber() {
        // Exhaustive: all 65 531 finite patterns.
        var mismatches: [UInt16] = []
        for pattern in UInt16.min...UInt16.max {
            let value = MedicalFloat16(bitPattern: pattern)
            guard value.isFinite else { continue }
            let again = MedicalFloat16(value.doubleValue)
            if again.doubleValue != value.doubleValue || !again.isFinite { mismatches.append(pattern) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(8).map { String($0, radix: 16) })")
    }
}

/// Every finite SFLOAT value, sorted: an independent oracle for "the nearest representable value".
final class SFloatTable: Sendable {
    static let shared = SFloatTable()
    let values: [Double]

    private init() {
        var all = Set<Double>()
        for pattern in UInt16.min...UInt16.max {
            let exponent = Int(Int16(bitPattern: pattern) >> 12)
            let mantissa = Int(Int16(bitPattern: pattern << 4) >> 4)
            if exponent == 0, [2046, 2047, -2046, -2047, -2048].contains(mantissa) { continue }
            // Built from decimal text, independently of the codec's own arithmetic.
            all.insert(Double("\(mantissa)e\(exponent)")!)
        }
        values = all.sorted()
    }

    /// The smallest distance from `x` to a finite SFLOAT value.
    func nearestError(to x: Double) -> Double {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] < x { low = mid + 1 } else { high = mid }
        }
        var best = Double.infinity
        for index in [low - 1, low] where values.indices.contains(index) {
            best = min(best, abs(values[index] - x))
        }
        return best
    }
}
