import Foundation
import HailRider
import Testing

/// The DocC articles' code that needs no SwiftUI is this target's, so the build compiles it: each block in an
/// article marked `<!-- compiled: File.swift -->` must appear verbatim in that file here.
@Suite("The DocC articles' code compiles")
struct ArticleCodeTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static let articles = [
        "Sources/HailRider/HailRider.docc/BindingRiderModelToSwiftUI.md",
        "Sources/HailDriver/HailDriver.docc/BindingDriverModelToTheDriversScreen.md",
    ]

    /// The marked blocks of `article`: (file named by the marker, the block's code).
    private static func markedBlocks(_ article: String) throws -> [(file: String, code: String)] {
        let text = try String(contentsOf: root.appendingPathComponent(article), encoding: .utf8)
        var blocks: [(String, String)] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        while let line = lines.next() {
            guard line.hasPrefix("<!-- compiled: "), line.hasSuffix(" -->") else { continue }
            let file = String(line.dropFirst("<!-- compiled: ".count).dropLast(" -->".count))
            guard lines.next() == "```swift" else { continue }
            var code: [Substring] = []
            while let next = lines.next(), next != "```" { code.append(next) }
            blocks.append((file, code.joined(separator: "\n")))
        }
        return blocks
    }

    @Test(arguments: articles)
    func everyMarkedBlockIsCompiledHere(_ article: String) throws {
        let blocks = try Self.markedBlocks(article)
        #expect(!blocks.isEmpty)
        for block in blocks {
            let source = try String(
                contentsOf: Self.root.appendingPathComponent("Tests/HailArticleTests/\(block.file)"), encoding: .utf8)
            #expect(source.contains(block.code), "\(article): a block is not in \(block.file) as written")
        }
    }

    @Test @MainActor func theRidersBootstrapOpensItsStoreAndMakesAnIdleModel() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try await makeRiderModel(
            server: URL(string: "http://127.0.0.1:9")!, token: "t",
            database: directory.appendingPathComponent("cursor.sqlite").path)
        #expect(model.screen.phase == .idle)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("cursor.sqlite").path))
    }
}
