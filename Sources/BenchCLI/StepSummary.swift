import BenchReports
import Glibc

/// GitHub Actions' job summary: Markdown appended to the file `GITHUB_STEP_SUMMARY` names, when it is set.
enum StepSummary {
    static func append(_ markdown: String) {
        guard let path = getenv("GITHUB_STEP_SUMMARY").map({ String(cString: $0) }), !path.isEmpty else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            Console.error("warning: cannot append to GITHUB_STEP_SUMMARY (\(path))\n")
            return
        }
        defer { close(fd) }
        var text = markdown + "\n"
        _ = text.withUTF8 { write(fd, $0.baseAddress, $0.count) }
    }
}
