import Foundation

/// Runs the built `harald` command-line tool, found next to the test bundle.
public enum HaraldExecutable {
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Where the `harald` binary is: the build folder holding the test bundle (for example
    /// `.build/debug/harald` beside `.build/debug/HaraldPackageTests.xctest`).
    public static let url: URL? = {
        var folders: [URL] = []
        for bundle in [Bundle.main] + Bundle.allBundles {
            var url = bundle.bundleURL
            folders.append(url)
            folders.append(url.deletingLastPathComponent())
            // Inside an `.xctest` bundle (a directory on Apple platforms): use the folder holding it.
            while url.pathComponents.count > 1, url.pathExtension != "xctest" { url = url.deletingLastPathComponent() }
            if url.pathExtension == "xctest" { folders.append(url.deletingLastPathComponent()) }
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        folders.append(executable)
        for folder in folders {
            let candidate = folder.appendingPathComponent("harald")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        return nil
    }()

    /// Runs `harald` with `arguments` and collects its exit status and output.
    public static func run(_ arguments: [String]) throws -> Outcome {
        guard let url else { throw NotFound() }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    public struct NotFound: Error, CustomStringConvertible {
        public init() {}
        public var description: String {
            "the harald executable was not found next to the test bundle; build it with `swift build` first"
        }
    }
}
