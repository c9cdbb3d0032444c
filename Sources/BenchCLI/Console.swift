import BenchNet
import Glibc

/// Standard output and error, written unbuffered with write(2) so that lines and the progress line appear at
/// once and in order.
enum Console {
    static func out(_ text: String) { write(text, to: STDOUT_FILENO) }

    static func error(_ text: String) { write(text, to: STDERR_FILENO) }

    /// True when standard error is a terminal: only then is there a progress line.
    static var errorIsTerminal: Bool { Posix.isTerminal(STDERR_FILENO) }

    /// Writes all of `text`; a closed or full output (a pipe whose reader left) loses the text, nothing else.
    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in try? Posix.writeAll(fd, UnsafeRawBufferPointer(bytes)) }
    }
}
