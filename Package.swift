// swift-tools-version:6.0
import PackageDescription

// Layout, by the direction of dependencies (no third-party packages: the toolchain is enough):
//   CBenchLinux    C declarations Glibc does not export (epoll, eventfd, timerfd, affinity, prctl)
//   BenchCore      no I/O: wire format, frame decoder, units, schedule, histogram, statistics, CSV
//   BenchNet       every system call: sockets, epoll event loop, connections, clock, CPU placement
//   BenchProtocols what a user's server speaks: one state machine per protocol, bytes in and actions out, no sockets
//   BenchClients   the one client engine every role's clients run on (threads, loop, connect table, sessions, report
//                  channel), and the run's settings and control it reads
//   BenchScenarios what orchestrates a run: the built-in server and chat relay, shards, agents, the link, the ledger
//                  and collector
//   BenchReports   run folder, CSV reports, terminal table, JSON
//   BenchCLI       argument parsing and the commands; `bench` is its thin executable
// The release build's per-message path: generic code specialized across modules (the connection's reads and writes
// are generic over the transport, and their callers live in other modules), and no run-time exclusivity checks (each
// is a call and a thread-local lookup per access). Debug builds, and so `swift test`, keep every check. What another
// module calls of a module's generic code is `public`, not `package`: cross-module optimization serializes public
// declarations only (with the client engine's `package`, its loops ran unspecialized in every caller, and its io_uring
// path allocated per message: Benchmarks/hot-path-allocations.sh).
let releaseSpeed: [SwiftSetting] = [
    .unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
    name: "bench",
    products: [
        .executable(name: "bench", targets: ["bench"])
    ],
    targets: [
        .target(name: "CBenchLinux"),
        .target(name: "BenchCore", swiftSettings: releaseSpeed),
        .target(name: "BenchNet", dependencies: ["CBenchLinux", "BenchCore"], swiftSettings: releaseSpeed),
        .target(name: "BenchProtocols", dependencies: ["BenchCore"], swiftSettings: releaseSpeed),
        .target(
            name: "BenchClients", dependencies: ["BenchCore", "BenchNet", "BenchProtocols"], swiftSettings: releaseSpeed),
        .target(
            name: "BenchScenarios", dependencies: ["BenchCore", "BenchNet", "BenchProtocols", "BenchClients"],
            swiftSettings: releaseSpeed),
        .target(
            name: "BenchReports", dependencies: ["BenchCore", "BenchNet", "BenchProtocols", "BenchClients", "BenchScenarios"], swiftSettings: releaseSpeed),
        .target(
            name: "BenchCLI", dependencies: ["BenchCore", "BenchNet", "BenchProtocols", "BenchClients", "BenchScenarios", "BenchReports"],
            swiftSettings: releaseSpeed),
        .executableTarget(name: "bench", dependencies: ["BenchCLI"], swiftSettings: releaseSpeed),
        .executableTarget(
            name: "bench-micro",
            dependencies: ["BenchCore", "BenchNet", "BenchClients", "BenchScenarios", "BenchReports"],
            path: "Benchmarks/Micro",
            swiftSettings: releaseSpeed
        ),
        // Each test target names every module it imports: an incremental build then rebuilds it when one changes (a
        // test module that reached BenchScenarios only through BenchReports kept a stale layout of RunRecording).
        .testTarget(name: "BenchCoreTests", dependencies: ["BenchCore"]),
        .testTarget(name: "BenchNetTests", dependencies: ["BenchNet", "BenchCore"]),
        .testTarget(name: "BenchProtocolsTests", dependencies: ["BenchProtocols", "BenchCore"]),
        .testTarget(
            name: "BenchScenariosTests", dependencies: ["BenchScenarios", "BenchClients", "BenchReports", "BenchProtocols", "BenchNet", "BenchCore"]),
        .testTarget(name: "BenchReportsTests", dependencies: ["BenchReports", "BenchScenarios", "BenchClients", "BenchProtocols", "BenchNet", "BenchCore"]),
        .testTarget(
            name: "BenchCLITests", dependencies: ["BenchCLI", "bench", "BenchReports", "BenchScenarios", "BenchClients", "BenchNet", "BenchCore"]),
    ]
)
