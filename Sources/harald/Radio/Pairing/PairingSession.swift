import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldHCIBackend
import HaraldSMP
import Logging

/// The link security of one `harald` run on a backend that pairs: the bond file, the answers to
/// pairing's questions, and what happened, for the command's output and its logs.
final class PairingSession: Sendable {
    let fileURL: URL
    let store: SessionBondStore
    let agent: CommandLinePairingAgent
    let configuration: HCISecurityConfiguration

    init(_ options: RadioOptions) throws {
        fileURL = try options.bondFile.fileURL()
        store = SessionBondStore(FileBondStore(fileURL: fileURL) { key, address in key.resolves(address) })
        PairingOptions.warnIfFixed(options.fixedPasskey)
        agent = CommandLinePairingAgent(passkey: options.passkey, fixedDisplayPasskey: options.fixedPasskey)
        // No MITM demand of our own: a device without IO still pairs (Just Works); a device that
        // asks for MITM gets the association model both sides' IO capabilities allow.
        configuration = HCISecurityConfiguration(
            bonds: store, pairing: PairingConfiguration(ioCapability: options.io.capability), agent: agent, lostBond: .fail)
    }

    /// What securing links did in this run.
    struct Outcome {
        /// Pairing ran (every association model but OOB, which Harald does not offer, asks the agent).
        var paired: Bool
        /// The bond this run stored, if any.
        var storedBond: Bond?
        /// A stored bond a lookup found (and the backend encrypted with, unless it paired).
        var usedBond: Bond?
        /// The association model, from the agent's questions: "Just Works", "Numeric Comparison",
        /// "Passkey Entry"; nil when it was asked nothing.
        var model: String?
    }

    func outcome() async -> Outcome {
        let (saved, found) = (await store.saved, await store.found)
        let questions = agent.questions
        let model: String? =
            if questions.contains(.numericComparison) { "Numeric Comparison" } else if questions.contains(.passkeyTyped) || questions.contains(.passkeyShown) {
                "Passkey Entry"
            } else if questions.contains(.justWorks) { "Just Works" } else { nil }
        return Outcome(paired: !questions.isEmpty, storedBond: questions.isEmpty ? nil : saved.last, usedBond: found.last, model: model)
    }

    /// Logs what securing links did (notice level: `--log-level notice` shows it).
    func logOutcome(_ logger: Logger) async {
        let outcome = await outcome()
        let file = fileURL.path
        if let bond = outcome.storedBond {
            logger.notice(
                "paired and stored the bond",
                metadata: [
                    "peer": "\(bond.identityAddress)", "method": "\(outcome.model ?? "unknown")", "level": "\(bond.securityLevel)",
                    "bonds": "\(file)",
                ])
        } else if outcome.paired {
            logger.notice("paired without storing a bond (the device did not bond)", metadata: ["method": "\(outcome.model ?? "unknown")"])
        } else if let bond = outcome.usedBond {
            logger.notice(
                "encrypted with the stored bond, without pairing",
                metadata: ["peer": "\(bond.identityAddress)", "level": "\(bond.securityLevel)", "bonds": "\(file)"])
        }
    }

    /// The error line for a failure in a run that may have paired: the pairing failure with the
    /// agent's reason, or a lost bond with what to do about it.
    func message(for error: any Error, base: String) -> String {
        if let error = error as? BluetoothError {
            switch error {
            case let .pairingFailed(detail):
                var text = base
                if let refusal = agent.refusal { text += " (\(refusal))" }
                // The side that checks a typed passkey sees its confirm value fail.
                if detail.contains(PairingFailureReason.confirmValueFailed.description), agent.questions.contains(.passkeyTyped) {
                    text += " (a wrong passkey?)"
                }
                return text
            case .peerRemovedPairingInformation:
                return base + ": forget the bond with `harald bonds remove ADDRESS --bonds \(fileURL.path)`, then pair again"
            default:
                break
            }
        }
        return base
    }
}

extension TransportChoice {
    /// Whether links on this transport can be paired.
    ///
    /// The simulator does not yet. The seam: `Simulator(clock:devices:security:)` takes a
    /// `SecurityConfiguration` (``PairingSession/configuration``) and pairs with devices whose
    /// `pairing` is `.securityManager(DeviceSecurity)`; the CLI's virtual devices (in
    /// `RadioSession.run`) have none yet, and a run's world is new each time, so its devices would
    /// not know a bond from the file on the next run. Once both are settled, pass the session there
    /// and answer true here.
    var pairs: Bool {
        switch self {
        case .simulator: false
        case .tcp, .hci: true
        }
    }

    /// The error for pairing on a transport that cannot.
    var noPairingMessage: String {
        "the \(self) transport does not pair yet (the simulator's pairing model is being added); use --transport tcp:HOST:PORT or hci:N"
    }
}
