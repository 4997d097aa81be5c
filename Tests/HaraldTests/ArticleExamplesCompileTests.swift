import Foundation
import Testing

/// The Swift blocks of the DocC articles that teach the API compile against the built modules, so
/// the articles cannot drift from the code. Each block is a whole file (its own imports and
/// declarations); a block that starts with `// Package.swift` is a manifest and is not checked here.
@Suite("DocC article examples compile")
struct ArticleExamplesCompileTests {
    static let articles = ["GettingStarted", "iOSAndMacOS", "Linux", "TestingWithTheSimulator", "WritingADeviceKit", "ConcurrencyModel"]

    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Harald/Harald.docc")

    /// The ```swift blocks of an article, in order.
    static func swiftBlocks(of article: String) throws -> [String] {
        let text = try String(contentsOf: catalog.appendingPathComponent("\(article).md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// Manifests are not Swift the compiler checks alone. A block that needs Apple's frameworks
    /// (it imports SwiftUI, CoreBluetooth or UIKit, or its code names HaraldCoreBluetooth's system
    /// backends, which exist only where CoreBluetooth does) is checked here on Apple platforms
    /// only; on Linux `scripts/check-corebluetooth` compiles it against Tools/AppleSurface, by the
    /// same rule (scripts/article_blocks.py).
    static func isCheckable(_ block: String) -> Bool {
        if block.hasPrefix("// Package.swift") { return false }
        #if canImport(CoreBluetooth) && canImport(SwiftUI) && canImport(UIKit)
        return true
        #else
        return !needsAppleFrameworks(block)
        #endif
    }

    /// The rule of scripts/article_blocks.py: an `import` of SwiftUI, CoreBluetooth or UIKit, or
    /// `SystemCoreBluetooth` in the code (comments aside).
    static func needsAppleFrameworks(_ block: String) -> Bool {
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        let imports = lines.compactMap { line -> Substring? in
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard words.count >= 2, words[0] == "import" else { return nil }
            let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            return path.split(separator: ".").first
        }
        if imports.contains("SwiftUI") || imports.contains("CoreBluetooth") || imports.contains("UIKit") { return true }
        return lines.contains { $0.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0].contains("SystemCoreBluetooth") }
    }

    /// A block with an `@main` type is a file of an app, not a script: it is compiled as one.
    static func isAppFile(_ block: String) -> Bool {
        block.split(separator: "\n").contains { $0.hasPrefix("@main") }
    }

    @Test func blocksThatNeedAppleFrameworksAreToldApartByTheirImportsAndCode() {
        #expect(Self.needsAppleFrameworks("import Harald\nimport SwiftUI // the view"))
        #expect(Self.needsAppleFrameworks("@preconcurrency import CoreBluetooth"))
        #expect(Self.needsAppleFrameworks("import struct SwiftUI.Text"))
        #expect(Self.needsAppleFrameworks("import HaraldCoreBluetooth\nlet backend = SystemCoreBluetoothBackend()"))
        #expect(!Self.needsAppleFrameworks("import Harald\n// on Apple platforms: SystemCoreBluetoothBackend()\nlet x = 1"))
        #expect(!Self.needsAppleFrameworks("import Harald\nimport SwiftUIStyle"))
    }

    /// README's "Be the device" block has no imports of its own (the section names its modules):
    /// it is checked with them, inside an async throwing function.
    @Test func readmeBeTheDeviceExampleCompiles() throws {
        let readme = Self.catalog.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## Be the device"))
        let open = try #require(text[section.upperBound...].range(of: "```swift\n"))
        let close = try #require(text[open.upperBound...].range(of: "```"))
        let body = text[open.upperBound..<close.lowerBound].split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        let source = """
            import Harald
            import HaraldHCIBackend
            func example() async throws {
            \(body)
            }

            """
        let result = try CharacteristicAccessCompileTests().typeCheck(source)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(arguments: articles)
    func everySwiftBlockOfTheArticleCompiles(article: String) throws {
        let blocks = try Self.swiftBlocks(of: article)
        #expect(!blocks.isEmpty, "\(article).md has no Swift block")
        for (index, block) in blocks.enumerated() where Self.isCheckable(block) {
            let result = try CharacteristicAccessCompileTests().typeCheck(block + "\n", parseAsLibrary: Self.isAppFile(block))
            #expect(result.status == 0, "\(article).md, Swift block \(index + 1):\n\(result.output)")
        }
    }
}
