import BenchNet
import Glibc

/// GitHub Actions' job summary: Markdown appended to the file `GITHUB_STEP_SUMMARY` names, when it is set.
enum StepSummary {
    static func append(_ markdown: String) {
        guard let path = Posix.environment("GITHUB_STEP_SUMMARY"), !path.isEmpty else { return }
        do {
            let file = Descriptor(owning: try Posix.open(path, flags: O_WRONLY | O_APPEND | O_CREAT), owner: "StepSummary")
            let fd = file.rawValue  // closed when `file` goes, after the write
            try Array((markdown + "\n").utf8).withUnsafeBytes { try Posix.writeAll(fd, $0) }
        } catch {
            Console.error("warning: cannot append to GITHUB_STEP_SUMMARY (\(path)): \(error)\n")
        }
    }
}
