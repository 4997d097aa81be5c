import HaraldCore
import HaraldSMP
import Testing

/// The association model, from Core spec Vol 3 Part H §2.3.5.1, Table 2.8, written out here as
/// notes/smp.md §2 gives it: rows are the initiator, columns the responder; "a/b" is legacy/SC.
/// JW Just Works, NC Numeric Comparison, PK-I initiator displays and responder inputs, PK-R
/// responder displays and initiator inputs, PK-both both input.
@Suite("Association model")
struct AssociationModelTests {
    static let table = """
                         DisplayOnly  DisplayYesNo  KeyboardOnly  NoInputNoOutput  KeyboardDisplay
        DisplayOnly      JW           JW            PK-I          JW               PK-I
        DisplayYesNo     JW           JW/NC         PK-I          JW               PK-I/NC
        KeyboardOnly     PK-R         PK-R          PK-both       JW               PK-R
        NoInputNoOutput  JW           JW            JW            JW               JW
        KeyboardDisplay  PK-R         PK-R/NC       PK-I          JW               PK-I/NC
        """

    struct Cell: CustomTestStringConvertible, Sendable {
        var initiator: IOCapability
        var responder: IOCapability
        var legacy: AssociationModel
        var secureConnections: AssociationModel
        var testDescription: String { "\(initiator) × \(responder)" }
    }

    static func model(_ name: Substring) -> AssociationModel {
        switch name {
        case "JW": .justWorks
        case "NC": .numericComparison
        case "PK-I": .passkeyEntry(.initiatorDisplays)
        case "PK-R": .passkeyEntry(.responderDisplays)
        case "PK-both": .passkeyEntry(.bothInput)
        default: fatalError("no model \(name) in the table")
        }
    }

    static func io(_ name: Substring) -> IOCapability {
        IOCapability.allCases.first { $0.description == name }!
    }

    static let cells: [Cell] = {
        let lines = table.split(separator: "\n").map { $0.split(separator: " ") }
        let columns = lines[0].map(io)
        return lines.dropFirst().flatMap { row in
            zip(columns, row.dropFirst()).map { responder, entry in
                let models = entry.split(separator: "/").map(model)
                return Cell(initiator: io(row[0]), responder: responder, legacy: models[0], secureConnections: models.last!)
            }
        }
    }()

    enum MITM: CaseIterable, Sendable { case neither, initiator, responder, both }

    static func features(_ io: IOCapability, sc: Bool, mitm: Bool, oob: Bool = false) -> PairingFeatures {
        var authReq: AuthReq = [.bonding]
        if sc { authReq.insert(.secureConnections) }
        if mitm { authReq.insert(.mitm) }
        return PairingFeatures(
            ioCapability: io, oobDataPresent: oob, authReq: authReq, initiatorKeyDistribution: [.idKey],
            responderKeyDistribution: [.idKey])
    }

    @Test func theTableCoversEveryPairOfIOCapabilities() {
        #expect(Self.cells.count == 25)
        #expect(Set(Self.cells.map { "\($0.initiator)\($0.responder)" }).count == 25)
    }

    @Test(arguments: cells, [false, true])
    func withMITMRequestedTheTableDecides(_ cell: Cell, secureConnections: Bool) {
        for mitm in [MITM.initiator, .responder, .both] {
            let method = PairingMethod(
                initiator: Self.features(cell.initiator, sc: secureConnections, mitm: mitm != .responder),
                responder: Self.features(cell.responder, sc: secureConnections, mitm: mitm != .initiator))
            #expect(method.isSecureConnections == secureConnections)
            #expect(method.model == (secureConnections ? cell.secureConnections : cell.legacy), "MITM from \(mitm)")
        }
    }

    @Test(arguments: cells, [false, true])
    func withoutMITMEveryPairIsJustWorks(_ cell: Cell, secureConnections: Bool) {
        let method = PairingMethod(
            initiator: Self.features(cell.initiator, sc: secureConnections, mitm: false),
            responder: Self.features(cell.responder, sc: secureConnections, mitm: false))
        #expect(method.model == .justWorks)
        #expect(!method.isAuthenticated)
    }

    @Test func numericComparisonOnlyExistsWithSecureConnections() {
        #expect(!Self.cells.contains { $0.legacy == .numericComparison })
        #expect(Self.cells.filter { $0.secureConnections == .numericComparison }.count == 4)
    }

