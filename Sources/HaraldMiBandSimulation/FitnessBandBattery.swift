import Foundation

/// What the simulated band's battery info characteristic (0x0006) reports.
///
/// Its 20 bytes, as Gadgetbridge's annotated capture lays them out (protocols.md B.4): `0F`,
/// level %, `01` when charging (else `00`), the last time it came off the charger (7 bytes), the
/// number of charges, the end of the last charge (7 bytes), `04`, the level at the end of the last
/// charge.
public struct FitnessBandBattery: Hashable, Sendable {
    /// Battery level, percent.
    public var level: UInt8
    /// Whether the band is on its charger.
    public var isCharging: Bool
    /// Calendar fields of when the band last came off the charger (nil: never).
    public var lastOff: DateComponents?
    /// How many times it was charged.
    public var chargeCount: UInt8
    /// Calendar fields of when the last charge ended (nil: never).
    public var lastCharge: DateComponents?
    /// Level at the end of the last charge, percent.
    public var lastChargeLevel: UInt8

    /// A battery state; levels in percent.
    public init(
        level: UInt8, isCharging: Bool = false, lastOff: DateComponents? = nil, chargeCount: UInt8 = 0, lastCharge: DateComponents? = nil,
        lastChargeLevel: UInt8 = 100
    ) {
        self.level = level
        self.isCharging = isCharging
        self.lastOff = lastOff
        self.chargeCount = chargeCount
        self.lastCharge = lastCharge
        self.lastChargeLevel = lastChargeLevel
    }

    /// The characteristic's value.
    public var bytes: [UInt8] {
        [0x0F, level, isCharging ? 0x01 : 0x00] + BandTime.bytes(lastOff) + [chargeCount] + BandTime.bytes(lastCharge) + [0x04, lastChargeLevel]
    }
}
