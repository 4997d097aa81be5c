import Foundation
import HaraldFuzzTargets
import Testing

/// The committed fuzz corpus (Fuzz/corpus/TARGET/, kept by `scripts/fuzz --merge`) replayed
/// through its targets: every input once found, crashing ones included after their fix, must run
/// to the end. A target traps on a broken invariant, which ends this test process: the failure
/// names the input only in the trap's message, so replay it with
/// `FUZZ_TARGET=NAME .build/debug/FuzzDecode --replay FILE`.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus")

    static func inputs(of target: String) throws -> [URL] {
        let directory = corpus.appendingPathComponent(target)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func targetNamesAreUniqueAndUsableAsDirectoryNames() {
        let names = FuzzTargets.all.map(\.name)
        #expect(Set(names).count == names.count)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.")
        for name in names {
            #expect(!name.isEmpty && name.allSatisfy(allowed.contains), "\(name)")
        }
    }

    @Test func everyCorpusDirectoryBelongsToATarget() throws {
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        for directory in directories {
            #expect(FuzzTargets.named(directory) != nil, "Fuzz/corpus/\(directory) names no fuzz target")
        }
    }

    @Test(arguments: FuzzTargets.all.map(\.name))
    func everyCorpusInputRunsThroughItsTarget(_ name: String) async throws {
        let target = try #require(FuzzTargets.named(name))
        // Still a bound against hangs, but one a sanitized run on a loaded machine stays under.
        FuzzHangBound.set(seconds: 300)
        let inputs = try Self.inputs(of: name).map { Array(try Data(contentsOf: $0)) }
        #expect(!inputs.isEmpty, "Fuzz/corpus/\(name) is empty")
        await Self.onOwnThread {
            for input in inputs { target.run(input) }
        }
    }

    /// Runs `body` on a thread of its own: the engine targets block their calling thread until
    /// the input's tasks finish on the concurrency pool, which must not be the pool's own thread
    /// (on a 2-core machine, two such tests would leave the pool no thread to run the tasks on).
    static func onOwnThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                continuation.resume()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
