import Foundation
import HaraldCore
import Testing

/// A bond file others can read or change is refused (or, when asked, restricted to 0600).
@Suite("Bond file permissions")
struct BondFilePermissionTests {
    typealias F = BondFixtures

    /// A bond file holding one bond, written by the store (so 0600), then given `mode`.
    private func withBondFile(mode: Int, _ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-bond-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bonds.json")
        try await FileBondStore(fileURL: file).save(F.legacyBond())
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        try await body(file)
    }

    private func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o660, 0o666, 0o620, 0o602])
    func aFileOthersCanReadOrWriteIsRefusedAndLeftAlone(mode fileMode: Int) async throws {
        try await withBondFile(mode: fileMode) { (file: URL) async throws in
            let before = try Data(contentsOf: file)
            let store = FileBondStore(fileURL: file)
            await #expect(throws: BondStoreError.insecurePermissions(path: file.path, mode: UInt16(fileMode))) { try await store.allBonds() }
            await #expect(throws: BondStoreError.self) { try await store.bond(for: F.peer) }
            await #expect(throws: BondStoreError.self) { try await store.save(F.legacyBond(F.publicPeer)) }
            #expect(try mode(file) == fileMode, "refusing does not change the mode")
            #expect(try Data(contentsOf: file) == before, "nor the file")
        }
    }

    @Test func theRefusalNamesThePathAndTheModeAndSaysWhatToDo() async throws {
        try await withBondFile(mode: 0o644) { (file: URL) async throws in
            await #expect { try await FileBondStore(fileURL: file).allBonds() } throws: { error in
                let text = "\(error)"
                return text.contains(file.path) && text.contains("0644") && text.contains("chmod 600")
                    && F.leaks(text.replacingOccurrences(of: file.path, with: "<bond file>")).isEmpty
            }
        }
    }

    @Test(arguments: [0o600, 0o400])
    func anOwnerOnlyFileIsRead(mode fileMode: Int) async throws {
        try await withBondFile(mode: fileMode) { (file: URL) async throws in
            #expect(try await FileBondStore(fileURL: file).allBonds() == [F.legacyBond()])
            #expect(try mode(file) == fileMode)
        }
    }

    @Test func theRepairPolicyRestrictsTheFileAndSaysWhatItFound() async throws {
        try await withBondFile(mode: 0o644) { (file: URL) async throws in
            let reported = Locked<[(String, UInt16)]>([])
            let store = FileBondStore(fileURL: file, permissions: .repair { path, mode in reported.withLock { $0.append((path, mode)) } })
            #expect(try await store.allBonds() == [F.legacyBond()])
            #expect(try mode(file) == 0o600)
            let seen = reported.withLock { $0 }
            #expect(seen.count == 1 && seen.first?.0 == file.path && seen.first?.1 == 0o644)
        }
    }

    @Test func aMissingFileIsStillAnEmptyStore() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("harald-bond-none-\(UUID().uuidString)/bonds.json")
        #expect(try await FileBondStore(fileURL: file).allBonds().isEmpty)
    }
}
