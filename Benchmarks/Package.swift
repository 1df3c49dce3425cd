// swift-tools-version: 6.1
// Benchmarks live in their own package so that ordinary builds and tests never compile them.
// Run: cd Benchmarks && swift package benchmark [--target DTW]
import PackageDescription

let suites = ["DTW", "KNN", "LSTM", "Formats", "Streaming", "Stages", "MiniRocket"]

let package = Package(
    name: "GestureKitBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "GestureKit", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: suites.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "GestureKit", package: "GestureKit"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/\(name)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    }
)
