import BenchNet

extension RunConfiguration {
    /// The addresses the run's clients leave from toward `server`, client `i` from the `i % count`th, whatever their
    /// role: `--source-addresses`, or on loopback as many of its addresses as the ephemeral ports need
    /// (``SourceAddresses/automatic(clients:server:ports:)``); empty: the kernel's choice.
    public func sources(toward server: SocketAddress) -> [SocketAddress] {
        guard sourceAddresses.isEmpty else { return sourceAddresses.compactMap { SocketAddress(host: $0, port: 0) } }
        return SourceAddresses.automatic(clients: clients, server: server)
    }
}
