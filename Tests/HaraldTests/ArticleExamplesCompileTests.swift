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

    /// Manifests are not Swift the compiler checks alone; the system CoreBluetooth backend exists
    /// only where Apple's CoreBluetooth does (HaraldCoreBluetooth builds on Linux without it).
    static func isCheckable(_ block: String) -> Bool {
        if block.hasPrefix("// Package.swift") { return false }
        #if canImport(CoreBluetooth)
        return true
        #else
        return !block.contains("SystemCoreBluetooth")
        #endif
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
            let result = try CharacteristicAccessCompileTests().typeCheck(block + "\n")
            #expect(result.status == 0, "\(article).md, Swift block \(index + 1):\n\(result.output)")
        }
    }
}
