import Glibc

/// Standard output and error, written unbuffered with write(2) so that lines and the progress line appear at
/// once and in order.
enum Console {
    static func out(_ text: String) { write(text, to: STDOUT_FILENO) }

    static func error(_ text: String) { write(text, to: STDERR_FILENO) }

    /// True when standard error is a terminal: only then is there a progress line.
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
