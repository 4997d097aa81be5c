/// Where a glucose sample was taken (high nibble of Glucose Measurement's type-and-location
/// byte). Codes 0 and 5…14 are reserved and kept as ``reserved(_:)``.
public enum GlucoseSampleLocation: Hashable, Sendable {
    /// Sample locations 1–4: finger, alternate site test, earlobe, control solution.
    case finger, alternateSiteTest, earlobe, controlSolution
    /// The location is not available (code 15).
    case notAvailable
    /// A reserved code, as received.
    case reserved(UInt8)

    /// The location for a 4-bit code.
    @inlinable
    public init(code: UInt8) {
        switch code {
        case 1: self = .finger
        case 2: self = .alternateSiteTest
        case 3: self = .earlobe
        case 4: self = .controlSolution
        case 15: self = .notAvailable
        default: self = .reserved(code & 0x0F)
        }
    }

    /// The 4-bit code.
    @inlinable
    public var code: UInt8 {
        switch self {
        case .finger: 1
        case .alternateSiteTest: 2
        case .earlobe: 3
        case .controlSolution: 4
        case .notAvailable: 15
        case let .reserved(code): code
        }
    }

    /// The camelCase name, `reserved` for reserved codes.
    public var caseName: String {
        if case .reserved = self { return "reserved" }
        return "\(self)"
    }
}
