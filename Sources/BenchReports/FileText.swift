import BenchNet
import Glibc

/// Reading a whole text file, for commands that read a saved run folder.
public enum FileText {
    /// The file's bytes as UTF-8 text.
    public static func read(_ path: String) throws(SystemError) -> String {
        let fd = try Posix.call("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { Posix.close(fd) }
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let count = try Posix.call("read \(path)") { Glibc.read(fd, chunk.baseAddress, chunk.count) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
