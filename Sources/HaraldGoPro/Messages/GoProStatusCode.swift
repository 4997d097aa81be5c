/// The result byte of an Open GoPro command, setting or query response (`[id][status]…`).
///
/// 0 success, 1 error, 2 invalid parameter; 3…255 are reserved and kept as they are.
public struct GoProStatusCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status byte that follows the ID in a response: 0 success, 1 error, 2 invalid parameter.
    public var rawValue: UInt8
    /// The status with this byte; reserved values are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The camera did what was asked.
    public static let success = GoProStatusCode(rawValue: 0)
    /// The camera could not do it (busy, wrong mode, …).
    public static let error = GoProStatusCode(rawValue: 1)
    /// A parameter was out of range or the wrong size.
    public static let invalidParameter = GoProStatusCode(rawValue: 2)

    /// True for ``success``.
    public var isSuccess: Bool { rawValue == 0 }

    /// `success`, `error`, `invalidParameter`, or `reserved(N)`.
    public var description: String {
        switch rawValue {
        case 0: return "success"
        case 1: return "error"
        case 2: return "invalidParameter"
        default: return "reserved(\(rawValue))"
        }
    }
}
