extension Range where Bound == Int {
    /// This range cut into `parts` consecutive ranges whose sizes differ by at most one (at least one part): how a
    /// run's clients are shared among threads, processes and server shards.
    public func evenShares(_ parts: Int) -> [Range<Int>] {
        let parts = Swift.max(1, parts)
        return (0..<parts).map { part in
            lowerBound + count * part / parts..<lowerBound + count * (part + 1) / parts
        }
    }
}
