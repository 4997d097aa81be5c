import Foundation
import HaraldCore
import HaraldTestSupport
import Testing

/// The command line's side of secrets: fixed passkeys only on request and with a warning, the
/// btsnoop warning in every `--help` that offers it, bond files others can read refused.
@Suite("harald: passkeys, captures and bond files (no radio)")
struct PrivacyCommandLineTests {
    /// Help text with its line wrapping undone.
    static func help(_ arguments: [String]) throws -> String {
        let outcome = try HaraldExecutable.run(arguments + ["--help"])
        #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        return outcome.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Every command that can write a btsnoop capture.
    static let capturingCommands: [[String]] = [
        ["scan"], ["dump"], ["read"], ["write"], ["subscribe"], ["pair"], ["hrm", "monitor"], ["gopro", "status"], ["miband", "steps"],
    ]

    @Test(arguments: capturingCommands)
    func everyBtsnoopOptionWarnsThatCapturesHoldKeys(_ command: [String]) throws {
        let text = try Self.help(command)
        guard text.contains("--btsnoop") else { return }
        #expect(text.contains("a capture holds link keys"), "\(command): \(text)")
        #expect(text.contains("0600"), "\(command)")
    }

    @Test func theCommandsListedAreTheOnesWithACaptureOption() throws {
        // At least the radio commands offer --btsnoop (so the test above checks something).
        for command in [["read"], ["pair"], ["scan"]] {
            #expect(try Self.help(command).contains("--btsnoop"), "\(command)")
        }
    }

    @Test(arguments: [["pair"], ["read"], ["serve"]])
    func theFixedPasskeyOptionWarnsAndPasskeyIsNeverShown(_ command: [String]) throws {
        let text = try Self.help(command)
        #expect(text.contains("--fixed-passkey"))
        #expect(text.contains("a passkey shown twice is no secret"), "\(text)")
        #expect(text.contains("fresh random passkey"), "\(text)")
    }

    @Test func aFixedPasskeyPrintsAWarningBeforeAnythingElse() throws {
        // Nothing listens on port 1: the run fails to open its transport, after the warning.
        let outcome = try HaraldExecutable.run(["pair", "C0:11:22:33:44:55", "--fixed-passkey", "123456", "--transport", "tcp:127.0.0.1:1"])
        #expect(outcome.status == 69, "\(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("warning: --fixed-passkey shows the same passkey on every pairing"), "\(outcome.stderr)")
        let quiet = try HaraldExecutable.run(["pair", "C0:11:22:33:44:55", "--passkey", "123456", "--transport", "tcp:127.0.0.1:1"])
        #expect(!quiet.stderr.contains("--fixed-passkey"), "--passkey is what this side types: no warning")
    }

    @Test(arguments: ["1000000", "12345a", "", "-1"])
    func aMalformedFixedPasskeyIsAUsageError(_ value: String) throws {
        let outcome = try HaraldExecutable.run(["pair", "C0:11:22:33:44:55", "--fixed-passkey", value])
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    @Test func serveIsPrivateByDefault() throws {
        let text = try Self.help(["serve"])
        #expect(text.contains("--no-privacy") && text.contains("resolvable private addresses"), "\(text)")
        #expect(text.contains("--address-interval") && text.contains("900"), "\(text)")
        let outcome = try HaraldExecutable.run(["serve", "hrm", "--transport", "tcp:127.0.0.1:1", "--address-interval", "0"])
        #expect(outcome.status == 64, "\(outcome.stderr)")
    }

    @Test func aBondFileOthersCanReadIsRefusedWithItsPathAndMode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-cli-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bonds.json")
        try await FileBondStore(fileURL: file).setLocalIdentity(LocalIdentity.generate())
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let outcome = try HaraldExecutable.run(["bonds", "list", "--bonds", file.path])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains(file.path) && outcome.stderr.contains("0644") && outcome.stderr.contains("chmod 600"), "\(outcome.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o644, "left as it was")
    }
}
