import BenchCore
import BenchNet
import Glibc

/// A ``ByteSink`` that writes to a file descriptor it owns, looping on short writes.
public final class FileSink: ByteSink {
    private let descriptor: Int32
    /// The file's path, for messages.
    public let path: String

    /// Creates (or truncates) the file at `path`.
    public init(creating path: String) throws(SystemError) {
        self.path = path
        descriptor = try Posix.call("open \(path)") { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    }

    deinit {
        Posix.close(descriptor)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = try Posix.call("write \(path)") {
                Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            offset += written
        }
    }

    /// Forces the bytes to disk, so that the rename that publishes the file never exposes a hollow one.
    public func sync() throws {
        _ = try Posix.call("fsync \(path)") { fsync(descriptor) }
    }
}
