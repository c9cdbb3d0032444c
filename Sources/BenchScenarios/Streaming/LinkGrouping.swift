import BenchCore

/// Which link group each client of a run is in, when agents bring links of their own (`bench clients --link`): one
/// group per link as an agent gave it, and `none` for the clients of agents without one. Made as sending begins (every
/// agent reported its link before its clock was measured, so before its clients said hello) and handed to the run's
/// writer with its stream (``SettledQueue/announce(_:)``).
public struct LinkGrouping: Sendable, Equatable {
    /// The groups' names, in the order the agents joined.
    public let names: [String]
    /// Each client's group, by its id.
    public let groupOfClient: [UInt8]

    /// The grouping of `clients` clients among `agents`; nil when no agent brought a link.
    static func of(_ agents: [AgentRecord], clients: Int) -> LinkGrouping? {
        guard agents.contains(where: { $0.link != nil }) else { return nil }
        var names: [String] = []
        var groupOfClient = [UInt8](repeating: 0, count: clients)
        func group(_ name: String) -> UInt8 {
            if let index = names.firstIndex(of: name) { return UInt8(index) }
            names.append(name)
            return UInt8(names.count - 1)
        }
        let held = agents.reduce(0) { $0 + $1.clients }
        let none = held < clients || agents.contains { $0.link == nil } ? group("none") : 0
        for client in groupOfClient.indices { groupOfClient[client] = none }
        for agent in agents {
            let own = group(agent.link ?? "none")
            for client in agent.firstClient..<min(clients, agent.firstClient + agent.clients) { groupOfClient[client] = own }
        }
        return LinkGrouping(names: names, groupOfClient: groupOfClient)
    }
}
