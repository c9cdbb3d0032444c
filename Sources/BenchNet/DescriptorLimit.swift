import Glibc

/// The process's limit on open file descriptors (RLIMIT_NOFILE), which bounds how many clients one process
/// can simulate: each client costs two descriptors in this process (its socket and the server's).
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit (no privilege needed) and returns the limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The limit in force now (the soft limit).
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 0 }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Descriptors open in this process now, counted in /proc/self/fd.
    public static func openCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(directory) }
        var count = -1  // the directory's own descriptor
        while let entry = readdir(directory) {
            let name = entry.pointee.d_name.0
            if name != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }

    private static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
