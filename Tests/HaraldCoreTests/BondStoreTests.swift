import Foundation
import HaraldCodec
import HaraldCore
import Testing

/// A stand-in for `ah` (HaraldCore has no AES): a 24-bit hash of the IRK and `prand`. The store
/// only needs some function that ties an address to one IRK.
private func fakeHash(_ irk: IdentityResolvingKey, _ prand: UInt64) -> UInt64 {
    irk.key.withUnsafeKeyBytes { bytes in
        bytes.enumerated().reduce(prand) { hash, byte in (hash &* 31 &+ UInt64(byte.element) &+ UInt64(byte.offset)) & 0xFF_FFFF }
    }
}

/// A resolvable private address made from `irk`: `prand` (top bits 01) then its hash.
private func privateAddress(of irk: SecretKey128, prand: UInt64 = 0x70_8194) -> BluetoothAddress {
    BluetoothAddress(value: prand << 24 | fakeHash(IdentityResolvingKey(key: irk), prand), kind: .random)!
}

private let fakeResolver: PrivateAddressResolver = { irk, address in
    fakeHash(irk, address.value >> 24) == address.value & 0xFF_FFFF
}

/// A fresh directory under the system's temporary directory, removed after `body`.
private func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-bonds-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// The bond file inside a directory the store has to create (`<temporary>/harald/bonds.json`).
private func bondFile(in directory: URL) -> URL {
    directory.appendingPathComponent("harald").appendingPathComponent("bonds.json")
}

/// Writes `data` to `url` readable by its owner only, as the store wants a bond file.
private func writeOwnerOnly(_ data: Data, to url: URL) throws {
    try data.write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
}

private func permissions(_ url: URL) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
}

/// A distinct static random identity for peer number `index`.
private func peer(_ index: Int) -> BluetoothAddress {
    BluetoothAddress(value: 0xC000_0000_0000 | UInt64(index), kind: .random)!
}

@Suite("Bond stores")
struct BondStoreTests {
    typealias F = BondFixtures

    static let stores: [@Sendable (URL) -> any BondStore] = [
        { _ in InMemoryBondStore(resolver: fakeResolver) },
        { FileBondStore(fileURL: bondFile(in: $0), resolver: fakeResolver) },
    ]

