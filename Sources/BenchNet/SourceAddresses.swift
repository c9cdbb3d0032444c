import Glibc

/// The local addresses clients connect from, when one would not do: each connection to one server needs an ephemeral
/// port of its own per source address, and Linux has `net.ipv4.ip_local_port_range` of them (28,232 by default).
public enum SourceAddresses {
    /// How many ephemeral ports the kernel hands out (`/proc/sys/net/ipv4/ip_local_port_range`); 28,232, Linux's
    /// default range, when it cannot be read.
    public static var ephemeralPorts: Int {
        let bytes = (try? Posix.readFile("/proc/sys/net/ipv4/ip_local_port_range", limit: 256)) ?? []
        let numbers = String(decoding: bytes, as: UTF8.self).split { $0 == " " || $0 == "\t" || $0 == "\n" }.compactMap { Int($0) }
        guard numbers.count == 2, numbers[1] >= numbers[0] else { return 28_232 }
        return numbers[1] - numbers[0] + 1
    }

    /// Why `addresses` (as given: `--source-addresses`, or a run's spec) cannot be the clients' sources: more than 250,
    /// one twice, or one not a numeric IPv4 or IPv6 address; nil: they can.
    public static func refusal(of addresses: [String]) -> String? {
        guard addresses.count <= 250, Set(addresses).count == addresses.count else { return "at most 250 addresses, each once" }
        guard let bad = addresses.first(where: { SocketAddress(host: $0, port: 0) == nil }) else { return nil }
        return "'\(bad)' is not a numeric IPv4 or IPv6 address"
    }

    /// For `clients` connections to `server`: none when the ports suffice or the server is not on loopback (another
    /// host's addresses are the user's to give); otherwise as many loopback addresses as needed, 127.0.0.1 first
    /// (all of 127.0.0.0/8 is the machine's own).
    public static func automatic(clients: Int, server: SocketAddress, ports: Int = ephemeralPorts) -> [SocketAddress] {
        guard clients > ports, ports > 0, server.family == AF_INET, server.host.hasPrefix("127.") else { return [] }
        let count = min((clients + ports - 1) / ports, 250)
        return (1...count).compactMap { SocketAddress(host: "127.0.0.\($0)", port: 0) }
    }
}
