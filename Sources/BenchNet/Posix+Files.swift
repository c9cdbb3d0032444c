import CBenchLinux
import Glibc

/// Files and folders, through the same wall as the sockets: EINTR retried, short writes completed, failures
/// thrown as ``SystemError`` with the call and the path.
extension Posix {
    /// Opens `path`; `mode` applies when the file is created (and the umask with it).
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> Int32 {
        try call("open \(path)") { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Writes all of `bytes`, looping on short writes (a regular file, a pipe, a terminal).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, what: String = "write") throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try call(what) { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }

    /// Reads the whole file at `path`, if it holds at most `limit` bytes (a suite file, a summary: small files;
    /// `/dev/zero` is not one).
    ///
    /// - Throws: ``SystemError`` with `EFBIG` for a larger file.
    public static func readFile(_ path: String, limit: Int = 16 << 20) throws(SystemError) -> [UInt8] {
        struct TooLarge: Error {}
        var bytes: [UInt8] = []
        do {
            try forEachChunk(ofFile: path) { chunk in
                guard bytes.count + chunk.count <= limit else { throw TooLarge() }
                bytes.append(contentsOf: chunk)
            }
        } catch let error as SystemError {
            throw error
        } catch {
            throw SystemError("read \(path) (more than \(limit >> 20) MiB)", errno: EFBIG)
        }
        return bytes
    }

    /// Reads the file at `path` in chunks of 64 KiB, handing each to `body`: memory stays at one chunk whatever
    /// the file's size.
    public static func forEachChunk(
        ofFile path: String, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let fd = try open(path, flags: O_RDONLY)
        defer { close(fd) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let count = try call("read \(path)") { Glibc.read(fd, chunk.baseAddress, chunk.count) }
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
    }

    /// Forces a file's bytes to disk.
    public static func sync(_ fd: Int32, path: String) throws(SystemError) {
        _ = try call("fsync \(path)") { fsync(fd) }
    }

    /// Renames `from` to `to`, replacing `to` if it exists.
    public static func rename(_ from: String, to: String) throws(SystemError) {
        _ = try call("rename \(from) to \(to)") { Glibc.rename(from, to) }
    }

    /// Renames `from` to `to` unless `to` exists. Returns false when it does.
    public static func renameUnlessTaken(_ from: String, to: String) throws(SystemError) -> Bool {
        let status = CBench_renameNoReplace(from, to)
        if status == 0 { return true }
        if status == EEXIST || status == ENOTEMPTY { return false }
        throw SystemError("rename \(from) to \(to)", errno: status)
    }

    /// Removes a file; one that is already gone is not an error.
    public static func unlink(_ path: String) throws(SystemError) {
        if Glibc.unlink(path) == 0 || Glibc.errno == ENOENT { return }
        throw SystemError("unlink \(path)", errno: Glibc.errno)
    }

    /// Creates a folder with `mode` less the umask. Returns false when something already has that name.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t = 0o777) throws(SystemError) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        if Glibc.errno == EEXIST { return false }
        throw SystemError("mkdir \(path)", errno: Glibc.errno)
    }

    /// Removes an empty folder.
    public static func removeDirectory(_ path: String) throws(SystemError) {
        _ = try call("rmdir \(path)") { rmdir(path) }
    }

    /// The names in a folder, without `.` and `..`.
    public static func directoryEntries(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError("opendir \(path)", errno: Glibc.errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// What the symbolic link at `path` points to (`socket:[12345]` for a descriptor under `/proc/PID/fd`); nil when
    /// it is no link or cannot be read.
    public static func readLink(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: pointer.count) { readlink(path, $0, pointer.count) }
        }
        return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
    }

    /// True when something exists at `path`.
    public static func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// True when `path` is a regular file this process may read.
    public static func isReadableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, R_OK) == 0
    }

    /// The size in bytes of the regular file at `path`; nil when there is none.
    public static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// True when `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }
}
