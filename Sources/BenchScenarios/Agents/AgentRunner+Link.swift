import BenchCore
import BenchNet

extension AgentRunner {
    /// A child's clients behind the run's link (`--link` with `--client-procs`): the link, started in this process
    /// toward `server`, and each client's route through it, its group dealt as the measuring side deals it; with no
    /// link in the spec, none and the direct route. The spec came over a channel: its count of clients must hold this
    /// share's `ids`, and the descriptors the link's two ends take must fit.
    static func link(
        _ deal: ClientSpec.LinkDeal?, to server: SocketAddress, ids: Range<Int>
    ) throws(RunError) -> (LinkEmulator?, ClientRoutes) {
        guard let deal else { return (nil, ClientRoutes(server: server)) }
        guard RunConfiguration.Limits.clients.contains(deal.clients), ids.upperBound <= deal.clients else {
            throw .setupFailed("the run's link deals \(deal.clients) clients, and this share's ids reach \(ids.upperBound)")
        }
        let limit = DescriptorLimit.raiseToHardLimit()
        guard 3 * ids.count + 1 + RunError.reservedDescriptors <= limit else {
            throw .tooManyClients(requested: ids.count, descriptorLimit: limit, perClient: 3)
        }
        do {
            let link = try LinkEmulator(mix: deal.mix, upstream: server, seed: deal.seed)
            return (link, ClientRoutes(server: server, link: link, mix: deal.mix, clients: deal.clients, seed: deal.seed))
        } catch {
            throw .setupFailed("the link could not start: \(error)")
        }
    }
}
