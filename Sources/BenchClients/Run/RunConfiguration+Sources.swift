import BenchNet

extension RunConfiguration {
    /// The addresses the run's clients leave from toward `server`, client `i` from the `i % count`th, whatever their
    /// role: `--source-addresses`, or on loopback as many of its addresses as the ephemeral ports need
    /// (``SourceAddresses/automatic(clients:server:ports:)``); empty: the kernel's choice.
    public func sources(toward server: SocketAddress) -> [SocketAddress] {
        guard sourceAddresses.isEmpty else { return sourceAddresses.compactMap { SocketAddress(host: $0, port: 0) } }
        return SourceAddresses.automatic(clients: clients, server: server)
    }

    /// Why the run's `--source-addresses` cannot reach `server`: some are of the other address family (IPv4 toward an
    /// IPv6 server, or the reverse); nil: they can. Checked before anything starts, so that no client's connect fails
    /// for it and reads as the server's refusal.
    public func sourcesRefusal(toward server: SocketAddress) -> String? {
        let others = sourceAddresses.filter { SocketAddress(host: $0, port: 0)?.family != server.family }
        guard !others.isEmpty else { return nil }
        return "--source-addresses \(others.joined(separator: ",")) cannot reach \(server.host): another address family"
    }
}
