/// The fluid a glucose sample was taken from (low nibble of Glucose Measurement's
/// type-and-location byte). Codes 0 and 11…15 are reserved and kept as ``reserved(_:)``.
public enum GlucoseSampleType: Hashable, Sendable {
    /// Sample types 1–5: capillary whole blood and plasma, venous whole blood and plasma, arterial whole blood.
    case capillaryWholeBlood, capillaryPlasma, venousWholeBlood, venousPlasma, arterialWholeBlood
    /// Sample types 6–10: arterial plasma, undetermined whole blood and plasma, interstitial fluid, control solution.
    case arterialPlasma, undeterminedWholeBlood, undeterminedPlasma, interstitialFluid, controlSolution
    /// A reserved code, as received.
    case reserved(UInt8)

    /// The type for a 4-bit code.
    @inlinable
    public init(code: UInt8) {
        switch code {
        case 1: self = .capillaryWholeBlood
        case 2: self = .capillaryPlasma
        case 3: self = .venousWholeBlood
        case 4: self = .venousPlasma
        case 5: self = .arterialWholeBlood
        case 6: self = .arterialPlasma
        case 7: self = .undeterminedWholeBlood
        case 8: self = .undeterminedPlasma
        case 9: self = .interstitialFluid
        case 10: self = .controlSolution
        default: self = .reserved(code & 0x0F)
        }
    }

    /// The 4-bit code.
    @inlinable
    public var code: UInt8 {
        switch self {
        case .capillaryWholeBlood: 1
        case .capillaryPlasma: 2
        case .venousWholeBlood: 3
        case .venousPlasma: 4
        case .arterialWholeBlood: 5
        case .arterialPlasma: 6
        case .undeterminedWholeBlood: 7
        case .undeterminedPlasma: 8
        case .interstitialFluid: 9
        case .controlSolution: 10
        case let .reserved(code): code
        }
    }

    /// The camelCase name, `reserved` for reserved codes.
    public var caseName: String {
        if case .reserved = self { return "reserved" }
        return "\(self)"
    }
}
