import Foundation
import Testing

@testable import BenchReports

@Suite struct RunFolderTests {
    private let parent = NSTemporaryDirectory() + "bench-folder-\(UUID().uuidString)/nested/results"

    @Test func aFolderIsHiddenUntilPublishedThenNamedAfterItsStartInUTC() throws {
        let folder = try RunFolder.prepare(in: parent)
        try AtomicFile.writeText(folder.path(of: "run.csv"), "key,value\r\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent).allSatisfy { $0.hasPrefix(".") })
        let path = try folder.publish(scenario: "fanout", startUnixNanoseconds: 1_795_000_000_000_000_000)
        #expect(path == parent + "/fanout-20261118-110640")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["run.csv"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["fanout-20261118-110640"])
    }

    @Test func foldersAndFilesHonourTheUmaskSoOthersAndCIUploadersCanReadThem() throws {
        // The process's umask, as the kernel reports it (reading it with umask(2) would change it for a moment).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let umask = try #require(Int(line.split(separator: "\t").last!, radix: 8))
        let folder = try RunFolder.prepare(in: parent)
        try AtomicFile.writeText(folder.path(of: "run.csv"), "key,value\r\n")
        let path = try folder.publish(scenario: "fanout", startUnixNanoseconds: 1_795_000_000_000_000_000)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o777 & ~umask, "not 0700 whatever the umask")
        let file = try FileManager.default.attributesOfItem(atPath: path + "/run.csv")
        #expect((file[.posixPermissions] as? Int) == 0o644 & ~umask)
    }

    @Test func aNameAlreadyTakenGetsANumber() throws {
        let start: UInt64 = 1_795_000_000_000_000_000
        let paths = try (0..<3).map { _ in
            try RunFolder.prepare(in: parent).publish(scenario: "roundtrip", startUnixNanoseconds: start)
        }
        #expect(paths.map { URL(fileURLWithPath: $0).lastPathComponent } == [
            "roundtrip-20261118-110640", "roundtrip-20261118-110640-2", "roundtrip-20261118-110640-3",
        ])
    }

    @Test func aDiscardedFolderLeavesNothing() throws {
        let folder = try RunFolder.prepare(in: parent)
        try AtomicFile.writeText(folder.path(of: "samples.csv"), "x")
        folder.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty)
    }

    @Test func anAtomicFileReplacesTheOldOneAndLeavesNoTemporaryFile() throws {
        let folder = try RunFolder.prepare(in: parent)
        let path = folder.path(of: "summary.csv")
        try AtomicFile.writeText(path, "old")
        try AtomicFile.writeText(path, "new")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.temporaryPath) == ["summary.csv"])
    }
}