    @Test(arguments: 0..<2)
    func findAPeerByItsIdentityAddress(store index: Int) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            try await store.save(F.legacyBond())
            #expect(try await store.bond(for: F.peer) == F.legacyBond())
            #expect(try await store.bond(resolving: F.peer) == F.legacyBond())
            #expect(try await store.bond(for: F.publicPeer) == nil)
        }
    }

    @Test(arguments: 0..<2)
    func findAPeerConnectingFromAResolvablePrivateAddressThroughItsIRK(store index: Int) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            let other = F.key("0f0e0d0c0b0a09080706050403020100")
            try await store.save(F.secureConnectionsBond(F.publicPeer, irk: other))
            try await store.save(F.secureConnectionsBond())
            let rpa = privateAddress(of: F.irk)
            #expect(rpa.isResolvablePrivate)
            #expect(try await store.bond(resolving: rpa)?.identityAddress == F.peer)
            #expect(try await store.bond(resolving: privateAddress(of: other))?.identityAddress == F.publicPeer)
            let stranger = privateAddress(of: F.key("00112233445566778899aabbccddeeff"))
            #expect(try await store.bond(resolving: stranger) == nil)
            #expect(try await store.bond(for: rpa) == nil, "a private address is not a key of the store")
        }
    }

    @Test(arguments: 0..<2)
    func aPeerWhoseIdentityDiffersFromItsConnectionAddressIsFoundByThatAddress(store index: Int) async throws {
        // Bumble distributes its public address as identity while it connects from a static
        // random one: the next connection from that address must still find the bond.
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            var bond = F.secureConnectionsBond(F.publicPeer)
            bond.lastAddress = F.peer
            try await store.save(bond)
            #expect(try await store.bond(resolving: F.peer)?.identityAddress == F.publicPeer)
            #expect(try await store.bond(resolving: F.publicPeer)?.identityAddress == F.publicPeer)
            // A bond stored under the address itself comes first.
            try await store.save(F.legacyBond())
            #expect(try await store.bond(resolving: F.peer)?.identityAddress == F.peer)
        }
    }

    @Test func aNonResolvablePrivateAddressFindsNoBondAndAsksNoResolver() async throws {
        let asked = Locked(0)
        let store = InMemoryBondStore(
            bonds: [F.secureConnectionsBond()],
            resolver: { _, _ in
                asked.withLock { $0 += 1 }; return true
            })
        #expect(await store.bond(resolving: BluetoothAddress("00:11:22:33:44:55/random")!) == nil)
        #expect(await store.bond(resolving: F.peer) != nil)
        #expect(asked.value == 0)
    }

    @Test func withoutAResolverOnlyIdentityAddressesFindABond() async throws {
        let store = InMemoryBondStore(bonds: [F.secureConnectionsBond()])
        #expect(await store.bond(resolving: privateAddress(of: F.irk)) == nil)
        #expect(await store.bond(resolving: F.peer) != nil)
    }

    @Test(arguments: 0..<2)
    func savingUnderTheSameIdentityReplacesTheBond(store index: Int) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            try await store.save(F.legacyBond())
            try await store.save(F.secureConnectionsBond())
            #expect(try await store.allBonds() == [F.secureConnectionsBond()])
        }
    }

    @Test(arguments: 0..<2)
    func removingABondForgetsIt(store index: Int) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            try await store.save(F.legacyBond())
            try await store.save(F.secureConnectionsBond(F.publicPeer))
            #expect(try await store.removeBond(for: F.peer) == F.legacyBond())
            #expect(try await store.removeBond(for: F.peer) == nil)
            #expect(try await store.bond(for: F.peer) == nil)
            #expect(try await store.bond(resolving: privateAddress(of: F.irk)) != nil, "the other bond has the same IRK")
            #expect(try await store.allBonds().map(\.identityAddress) == [F.publicPeer])
        }
    }

    @Test(arguments: 0..<2)
    func keepOurLocalIdentity(store index: Int) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            #expect(try await store.localIdentity() == nil)
            try await store.setLocalIdentity(F.ourIdentity)
            #expect(try await store.localIdentity() == F.ourIdentity)
            try await store.setLocalIdentity(nil)
            #expect(try await store.localIdentity() == nil)
        }
    }

    @Test(arguments: 0..<2)
    func concurrentSavesFromManyTasksAllLand(store index: Int) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = Self.stores[index](directory)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask { try await store.save(F.secureConnectionsBond(peer(index))) }
                }
                try await group.waitForAll()
            }
            #expect(try await store.allBonds().map(\.identityAddress) == (0..<64).map(peer))
        }
    }
}

@Suite("The file bond store")
struct FileBondStoreTests {
    typealias F = BondFixtures

    @Test func bondsAndOurIdentitySurviveANewStoreOnTheSameFile() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let first = FileBondStore(fileURL: bondFile(in: directory))
            try await first.save(F.legacyBond())
            try await first.save(F.secureConnectionsBond(F.publicPeer).seen(at: privateAddress(of: F.irk)))
            try await first.setLocalIdentity(F.ourIdentity)

