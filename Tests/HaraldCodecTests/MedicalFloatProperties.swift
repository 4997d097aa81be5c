import HaraldCodec
import PropertyBased
import Testing

/// `mantissa × 10^exponent` with trailing zeros moved into the exponent, so equal numbers compare equal.
private func normalised(_ mantissa: Int, _ exponent: Int) -> (Int, Int) {
    if mantissa == 0 { return (0, 0) }
    var m = mantissa, e = exponent
    while m % 10 == 0 { m /= 10; e += 1 }
    return (m, e)
}

private func normalised(_ kind: MedicalFloatKind) -> (Int, Int)? {
    guard case let .finite(m, e) = kind else { return nil }
    return normalised(Int(m), Int(e))
}

/// The Double nearest `mantissa × 10^exponent`, from decimal text. Independent of the codec's
/// arithmetic for |exponent| ≤ 22; beyond that the codec parses decimal text too, and the unit tests
/// compare against compiler-parsed literals instead (`1e127`, `8_388_607e127`, `1e-128`).
private func decimal(_ mantissa: Int, _ exponent: Int) -> Double { Double("\(mantissa)e\(exponent)")! }

@Suite("Property: IEEE-11073 numbers")
struct MedicalFloatProperties {
    @Test func sfloatPatternsRoundTripThroughBytes() async {
        await propertyCheck(count: 500, input: Gen.int(in: -2048...2047), Gen.int(in: -8...7)) { m, e in
            guard let value = MedicalFloat16(mantissa: m, exponent: e) else { return }
            let bytes = try value.encodedBytes()
            #expect(try MedicalFloat16(decoding: bytes) == value)
            #expect(value.doubleValue == decimal(m, e))
        }
    }

    @Test func sfloatReEncodingKeepsTheNumber() async {
        await propertyCheck(count: 500, input: Gen.int(in: -2048...2047), Gen.int(in: -8...7)) { m, e in
            guard let value = MedicalFloat16(mantissa: m, exponent: e) else { return }
            let again = MedicalFloat16(value.doubleValue)
            #expect(again.doubleValue == value.doubleValue)
            #expect(normalised(again.kind)! == normalised(m, e))
        }
    }

    @Test func sfloatEncodingIsTheNearestRepresentable() async {
        await propertyCheck(count: 500, input: Gen.double(in: 1.0..<10.0), Gen.int(in: -10...10), Gen.bool) { digits, power, negative in
            let x = (negative ? -1 : 1) * digits * decimal(1, power)
            let encoded = MedicalFloat16(x)
            guard encoded.isFinite else {
                #expect(x.magnitude > 2047e7, "\(x) became \(encoded)")
                return
            }
            #expect(abs(encoded.doubleValue - x) == SFloatTable.shared.nearestError(to: x))
        }
    }

    @Test func floatPatternsRoundTripThroughBytes() async {
        await propertyCheck(count: 500, input: Gen.int(in: -0x80_0000...0x7F_FFFF), Gen.int(in: -128...127)) { m, e in
            guard let value = MedicalFloat32(mantissa: m, exponent: e) else { return }
            let bytes = try value.encodedBytes()
            #expect(try MedicalFloat32(decoding: bytes) == value)
            #expect(value.doubleValue == decimal(m, e))
        }
    }

    @Test func floatReEncodingKeepsTheNumber() async {
        await propertyCheck(count: 500, input: Gen.int(in: -0x80_0000...0x7F_FFFF), Gen.int(in: -128...127)) { m, e in
            guard let value = MedicalFloat32(mantissa: m, exponent: e) else { return }
            let again = MedicalFloat32(value.doubleValue)
            #expect(again.doubleValue == value.doubleValue)
            #expect(normalised(again.kind)! == normalised(m, e))
        }
    }

    @Test func floatReEncodingKeepsSmallDecimals() async {
        // Typical device values: few digits, small exponents.
        await propertyCheck(count: 500, input: Gen.int(in: -99_999...99_999), Gen.int(in: -6...3)) { m, e in
            let again = MedicalFloat32(decimal(m, e))
            #expect(normalised(again.kind)! == normalised(m, e))
        }
    }

    @Test func floatEncodingKeepsSevenSignificantDigits() async {
        await propertyCheck(count: 500, input: Gen.double(in: 1.0..<10.0), Gen.int(in: -100...100), Gen.bool) { digits, power, negative in
            let x = (negative ? -1 : 1) * digits * decimal(1, power)
            let encoded = MedicalFloat32(x)
            #expect(encoded.isFinite)
            #expect(abs(encoded.doubleValue - x) <= x.magnitude * 6e-7, "\(x) became \(encoded)")
        }
    }

    @Test func everyPatternDecodesWithoutTrapping() async {
        await propertyCheck(count: 1000, input: Gen<UInt32>.value()) { bits in
            let short = MedicalFloat16(bitPattern: UInt16(truncatingIfNeeded: bits))
            let long = MedicalFloat32(bitPattern: bits)
            #expect(short.isFinite == (!short.doubleValue.isNaN && !short.doubleValue.isInfinite))
            #expect(long.isFinite == (!long.doubleValue.isNaN && !long.doubleValue.isInfinite))
        }
    }

    @Test func anyDoubleEncodesWithoutTrapping() async {
        await propertyCheck(count: 1000, input: Gen<UInt64>.value()) { bits in
            let x = Double(bitPattern: bits)
            let short = MedicalFloat16(x)
            let long = MedicalFloat32(x)
            if x.isNaN {
                #expect(short == .nan && long == .nan)
            } else {
                #expect(short.kind != .nres && short.kind != .reserved && short.kind != .nan)
                #expect(long.kind != .nres && long.kind != .reserved && long.kind != .nan)
            }
        }
    }
}
