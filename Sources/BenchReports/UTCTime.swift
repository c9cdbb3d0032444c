import Glibc

/// A wall-clock instant broken down in UTC, for folder names and `start_utc`.
public struct UTCTime {
    let year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32

    public init(unixNanoseconds: UInt64) {
        var seconds = time_t(unixNanoseconds / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        (year, month, day) = (parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday)
        (hour, minute, second) = (parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    /// `yyyyMMdd-HHmmss`, as in run folder names.
    public var compact: String {
        "\(year)\(two(month))\(two(day))-\(two(hour))\(two(minute))\(two(second))"
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` (ISO 8601).
    var iso8601: String {
        "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
    }

    private func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
