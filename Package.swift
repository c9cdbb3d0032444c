// swift-tools-version:6.0
import PackageDescription

// Layout, by the direction of dependencies (no third-party packages: the toolchain is enough):
//   CBenchLinux    C declarations Glibc does not export (epoll, eventfd, timerfd, affinity, prctl)
//   BenchCore      no I/O: wire format, frame decoder, units, schedule, histogram, statistics, CSV
//   BenchNet       every system call: sockets, epoll event loop, connections, clock, CPU placement
//   BenchScenarios broadcast server, echo clients, collector: fanout and roundtrip runs
//   BenchReports   run folder, CSV reports, terminal table, JSON
//   BenchCLI       argument parsing and the commands; `bench` is its thin executable
let package = Package(
    name: "bench",
    products: [
        .executable(name: "bench", targets: ["bench"])
    ],
    targets: [
        .target(name: "CBenchLinux"),
        .target(name: "BenchCore"),
        .target(name: "BenchNet", dependencies: ["CBenchLinux", "BenchCore"]),
        .target(name: "BenchScenarios", dependencies: ["BenchCore", "BenchNet"]),
        .target(name: "BenchReports", dependencies: ["BenchCore", "BenchNet", "BenchScenarios"]),
        .target(name: "BenchCLI", dependencies: ["BenchCore", "BenchNet", "BenchScenarios", "BenchReports"]),
        .executableTarget(name: "bench", dependencies: ["BenchCLI"]),
        .executableTarget(
            name: "bench-micro",
            dependencies: ["BenchCore", "BenchNet", "BenchScenarios", "BenchReports"],
            path: "Benchmarks/Micro"
        ),
        .testTarget(name: "BenchCoreTests", dependencies: ["BenchCore"]),
        .testTarget(name: "BenchNetTests", dependencies: ["BenchNet"]),
        .testTarget(name: "BenchScenariosTests", dependencies: ["BenchScenarios", "BenchReports"]),
        .testTarget(name: "BenchReportsTests", dependencies: ["BenchReports"]),
        .testTarget(name: "BenchCLITests", dependencies: ["BenchCLI", "bench"]),
    ]
)
