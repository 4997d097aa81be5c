import Foundation
import Harald
import HaraldCore
import HaraldProfiles

/// What `pair` and `read` say about the security a link got: the LE Security Mode 1 level
/// (1–4, Core spec Vol 3 Part C §10.2.1), whether its key came from LE Secure Connections or
/// legacy pairing, the key size and whether the keys are kept.
///
/// A legacy key is never level 4; a link encrypted with a key shorter than 16 octets shows its
/// size, so a weakened pairing is visible.
struct SecurityReport: Equatable {
    /// The level, 1 (no encryption) to 4 (authenticated LE Secure Connections, 128-bit key).
    var level: SecurityLevel
    /// True for an LE Secure Connections key, false for a legacy one, nil when not known (an
    /// unencrypted link, or a pairing that kept no bond).
    var secureConnections: Bool?
    /// The encryption key size in octets, when the link is encrypted and the backend knows.
    var keySize: Int?
    /// Whether the keys are stored (a bond).
    var bonded: Bool

    /// The report for a link with `security` (nil: the backend does not say, taken as
    /// unencrypted), whose key is the one in `bond` when one was stored or used on this link.
    init(security: LinkSecurity?, bond: Bond?) {
        let security = security ?? .open
        level = security.level
        bonded = security.isBonded
        keySize = security.level == .none ? nil : security.keySize ?? bond?.keySize
        secureConnections =
            switch security.level {
            case .none: nil
            case .authenticatedSecureConnections: true
            case .encrypted, .authenticated: bond?.isSecureConnections
            }
    }

    /// `LE Secure Connections`, `legacy`, or nil when not known.
    var pairingName: String? { secureConnections.map { $0 ? "LE Secure Connections" : "legacy" } }

    /// One line, e.g. `level 4 (authenticated, LE Secure Connections), 128-bit key, bonded` or
    /// `level 1 (no encryption)`.
    var text: String {
        guard level != .none else { return "level 1 (no encryption)" }
        let name: String =
            switch level {
            case .none: "no encryption"
            case .encrypted: "encrypted, unauthenticated"
            case .authenticated: "authenticated"
            case .authenticatedSecureConnections: "authenticated"
            }
        var parts = ["level \(level.rawValue) (\(name)\(pairingName.map { ", \($0)" } ?? ""))"]
        if let keySize { parts.append("\(keySize * 8)-bit key") }
        if bonded { parts.append("bonded") }
        return parts.joined(separator: ", ")
    }

    /// The JSON object: `level` (1–4), `name` (as `pair --json` names levels), `pairing`
    /// (`secure-connections` or `legacy`, absent when not known), `keySize` in octets (absent
    /// when not known), `bonded`.
    var json: JSONValue {
        .fields([
            "level": .int(level.rawValue), "name": .string(level.jsonName),
            "pairing": secureConnections.map { .string($0 ? "secure-connections" : "legacy") },
            "keySize": keySize.map { JSONValue.int($0) }, "bonded": .bool(bonded),
        ])
    }
}
