import BenchCore
import BenchNet
import Glibc

/// A ``ByteSink`` that writes to a file descriptor it owns, looping on short writes.
public final class FileSink: ByteSink {
    private let file: Descriptor
    private var descriptor: Int32 { file.rawValue }
    /// The file's path, for messages.
    public let path: String

    /// Creates (or truncates) the file at `path`.
    public init(creating path: String) throws(SystemError) {
        self.path = path
        file = Descriptor(owning: try Posix.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC), owner: "FileSink")
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try Posix.writeAll(descriptor, bytes, what: "write \(path)")
    }

    /// Forces the bytes to disk, so that the rename that publishes the file never exposes a hollow one.
    public func sync() throws {
        try Posix.sync(descriptor, path: path)
    }
}
