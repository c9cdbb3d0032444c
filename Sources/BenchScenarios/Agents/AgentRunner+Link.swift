import BenchClients
import BenchCore
import BenchNet

extension AgentRunner {
    /// `bench clients --link`: this agent's clients behind its own link. The server is told (link reports, before the
    /// clock is measured: before any client says hello; in pieces that fit the run's frames, each with the link's
    /// length), and the spec's link becomes it. Refused where the run has a link of its own, or measures a user's
    /// server (not built).
    static func bringOwn(
        _ link: LinkMix, to spec: inout ClientSpec, welcome: AgentWelcome, on controlSocket: Int32
    ) throws(RunError) {
        if let runs = spec.link { throw .setupFailed(AgentAdmission.runHasItsLink(runs.mix)) }
        guard spec.target == nil else {
            throw .setupFailed("an agent's own --link with a --target run or a chat is not built: give --link to bench serve")
        }
        let text = Array(link.text.utf8)  // a spec that reads is ASCII: its pieces cut no character
        guard text.count <= ClientReport.maximumTextSize else {
            throw .setupFailed("an agent's link is at most \(ClientReport.maximumTextSize) characters; use a preset")
        }
        let piece = WireFormat.serverFrameLimit(payload: Int(welcome.payload), takesAgents: true) - ClientReport.headSize
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: ClientReport.headSize + piece, alignment: 8)
        defer { frame.deallocate() }
        for start in stride(from: 0, to: text.count, by: piece) {
            let report = ClientReport(
                .link, client: welcome.firstClient, time: UInt64(text.count),
                text: String(decoding: text[start..<min(start + piece, text.count)], as: UTF8.self))
            let size = report.encode(into: frame)
            do {
                try Posix.writeAll(controlSocket, UnsafeRawBufferPointer(rebasing: frame[0..<size]), what: "send the agent's link")
            } catch {
                throw .setupFailed("the agent's link could not be told to the server: \(error)")
            }
        }
        spec.link = ClientSpec.LinkDeal(mix: link, seed: 0, clients: Int(welcome.totalClients))
    }

    /// A child's clients behind the run's link (`--link` with `--client-procs`): the link, started in this process
    /// toward `server`, and each client's route through it, its group dealt as the measuring side deals it; with no
    /// link in the spec, none and the direct route. The spec came over a channel: its count of clients must hold this
    /// share's `ids`.
    static func link(
        _ deal: ClientSpec.LinkDeal?, to server: SocketAddress, ids: Range<Int>
    ) throws(RunError) -> (LinkEmulator?, ClientRoutes) {
        guard let deal else { return (nil, ClientRoutes(server: server)) }
        guard RunConfiguration.Limits.clients.contains(deal.clients), ids.upperBound <= deal.clients else {
            throw .setupFailed("the run's link deals \(deal.clients) clients, and this share's ids reach \(ids.upperBound)")
        }
        let link = LinkEmulator(mix: deal.mix, seed: deal.seed)
        return (link, ClientRoutes(server: server, link: link, clients: deal.clients))
    }
}
