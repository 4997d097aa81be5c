import ArgumentParser
import Foundation
import HaraldCore
import HaraldSMP

/// The person's side of pairing on the command line.
///
/// Just Works is accepted. Passkey Entry where this side types takes `--passkey`, else asks on
/// the terminal, and refuses (so pairing fails with Passkey Entry Failed) when stdin is not a
/// terminal. Numeric Comparison asks on the terminal and refuses without one. A passkey this
/// side displays is fresh on every pairing, six random digits from the system's
/// cryptographically secure generator (a passkey shown twice is no secret: one sniffed LE Secure
/// Connections pairing gives away all 20 bits), unless `--fixed-passkey` asks for one (with a
/// warning). It goes to stderr for the person to type on the device: it is the prompt, not a log.
///
/// It also remembers what it was asked, which tells the command the association model that was
/// used, and why it refused, for the error message.
final class CommandLinePairingAgent: PairingAgent {
    /// What pairing asked of the person.
    enum Question: Hashable, Sendable {
        case justWorks
        case numericComparison
        case passkeyTyped
        case passkeyShown
    }

    private let passkey: UInt32?
    private let fixedDisplayPasskey: UInt32?
    private let interactive: Bool
    private let state = Locked<(questions: [Question], refusal: String?)>(([], nil))
    /// Whether a pairing may replace a stored bond that is as strong or stronger (set by
    /// `harald pair`, where the person asked to pair afresh; never by the commands that pair on
    /// their own).
    private let replacesBonds = Locked(false)

    /// - Parameters:
    ///   - passkey: the passkey to type, 0…999999 (`--passkey`); never displayed.
    ///   - fixedDisplayPasskey: the passkey to show where this side displays (`--fixed-passkey`);
    ///     nil shows a fresh random one on every pairing.
    ///   - interactive: whether a person can answer on the terminal (stdin is a terminal).
    init(passkey: UInt32?, fixedDisplayPasskey: UInt32? = nil, interactive: Bool = isatty(STDIN_FILENO) == 1) {
        self.passkey = passkey
        self.fixedDisplayPasskey = fixedDisplayPasskey
        self.interactive = interactive
    }

    /// The questions asked so far, in order.
    var questions: [Question] { state.withLock { $0.questions } }

    /// Why the agent refused to go on, when it did (a passkey it had no way to get, say).
    var refusal: String? { state.withLock { $0.refusal } }

    private func asked(_ question: Question, refusing reason: String? = nil) {
        state.withLock { state in
            state.questions.append(question)
            if let reason { state.refusal = reason }
        }
    }

    func confirmJustWorks() async -> Bool {
        asked(.justWorks)
        return true
    }

    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool {
        guard interactive else {
            asked(
                .numericComparison,
                refusing: "Numeric Comparison needs a person to compare the numbers and stdin is not a terminal "
                    + "(run on a terminal, or pair with --io keyboard-only or --io none)")
            return false
        }
        asked(.numericComparison)
        let answer = await Self.ask("Does the device show \(value)? [y/N] ")
        let accepted = ["y", "yes"].contains(answer?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
        if !accepted { state.withLock { $0.refusal = "the numbers were not confirmed" } }
        return accepted
    }

    func enterPasskey() async -> UInt32? {
        if let passkey {
            asked(.passkeyTyped)
            return passkey
        }
        guard interactive else {
            asked(.passkeyTyped, refusing: "the device asks for a passkey and stdin is not a terminal: pass --passkey N")
            return nil
        }
        asked(.passkeyTyped)
        guard let line = await Self.ask("Passkey shown on the device: ") else {
            state.withLock { $0.refusal = "no passkey was typed" }
            return nil
        }
        guard let typed = PairingOptions.parsePasskey(line.trimmingCharacters(in: .whitespaces)) else {
            state.withLock { $0.refusal = "'\(line)' is not a passkey (six digits, 0…999999)" }
            return nil
        }
        return typed
    }

    /// Lets pairings of this run replace a stored bond even with a weaker one: the person ran
    /// `harald pair` to pair afresh. Without it (every other command) a weaker pairing is refused
    /// and the stored bond kept.
    func allowBondReplacement() { replacesBonds.withLock { $0 = true } }

    /// Yes only after ``allowBondReplacement()``: an explicit `harald pair`.
    func confirmBondReplacement(existing: BondStrength, replacement: BondStrength) async -> Bool {
        replacesBonds.withLock { $0 }
    }

    /// What this side shows when it displays: `--fixed-passkey`, else a fresh random passkey.
    func passkeyToDisplay() async -> UInt32? { fixedDisplayPasskey ?? PairingOptions.freshPasskey() }

    func displayPasskey(_ passkey: UInt32) async {
        asked(.passkeyShown)
        let digits = String(passkey)
        Self.prompt("Type the passkey \(String(repeating: "0", count: max(0, 6 - digits.count)) + digits) on the device.\n")
    }

    // MARK: The terminal

    private static func prompt(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Prints `question` on stderr and reads one line from stdin on a thread of its own (a person
    /// may take the whole SMP timeout; the cooperative pool must not wait for them). Nil at end of
    /// input.
    private static func ask(_ question: String) async -> String? {
        prompt(question)
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread { continuation.resume(returning: readLine()) }
        }
    }
}

/// Parsing and naming shared by the pairing options and commands.
enum PairingOptions {
    /// A passkey: one to six decimal digits, 0…999999.
    static func parsePasskey(_ text: String) -> UInt32? {
        guard (1...6).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt32(text)
    }

    /// `--passkey`'s transform: a usage error for anything but 0…999999.
    static func passkey(from text: String) throws -> UInt32 {
        guard let passkey = parsePasskey(text) else {
            throw ValidationError("--passkey must be a number from 0 to 999999 (six digits at most), not '\(text)'")
        }
        return passkey
    }

    /// `--fixed-passkey`'s transform: a usage error for anything but 0…999999.
    static func fixedPasskey(from text: String) throws -> UInt32 {
        guard let passkey = parsePasskey(text) else {
            throw ValidationError("--fixed-passkey must be a number from 0 to 999999 (six digits at most), not '\(text)'")
        }
        return passkey
    }

    /// A passkey to display: uniform in 0…999999, from the system's cryptographically secure
    /// generator, new on every call.
    static func freshPasskey() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return UInt32.random(in: 0...999_999, using: &generator)
    }

    /// The warning `--fixed-passkey` prints on stderr before anything else.
    static let fixedPasskeyWarning =
        "warning: --fixed-passkey shows the same passkey on every pairing; one sniffed LE Secure Connections pairing "
        + "reveals it and anyone who knows it can pair as a man in the middle: use it only for tests"

    /// Prints ``fixedPasskeyWarning`` on stderr when `passkey` is set.
    static func warnIfFixed(_ passkey: UInt32?) {
        guard passkey != nil else { return }
        FileHandle.standardError.write(Data((fixedPasskeyWarning + "\n").utf8))
    }
}
