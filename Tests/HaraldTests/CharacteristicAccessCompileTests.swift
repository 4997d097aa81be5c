import Foundation
import HaraldCodec
import Testing

/// The operations a characteristic permits are part of its type: misuse must not compile.
/// Each case type-checks a small program against the built Harald module with `swiftc`; the
/// control cases show that the same program compiles when the access allows the operation, so
/// a failure really comes from the access check.
@Suite("Characteristic access is checked at compile time")
struct CharacteristicAccessCompileTests {
    static let prelude = """
        import Harald
        struct Level: ByteCodable, Sendable {
            var raw: UInt8
            init(raw: UInt8) { self.raw = raw }
            init(from reader: inout ByteReader) throws(ByteDecodingError) { raw = try reader.read(field: "raw") }
            func encode(to writer: inout ByteWriter) throws(ByteEncodingError) { writer.write(raw) }
        }
        func use(_ connection: PeripheralConnection) async throws {

        """

    static let misuses: [(access: String, call: String, missing: String)] = [
        ("Write", "_ = try await connection.read(c)", "ReadAccess"),
        ("Notify", "try await connection.write(Level(raw: 1), to: c)", "WriteAccess"),
        ("Read", "_ = try await connection.subscribe(c)", "SubscribeAccess"),
        ("ReadWrite", "try await connection.writeWithoutResponse(Level(raw: 1), to: c)", "WriteWithoutResponseAccess"),
        ("Indicate", "_ = try await connection.read(c)", "ReadAccess"),
    ]

    static let allowed: [(access: String, call: String)] = [
        ("Read", "_ = try await connection.read(c)"),
        ("Write", "try await connection.write(Level(raw: 1), to: c)"),
        ("Notify", "_ = try await connection.subscribe(c)"),
        ("Indicate", "_ = try await connection.subscribe(c)"),
        ("WriteBoth", "try await connection.writeWithoutResponse(Level(raw: 1), to: c)"),
    ]

    static func program(access: String, call: String) -> String {
        prelude + "    let c = Characteristic<Level, \(access)>(\"2A39\", service: \"180D\")\n    \(call)\n}\n"
    }

    @Test(arguments: misuses.indices)
    func operationNotPermittedByTheAccessDoesNotCompile(index: Int) throws {
        let misuse = Self.misuses[index]
        let result = try typeCheck(Self.program(access: misuse.access, call: misuse.call))
        #expect(result.status != 0, "\(misuse.call) on \(misuse.access) compiled")
        #expect(result.output.contains("'\(misuse.access)' conform to '\(misuse.missing)'"), "\(result.output)")
    }

    @Test(arguments: allowed.indices)
    func operationPermittedByTheAccessCompiles(index: Int) throws {
        let use = Self.allowed[index]
        let result = try typeCheck(Self.program(access: use.access, call: use.call))
        #expect(result.status == 0, "\(result.output)")
    }

    /// Runs `swiftc -typecheck` on `source` against the modules this test binary was built with;
    /// `parseAsLibrary` for a file with an `@main` type (an app's), not top-level code.
    func typeCheck(_ source: String, parseAsLibrary: Bool = false) throws -> (status: Int32, output: String) {
        let modules = try #require(Self.modulesDirectory(), "built Harald modules not found")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("snippet.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path,
                "-module-cache-path", Self.moduleCache.path, file.path,
            ] + (parseAsLibrary ? ["-parse-as-library"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// One module cache for every case, so system modules are built once per run.
    static let moduleCache = FileManager.default.temporaryDirectory.appendingPathComponent("harald-compile-tests-cache")

    /// `Modules/` next to the test binary (SwiftPM's layout), else under the package's `.build`.
    static func modulesDirectory() -> URL? {
        var candidates: [URL] = []
        #if os(Linux)
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("Modules"))
        }
        #endif
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/Modules"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Harald.swiftmodule").path) }
    }
}

@Suite("Standard characteristics read like the API sketch")
struct StandardCharacteristicSpellingTests {
    @Test func implicitMemberSyntaxTypeChecks() throws {
        let source = """
            import Harald
            func use(_ connection: PeripheralConnection) async throws {
                let battery: BatteryLevel = try await connection.read(.batteryLevel)
                _ = battery
                for try await measurement in try await connection.subscribe(.heartRateMeasurement) { _ = measurement.heartRate }
                try await connection.write(HeartRateControlPoint.resetEnergyExpended, to: .heartRateControlPoint)
            }
            """
        let result = try CharacteristicAccessCompileTests().typeCheck(source)
        #expect(result.status == 0, "\(result.output)")
    }

    /// The program of the two tests below: one read of a standard characteristic.
    static func reading(_ characteristic: String) -> String {
        """
        import Harald
        func use(_ connection: PeripheralConnection) async throws {
            _ = try await connection.read(.\(characteristic))
        }
        """
    }

    /// Fails for the reason it is about, not for any compiler error: the diagnostic must name the
    /// write-only access that lacks `ReadAccess`, on the line of the read.
    @Test func readingTheWriteOnlyControlPointDoesNotCompile() throws {
        let result = try CharacteristicAccessCompileTests().typeCheck(Self.reading("heartRateControlPoint"))
        #expect(result.status != 0)
        #expect(result.output.contains("snippet.swift:3:"), "\(result.output)")
        #expect(result.output.contains("requires that 'Write' conform to 'ReadAccess'"), "\(result.output)")
    }

    /// The control: the same program with a readable characteristic compiles.
    @Test func readingTheReadableBodySensorLocationCompiles() throws {
        let result = try CharacteristicAccessCompileTests().typeCheck(Self.reading("bodySensorLocation"))
        #expect(result.status == 0, "\(result.output)")
    }
}

@Suite("README examples compile")
struct ReadmeQuickStartTypeCheckTests {
    /// The first Swift block after `heading` in README.md, its imports kept at the top and the
    /// rest wrapped in an async throwing function.
    func program(after heading: String, parameters: String) throws -> String {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: heading))
        let afterHeading = text[section.upperBound...]
        let open = try #require(afterHeading.range(of: "```swift\n"))
        let close = try #require(afterHeading[open.upperBound...].range(of: "```"))
        let lines = afterHeading[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        let imports = lines.filter { $0.hasPrefix("import ") }.joined(separator: "\n")
        let body = lines.filter { !$0.hasPrefix("import ") }.map { "    " + $0 }.joined(separator: "\n")
        return "import Harald\n\(imports)\nfunc example(\(parameters)) async throws {\n\(body)\n}\n"
    }

    @Test func typedReadAndSubscriptionExampleCompiles() throws {
        let source = try program(after: "## Quick start: a typed read and a subscription", parameters: "backend: any CentralBackend")
        let result = try CharacteristicAccessCompileTests().typeCheck(source)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func simulatorExampleCompiles() throws {
        let source = try program(after: "## Testing without hardware: the simulator", parameters: "")
        let result = try CharacteristicAccessCompileTests().typeCheck(source)
        #expect(result.status == 0, "\(result.output)")
    }
}