    @Test func secureConnectionsNeedsBothSidesSCBits() {
        let method = PairingMethod(
            initiator: Self.features(.displayYesNo, sc: true, mitm: true),
            responder: Self.features(.displayYesNo, sc: false, mitm: true))
        #expect(!method.isSecureConnections)
        #expect(method.model == .justWorks)
    }

    @Test func legacyUsesOOBOnlyWhenBothHaveOOBData() {
        let both = PairingMethod(
            initiator: Self.features(.noInputNoOutput, sc: false, mitm: false, oob: true),
            responder: Self.features(.noInputNoOutput, sc: false, mitm: false, oob: true))
        #expect(both.model == .outOfBand)
        #expect(both.isAuthenticated)
        let one = PairingMethod(
            initiator: Self.features(.keyboardOnly, sc: false, mitm: true, oob: true),
            responder: Self.features(.displayOnly, sc: false, mitm: true, oob: false))
        #expect(one.model == .passkeyEntry(.responderDisplays))
    }

    @Test func secureConnectionsUsesOOBWhenEitherHasOOBData() {
        for (initiatorOOB, responderOOB) in [(true, false), (false, true), (true, true)] {
            let method = PairingMethod(
                initiator: Self.features(.noInputNoOutput, sc: true, mitm: false, oob: initiatorOOB),
                responder: Self.features(.noInputNoOutput, sc: true, mitm: false, oob: responderOOB))
            #expect(method.model == .outOfBand)
        }
    }

    @Test func onlyJustWorksGivesAnUnauthenticatedKey() {
        #expect(!AssociationModel.justWorks.isAuthenticated)
        #expect(AssociationModel.numericComparison.isAuthenticated)
        #expect(AssociationModel.outOfBand.isAuthenticated)
        for roles in PasskeyEntryRoles.allCases { #expect(AssociationModel.passkeyEntry(roles).isAuthenticated) }
    }

    @Test func securityLevelFollowsAuthenticationSecureConnectionsAndKeySize() {
        let nc = PairingMethod(isSecureConnections: true, model: .numericComparison)
        #expect(nc.securityLevel(keySize: 16) == .authenticatedSecureConnections)
        // A key under 16 octets never counts as authenticated (KNOB: it can be searched offline).
        #expect(nc.securityLevel(keySize: 15) == .encrypted)
        #expect(nc.securityLevel(keySize: 7) == .encrypted)
        // Legacy pairing is never level 4.
        #expect(PairingMethod(isSecureConnections: false, model: .passkeyEntry(.bothInput)).securityLevel(keySize: 16) == .authenticated)
        #expect(PairingMethod(isSecureConnections: false, model: .passkeyEntry(.bothInput)).securityLevel(keySize: 10) == .encrypted)
        #expect(PairingMethod(isSecureConnections: true, model: .justWorks).securityLevel(keySize: 16) == .encrypted)
    }

    @Test func aMITMRequirementThatJustWorksCannotMeetFailsWithAuthenticationRequirements() {
        let justWorks = PairingMethod(
            initiator: Self.features(.keyboardDisplay, sc: true, mitm: true),
            responder: Self.features(.noInputNoOutput, sc: true, mitm: false))
        #expect(justWorks.failureReason(requiringMITM: true) == .authenticationRequirements)
        #expect(justWorks.failureReason(requiringMITM: false) == nil)
        #expect(PairingMethod(isSecureConnections: true, model: .numericComparison).failureReason(requiringMITM: true) == nil)
    }

    @Test func passkeyRolesSayWhoDisplaysAndWhoTypes() {
        let initiatorDisplays = PasskeyEntryRoles.initiatorDisplays
        #expect(initiatorDisplays.initiatorDisplays && initiatorDisplays.responderInputs)
        #expect(!initiatorDisplays.initiatorInputs && !initiatorDisplays.responderDisplays)
        let responderDisplays = PasskeyEntryRoles.responderDisplays
        #expect(responderDisplays.responderDisplays && responderDisplays.initiatorInputs)
        let both = PasskeyEntryRoles.bothInput
        #expect(both.initiatorInputs && both.responderInputs && !both.initiatorDisplays && !both.responderDisplays)
    }

    @Test func methodsReadAsTheSpecNamesThem() {
        #expect(PairingMethod(isSecureConnections: true, model: .numericComparison).description == "LE Secure Connections, Numeric Comparison")
        #expect(
            PairingMethod(isSecureConnections: false, model: .passkeyEntry(.responderDisplays)).description
                == "LE legacy, Passkey Entry (responder displays, initiator inputs)")
    }
}
