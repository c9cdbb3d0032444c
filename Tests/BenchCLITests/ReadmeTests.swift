import Foundation
import Testing

/// The README is what a newcomer reads in one sitting (issue 47): the two commands first, well under 300 lines, and
/// every guide it points to is there.
@Suite struct ReadmeTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func read(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theReadmeOpensWithTheTwoCommandsAndStaysShort() throws {
        let lines = try read("README.md").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count < 300, "\(lines.count) lines")
        let opening = lines.prefix(5).joined(separator: "\n")
        #expect(opening.contains("swift run -c release bench fanout --clients 50"))
        #expect(opening.contains("swift test"))
    }

    @Test func everyGuideTheReadmeNamesIsThereWithItsTitle() throws {
        let readme = try read("README.md")
        let links = readme.matches(of: #/\]\((docs/[A-Za-z-]+\.md)\)/#).map { String($0.1) }
        #expect(links.count >= 6, "\(links)")
        for link in links {
            let guide = try read(link)
            #expect(guide.hasPrefix("# "), "\(link) begins with its title")
        }
    }
}
