import Glibc

/// A system call that failed, with the call's name and errno, worded for people.
///
/// `description` reads like `connect: Connection refused (errno: 111)`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call or operation that failed, e.g. `"bind"`.
    public let call: String
    /// The errno it set.
    public let errno: Int32

    /// Wraps a failed call's name and errno.
    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// With errno 0, what happened without a call that failed (a peer that closed): the words alone.
    public var description: String {
        errno == 0 ? call : "\(call): \(String(cString: strerror(errno))) (errno: \(errno))"
    }
}
