import Foundation
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// The `harald bonds` commands and the pairing options, run against the built executable without
/// a radio: bond files written with `FileBondStore`, listed and removed by the tool, and no key
/// ever in its output. (Pairing itself is checked against Bumble by scripts/cli_integration.py.)
@Suite("harald pair and bonds (no radio)")
struct PairingCommandLineTests {
    /// A key from 32 hex digits, most significant byte first.
    static func key(_ hex: String) -> SecretKey128 {
        SecretKey128(littleEndianBytes: try! [UInt8](hex: hex).reversed())!
    }

    static let ltk = "a1a2a3a4a5a6a7a8a9aaabacadaeafb0"
    static let irk = "c1c2c3c4c5c6c7c8c9cacbcccdcecfd0"
    static let ourIRK = "f1f2f3f4f5f6f7f8f9fafbfcfdfefff0"
    static let camera = BluetoothAddress("C0:11:22:33:44:55/random")!
    static let strap = BluetoothAddress("00:1B:DC:07:32:5A/public")!

    static func bond(_ address: BluetoothAddress, authenticated: Bool) throws -> Bond {
        try Bond(
            identityAddress: address,
            longTermKey: LongTermKey(key: key(ltk), isAuthenticated: authenticated, isSecureConnections: true),
            peerIdentityResolvingKey: IdentityResolvingKey(key: key(irk)),
            isAuthenticated: authenticated, isSecureConnections: true, createdAt: Date(timeIntervalSince1970: 1_748_779_200))
    }

    /// A bond file with two bonds and our identity, in a fresh directory removed after `body`.
    static func withBondFile(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-cli-bonds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bonds.json")
        let store = FileBondStore(fileURL: file)
        try await store.setLocalIdentity(
            LocalIdentity(address: BluetoothAddress("C3:00:00:00:00:01/random")!, identityResolvingKey: IdentityResolvingKey(key: key(ourIRK))))
        try await store.save(bond(camera, authenticated: false))
        try await store.save(bond(strap, authenticated: true))
        try await body(file)
    }

    static func expectNoKeys(_ outcome: HaraldExecutable.Outcome) {
        let text = (outcome.stdout + outcome.stderr).lowercased()
        for key in [ltk, irk, ourIRK] { #expect(!text.contains(key), "a key in the output: \(text)") }
    }

    @Test func listPrintsEveryBondWithoutKeys() async throws {
        try await Self.withBondFile { file in
            let table = try HaraldExecutable.run(["bonds", "list", "--bonds", file.path])
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.first?.hasPrefix("ADDRESS") == true)
            #expect(table.stdout.contains("00:1B:DC:07:32:5A  public") && table.stdout.contains("C0:11:22:33:44:55  random"))
            Self.expectNoKeys(table)

            let json = try HaraldExecutable.run(["bonds", "list", "--bonds", file.path, "--json"])
            #expect(json.status == 0)
            let objects = try json.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.count == 2)
            let camera = try #require(objects.compactMap(\.self).first { $0["address"] as? String == "C0:11:22:33:44:55" })
            #expect(camera["addressType"] as? String == "random")
            #expect(camera["level"] as? String == "encrypted")
            #expect(camera["keySize"] as? Int == 16)
            #expect(camera["keys"] as? [String] == ["LTK", "IRK"])
            #expect(camera["created"] as? String == "2025-06-01T12:00:00Z")
            #expect(camera["peerRejectedKey"] as? Bool == false)
            let strap = try #require(objects.compactMap(\.self).first { $0["address"] as? String == "00:1B:DC:07:32:5A" })
            #expect(strap["level"] as? String == "authenticated-secure-connections")
            Self.expectNoKeys(json)
        }
    }

    @Test func removeForgetsOneBondAndKeepsTheRest() async throws {
        try await Self.withBondFile { file in
            let removed = try HaraldExecutable.run(["bonds", "remove", "c0:11:22:33:44:55", "--bonds", file.path, "--json"])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stdout == "{\"addressType\":\"random\",\"removed\":\"C0:11:22:33:44:55\"}\n")
            let left = try await FileBondStore(fileURL: file).allBonds()
            #expect(left.map(\.identityAddress) == [Self.strap])
            #expect(try await FileBondStore(fileURL: file).localIdentity() != nil, "our identity stays")

            let again = try HaraldExecutable.run(["bonds", "remove", "C0:11:22:33:44:55", "--bonds", file.path])
            #expect(again.status == 1)
            #expect(again.stdout.isEmpty && again.stderr.hasPrefix("error: no bond for C0:11:22:33:44:55"))

            let wrongType = try HaraldExecutable.run(["bonds", "remove", "00:1B:DC:07:32:5A", "--address-type", "random", "--bonds", file.path])
            #expect(wrongType.status == 1, "the public bond is not under a random address")
        }
    }

    @Test func aMissingFileHasNoBondsAndIsNotCreated() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("harald-cli-none-\(UUID().uuidString)/bonds.json")
        let outcome = try HaraldExecutable.run(["bonds", "list", "--bonds", file.path])
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "no bonds in \(file.path)\n")
        let json = try HaraldExecutable.run(["bonds", "list", "--bonds", file.path, "--json"])
        #expect(json.status == 0 && json.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path))
    }

    @Test func aCorruptFileIsOneErrorLineAndLeftAlone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-cli-corrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bonds.json")
        try Data("{not json".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        for arguments in [["bonds", "list"], ["bonds", "remove", "C0:11:22:33:44:55"]] {
            let outcome = try HaraldExecutable.run(arguments + ["--bonds", file.path])
            #expect(outcome.status == 1)
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.hasPrefix("error: ") && outcome.stderr.contains("corrupt") && outcome.stderr.split(separator: "\n").count == 1)
        }
        #expect(try Data(contentsOf: file) == Data("{not json".utf8))
    }

    @Test(arguments: [
        ["pair", "C0:11:22:33:44:55", "--passkey", "1000000"],
        ["pair", "C0:11:22:33:44:55", "--passkey", "12345a"],
        ["pair", "C0:11:22:33:44:55", "--passkey", "+12345"],
        ["pair", "C0:11:22:33:44:55", "--passkey", ""],
        ["pair", "C0:11:22:33:44:55", "--io", "telepathy"],
        ["read", "C0:11:22:33:44:55", "2A38", "--io", "DisplayOnly"],
        ["read", "C0:11:22:33:44:55", "2A38", "--log-level", "loud"],
        ["pair", "C0:11:22:33:44"],
        ["pair", "C0:11:22:33:44:55", "--address-type", "static"],
        ["bonds", "remove", "nowhere"],
        ["bonds", "list", "--bonds", ""],
    ])
    func malformedPairingArgumentsAreUsageErrors(arguments: [String]) throws {
        let outcome = try HaraldExecutable.run(arguments)
        #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }

    @Test func thePasskeyErrorSaysTheRange() throws {
        let outcome = try HaraldExecutable.run(["pair", "C0:11:22:33:44:55", "--passkey", "1000000"])
        #expect(outcome.stderr.contains("0 to 999999"))
    }

    @Test func theSimulatorSaysItDoesNotPairYet() throws {
        let outcome = try HaraldExecutable.run(["pair", "C0:FF:EE:00:00:01", "--transport", "sim", "--passkey", "123456"])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("error: the sim transport does not pair yet"))
    }
}
