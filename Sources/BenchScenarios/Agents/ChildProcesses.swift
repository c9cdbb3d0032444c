import BenchClients
import BenchCore
import BenchNet

/// `--client-procs`: a run's clients in child processes (agents, `bench clients`) so that no process runs out of
/// descriptors. The server's process keeps one descriptor per client, each child one per client of its share.
public enum ChildProcesses {
    /// Children a run of `configuration` needs: 0 when one process holds the server and every client (two descriptors
    /// a client), else as many as split the clients within the descriptor limit.
    ///
    /// A target's clients take one descriptor each (the children hold them all), as do the built-in chat relay's (a
    /// link, `--link`, takes none: it is inside each client's connection). With
    /// `serverElsewhere` (a chat relay in processes of its own), this process holds its clients' ends alone.
    public static func needed(for configuration: RunConfiguration, serverElsewhere: Bool = false) -> Int {
        let limit = DescriptorLimit.raiseToHardLimit()
        let room = limit - RunError.reservedDescriptors
        let needed = configuration.target == nil && !serverElsewhere
            ? 2 * configuration.clients : configuration.clients + 1 + 2 * configuration.clientThreads
        guard needed > room else { return 0 }
        let perChild = max(1, room - 1)
        return (configuration.clients + perChild - 1) / perChild
    }

    /// `configuration` as the server's side of a run whose clients come from children that give `token`.
    public static func serverSide(of configuration: RunConfiguration, token: String) -> RunConfiguration {
        var server = configuration
        server.localClientRange = 0..<0
        server.clientThreads = 1
        server.admitAgents(tokenHash: AgentToken.hash(token))
        return server
    }

    /// The clients of each of `count` children: consecutive shares differing by at most one, or with `perConnection`
    /// above 1 (`--streams-per-connection`) by at most one connection of that many, cut between connections.
    public static func shares(of clients: Int, among count: Int, perConnection: Int = 1) -> [Int] {
        idShares(of: clients, among: count, perConnection: perConnection).map(\.count)
    }

    /// The ids of each of `count` children (``shares(of:among:perConnection:)``), empty ones kept in their place.
    static func idShares(of clients: Int, among count: Int, perConnection: Int = 1) -> [Range<Int>] {
        let connections = (clients + perConnection - 1) / perConnection
        return (0..<connections).evenShares(count).map {
            min(clients, $0.lowerBound * perConnection)..<min(clients, $0.upperBound * perConnection)
        }
    }
}
