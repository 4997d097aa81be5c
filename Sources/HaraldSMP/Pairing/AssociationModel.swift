import HaraldCore

/// Who shows and who types the six-digit passkey in Passkey Entry (Core spec Vol 3 Part H
/// §2.3.5.1, Table 2.8).
public enum PasskeyEntryRoles: Hashable, Sendable, CaseIterable {
    /// "Initiator displays, responder inputs".
    case initiatorDisplays
    /// "Responder displays, initiator inputs".
    case responderDisplays
    /// "Initiator and responder input": both have only a keyboard and the users type the same
    /// passkey on each.
    case bothInput

    /// True when the initiator shows the passkey.
    public var initiatorDisplays: Bool { self == .initiatorDisplays }
    /// True when the responder shows the passkey.
    public var responderDisplays: Bool { self == .responderDisplays }
    /// True when the user types the passkey on the initiator.
    public var initiatorInputs: Bool { self != .initiatorDisplays }
    /// True when the user types the passkey on the responder.
    public var responderInputs: Bool { self != .responderDisplays }
}

/// How the two devices authenticate each other in phase 2 of pairing (Core spec Vol 3 Part H
/// §2.3.5.1).
public enum AssociationModel: Hashable, Sendable {
    /// No user interaction; gives no protection against a man in the middle.
    case justWorks
    /// Both devices show a six-digit number and the user confirms they match (LE Secure
    /// Connections only).
    case numericComparison
    /// The user types a six-digit passkey.
    case passkeyEntry(PasskeyEntryRoles)
    /// Authentication data exchanged out of band (NFC, a QR code…).
    case outOfBand

    /// True for every model but Just Works: the key is authenticated (MITM-protected).
    public var isAuthenticated: Bool { self != .justWorks }
}

/// What phase 1 settled: LE legacy pairing or LE Secure Connections, and the association model,
/// chosen from both devices' Pairing Request and Response (Core spec Vol 3 Part H §2.3.5.1).
public struct PairingMethod: Hashable, Sendable, CustomStringConvertible {
    /// True when both devices set SC in AuthReq: the pairing uses LE Secure Connections.
    public var isSecureConnections: Bool
    /// The association model.
    public var model: AssociationModel

    /// A method: LE Secure Connections or legacy pairing, with its association model.
    public init(isSecureConnections: Bool, model: AssociationModel) {
        self.isSecureConnections = isSecureConnections
        self.model = model
    }

    /// The method for an initiator's Pairing Request and a responder's Pairing Response.
    ///
    /// In this order: OOB when both devices have the peer's OOB data (legacy) or either does
    /// (Secure Connections); Just Works when neither asks for MITM; otherwise Table 2.8 of the
    /// spec, from both IO capabilities.
    public init(initiator: PairingFeatures, responder: PairingFeatures) {
        let secureConnections =
            initiator.authReq.contains(.secureConnections) && responder.authReq.contains(.secureConnections)
        self.init(
            isSecureConnections: secureConnections,
            model: Self.model(
                secureConnections: secureConnections,
                initiator: (initiator.ioCapability, initiator.oobDataPresent, initiator.authReq.contains(.mitm)),
                responder: (responder.ioCapability, responder.oobDataPresent, responder.authReq.contains(.mitm))))
    }

    /// True when the key will be authenticated (every model but Just Works).
    public var isAuthenticated: Bool { model.isAuthenticated }

    /// The security level a link encrypted with the resulting key gets, for a key of `keySize`
    /// octets: level 4 needs an authenticated Secure Connections key of 16 octets, level 3 an
    /// authenticated key of 16 octets (legacy pairing never reaches level 4); a shorter key never
    /// counts as authenticated (it can be searched offline), so it gives level 2.
    public func securityLevel(keySize: Int) -> SecurityLevel {
        switch (isAuthenticated && keySize >= 16, isSecureConnections) {
        case (true, true): .authenticatedSecureConnections
        case (true, false): .authenticated
        case (false, _): .encrypted
        }
    }

    /// Authentication Requirements (0x03) when a device that needs MITM protection would get an
    /// unauthenticated key; nil when the method meets the requirement.
    public func failureReason(requiringMITM: Bool) -> PairingFailureReason? {
        requiringMITM && !isAuthenticated ? .authenticationRequirements : nil
    }

    /// `LE Secure Connections, Numeric Comparison`.
    public var description: String {
        let kind = isSecureConnections ? "LE Secure Connections" : "LE legacy"
        let model: String =
            switch model {
            case .justWorks: "Just Works"
            case .numericComparison: "Numeric Comparison"
            case .passkeyEntry(.initiatorDisplays): "Passkey Entry (initiator displays, responder inputs)"
            case .passkeyEntry(.responderDisplays): "Passkey Entry (responder displays, initiator inputs)"
            case .passkeyEntry(.bothInput): "Passkey Entry (initiator and responder input)"
            case .outOfBand: "OOB"
            }
        return "\(kind), \(model)"
    }

    private typealias Side = (io: IOCapability, oob: Bool, mitm: Bool)

    private static func model(secureConnections: Bool, initiator: Side, responder: Side) -> AssociationModel {
        let oob = secureConnections ? (initiator.oob || responder.oob) : (initiator.oob && responder.oob)
        if oob { return .outOfBand }
        if !initiator.mitm && !responder.mitm { return .justWorks }
        let cell = ioTable[Int(initiator.io.rawValue)][Int(responder.io.rawValue)]
        return secureConnections ? cell.secureConnections : cell.legacy
    }

    /// Table 2.8: rows are the initiator's IO capability, columns the responder's, both in code
    /// order (DisplayOnly, DisplayYesNo, KeyboardOnly, NoInputNoOutput, KeyboardDisplay); each cell
    /// is the legacy model and the Secure Connections model.
    private static let ioTable: [[(legacy: AssociationModel, secureConnections: AssociationModel)]] = {
        let jw = (AssociationModel.justWorks, AssociationModel.justWorks)
        let pkI = (AssociationModel.passkeyEntry(.initiatorDisplays), AssociationModel.passkeyEntry(.initiatorDisplays))
        let pkR = (AssociationModel.passkeyEntry(.responderDisplays), AssociationModel.passkeyEntry(.responderDisplays))
        let pkBoth = (AssociationModel.passkeyEntry(.bothInput), AssociationModel.passkeyEntry(.bothInput))
        let jwOrNC = (AssociationModel.justWorks, AssociationModel.numericComparison)
        let pkIOrNC = (AssociationModel.passkeyEntry(.initiatorDisplays), AssociationModel.numericComparison)
        let pkROrNC = (AssociationModel.passkeyEntry(.responderDisplays), AssociationModel.numericComparison)
        return [
            //  DisplayOnly DisplayYesNo KeyboardOnly NoInputNoOutput KeyboardDisplay
            [jw, jw, pkI, jw, pkI],  // DisplayOnly
            [jw, jwOrNC, pkI, jw, pkIOrNC],  // DisplayYesNo
            [pkR, pkR, pkBoth, jw, pkR],  // KeyboardOnly
            [jw, jw, jw, jw, jw],  // NoInputNoOutput
            [pkR, pkROrNC, pkI, jw, pkIOrNC],  // KeyboardDisplay
        ]
    }()
}