            let second = FileBondStore(fileURL: bondFile(in: directory), resolver: fakeResolver)
            #expect(try await second.allBonds() == first.allBonds())
            #expect(try await second.bond(for: F.peer) == F.legacyBond())
            #expect(try await second.bond(for: F.publicPeer)?.lastAddress == privateAddress(of: F.irk))
            #expect(try await second.localIdentity() == F.ourIdentity)
        }
    }

    @Test func concurrentSavesAllReachTheFile() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let store = FileBondStore(fileURL: bondFile(in: directory))
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask { try? await store.save(F.secureConnectionsBond(peer(index))) }
                }
            }
            let reread = FileBondStore(fileURL: bondFile(in: directory))
            #expect(try await reread.allBonds().count == 64)
        }
    }

    @Test func theFileIsReadableByItsOwnerOnlyInADirectoryOnlyItsOwnerCanEnter() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = bondFile(in: directory)
            try await FileBondStore(fileURL: file).save(F.legacyBond())
            #expect(try permissions(file) == 0o600)
            #expect(try permissions(file.deletingLastPathComponent()) == 0o700)
        }
    }

    @Test func aFileWithLooserPermissionsIsRefusedOrWithTheRepairPolicyReplacedByAnOwnerOnlyOne() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = bondFile(in: directory)
            try await FileBondStore(fileURL: file).save(F.legacyBond())
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            await #expect(throws: BondStoreError.insecurePermissions(path: file.path, mode: 0o644)) {
                try await FileBondStore(fileURL: file).removeBond(for: F.peer)
            }
            #expect(try permissions(file) == 0o644)
            try await FileBondStore(fileURL: file, permissions: .repair { _, _ in }).removeBond(for: F.peer)
            #expect(try permissions(file) == 0o600)
        }
    }

    @Test func replacingTheFileLeavesNoTemporaryFilesBehind() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = bondFile(in: directory)
            let store = FileBondStore(fileURL: file)
            for index in 0..<20 { try await store.save(F.secureConnectionsBond(peer(index))) }
            try await store.removeBond(for: peer(3))
            try await store.setLocalIdentity(F.ourIdentity)
            let entries = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            #expect(entries == ["bonds.json"])
        }
    }

    @Test func readingAMissingFileCreatesNothing() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = bondFile(in: directory)
            let store = FileBondStore(fileURL: file)
            #expect(try await store.allBonds().isEmpty)
            #expect(try await store.localIdentity() == nil)
            #expect(!FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path))
        }
    }

    static let corruptContents = [
        "{not json",
        "",
        #"{"bonds": []}"#,  // no schema version
        #"{"schemaVersion": 0, "bonds": []}"#,
        #"{"schemaVersion": 1}"#,  // no bonds
        #"{"schemaVersion": 1, "bonds": [{"identityAddress": "C0:11:22:33:44:55/random"}]}"#,
        // Two bonds for one peer.
        #"{"schemaVersion": 1, "bonds": [\#(bondJSON), \#(bondJSON)]}"#,
        // A Secure Connections key with a Rand.
        #"{"schemaVersion": 1, "bonds": [\#(bondJSON.replacingOccurrences(of: "0000000000000000", with: "0000000000000001"))]}"#,
    ]

    static let bondJSON = String(decoding: try! JSONEncoder().encode(BondFixtures.secureConnectionsBond()), as: UTF8.self)

    @Test(arguments: corruptContents)
    func aCorruptFileIsATypedErrorAndIsNeverOverwritten(contents: String) async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = directory.appendingPathComponent("bonds.json")
            try writeOwnerOnly(Data(contents.utf8), to: file)
            let store = FileBondStore(fileURL: file)
            await #expect { try await store.allBonds() } throws: { error in
                guard case BondStoreError.corruptFile(let path, _) = error else { return false }
                return path == file.path
            }
            await #expect(throws: BondStoreError.self) { try await store.bond(for: F.peer) }
            await #expect(throws: BondStoreError.self) { try await store.save(F.legacyBond()) }
            await #expect(throws: BondStoreError.self) { try await store.setLocalIdentity(F.ourIdentity) }
            #expect(try Data(contentsOf: file) == Data(contents.utf8))
        }
    }

    @Test func aCorruptKeyIsReportedWithoutItsText() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = directory.appendingPathComponent("bonds.json")
            let json = Self.bondJSON.replacingOccurrences(of: "a1a2a3a4a5a6a7a8a9aaabacadaeafb0", with: "a1a2a3a4a5a6a7a8a9aaabacadaeafzz")
            try writeOwnerOnly(Data(#"{"schemaVersion": 1, "bonds": [\#(json)]}"#.utf8), to: file)
            await #expect { try await FileBondStore(fileURL: file).allBonds() } throws: { error in
                guard case BondStoreError.corruptFile(_, let reason) = error else { return false }
                // The temporary directory's random name is no secret, and could spell one (a
                // UUID holding "5a17", the test EDIV in hex, once failed this test): left out.
                let text = "\(error)".replacingOccurrences(of: file.path, with: "<bond file>")
                return reason.contains("bonds.0.longTermKey.key") && F.leaks(text).isEmpty && !text.contains("a1a2")
            }
        }
    }

    @Test func aFileFromANewerSchemaIsRefusedAndKept() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = directory.appendingPathComponent("bonds.json")
            let contents = #"{"schemaVersion": 2, "bonds": [], "somethingNew": true}"#
            try writeOwnerOnly(Data(contents.utf8), to: file)
            let store = FileBondStore(fileURL: file)
            await #expect(throws: BondStoreError.unsupportedSchemaVersion(path: file.path, found: 2, supported: 1)) {
                try await store.allBonds()
            }
            await #expect(throws: BondStoreError.self) { try await store.save(F.legacyBond()) }
            #expect(try Data(contentsOf: file) == Data(contents.utf8))
        }
    }

    @Test func anUnreadableFileIsATypedError() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = directory.appendingPathComponent("bonds.json")
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)  // a directory in its place
            let store = FileBondStore(fileURL: file)
            await #expect { try await store.allBonds() } throws: { error in
                guard case BondStoreError.unreadableFile(let path, _) = error else { return false }
                return path == file.path
            }
        }
    }

    @Test func aFailedWriteIsATypedErrorAndChangesNothing() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let blocker = directory.appendingPathComponent("harald")
            try Data().write(to: blocker)  // a file where the directory should be
            let store = FileBondStore(fileURL: blocker.appendingPathComponent("bonds.json"))
            await #expect { try await store.save(F.legacyBond()) } throws: { error in
                guard case BondStoreError.writeFailed = error else { return false }
                return true
            }
            #expect(try await store.allBonds().isEmpty)
        }
    }

    @Test func theFileHoldsTheKeysAsHexForTheStoreToReadBack() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = bondFile(in: directory)
            let store = FileBondStore(fileURL: file)
            try await store.save(F.legacyBond())
            try await store.setLocalIdentity(F.ourIdentity)
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(text.contains(#""schemaVersion" : 1"#))
            for key in ["a1a2a3a4a5a6a7a8a9aaabacadaeafb0", "c1c2c3c4c5c6c7c8c9cacbcccdcecfd0", "f1f2f3f4f5f6f7f8f9fafbfcfdfefff0"] {
                #expect(text.contains(key))
            }
            #expect(!F.leaks(text).isEmpty, "the leak detector finds keys where they are")
        }
    }

    @Test func theStoreAndItsErrorsNeverPrintAKey() async throws {
        try await withTemporaryDirectory { (directory: URL) async throws in
            let file = bondFile(in: directory)
            let store = FileBondStore(fileURL: file, resolver: fakeResolver)
            try await store.save(F.legacyBond())
            try await store.setLocalIdentity(F.ourIdentity)
            let memory = InMemoryBondStore(bonds: [F.legacyBond()], localIdentity: F.ourIdentity)
            let loaded = try await FileBondStore(fileURL: file).allBonds()
            let identity = try await store.localIdentity()
            let errors: [BondStoreError] = [
                .corruptFile(path: file.path, reason: "x"), .unreadableFile(path: file.path, reason: "y"),
                .writeFailed(path: file.path, reason: "z"), .unsupportedSchemaVersion(path: file.path, found: 2, supported: 1),
            ]
            let values: [Any] = [store, memory, loaded, identity as Any, errors]
            for value in values {
                for text in BondFixtures.printed(value) {
                    #expect(BondFixtures.leaks(text).isEmpty, "\(text)")
                }
            }
            #expect("\(store)" == "FileBondStore(\(file.path))")
        }
    }

    #if !canImport(Darwin)
    @Test func livesUnderTheXDGConfigDirectory() throws {
        #expect(try FileBondStore.defaultFileURL(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/u"]).path == "/x/config/harald/bonds.json")
        #expect(try FileBondStore.defaultFileURL(environment: ["HOME": "/home/u"]).path == "/home/u/.config/harald/bonds.json")
        #expect(try FileBondStore.defaultFileURL(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]).path == "/home/u/.config/harald/bonds.json")
        #expect(throws: BondStoreError.noDefaultLocation) { try FileBondStore.defaultFileURL(environment: [:]) }
    }
    #else
    @Test func livesInApplicationSupport() throws {
        let url = try FileBondStore.defaultFileURL()
        #expect(url.pathComponents.suffix(3) == ["Application Support", "Harald", "bonds.json"])
    }
    #endif
}
