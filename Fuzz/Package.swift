// swift-tools-version: 6.1
// libFuzzer harnesses, one per reader of untrusted bytes. A package of its own so that ordinary
// builds never compile them. Build and run: Fuzz/run.sh [SECONDS] (see docs/hardening.md).
import PackageDescription

let harnesses = ["FuzzCSV", "FuzzGRT", "FuzzTS", "FuzzHAPT", "FuzzPipelineFile", "FuzzSpec",
                 "FuzzLine", "FuzzOSC", "FuzzUDP"]

let package = Package(
    name: "GestureKitFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "GestureKit", path: "../")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "GestureKit", package: "GestureKit")]),
    ] + harnesses.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", .product(name: "GestureKit", package: "GestureKit")],
            path: "Sources/\(name)",
            // No main: libFuzzer's runtime supplies it and calls LLVMFuzzerTestOneInput.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
