import BenchCore

extension CSVWriter {
    /// A monotonic timestamp as nanoseconds after `origin` (the run's start), negative before it; empty when it
    /// is 0 (never).
    mutating func time(_ timestamp: UInt64, since origin: UInt64) {
        if timestamp == 0 {
            emptyField()
        } else {
            field(Int(Int64(bitPattern: timestamp &- origin)))
        }
    }

    /// A value in nanoseconds, or an empty field for nil.
    mutating func nanoseconds(_ value: UInt64?) {
        if let value { field(value) } else { emptyField() }
    }

    /// A value in nanoseconds shown in microseconds with 3 decimals, or an empty field for nil.
    mutating func microseconds(_ value: UInt64?) {
        if let value { field(microsecondsFromNanoseconds: value) } else { emptyField() }
    }

    /// A fractional value in nanoseconds shown in microseconds with 3 decimals, or an empty field for nil.
    mutating func microseconds(_ value: Double?) {
        if let value { field(value / 1_000, fractionDigits: 3) } else { emptyField() }
    }

    /// 1 or 0.
    mutating func flag(_ value: Bool) {
        field(value ? 1 : 0)
    }
}
