// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "GestureKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "GestureKit", targets: ["GestureKit"]),
        .executable(name: "gesture", targets: ["gesture"]),
        // The web studio, its own product so that `gesture` (and the README's demo) builds without
        // a web server: `swift build -c release --product gesture-studio`, then `gesture studio`.
        .executable(name: "gesture-studio", targets: ["gesture-studio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        // `swift package generate-documentation --target GestureKit` (.ci/docs); a plugin only, never linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The studio's web server; only GestureStudio and gesture-studio link it, never GestureKit or gesture.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.6.0"),
        // `gesture studio --tls`: HummingbirdTLS serves over NIOSSL. The self-signed certificate made at
        // start is signed by the openssl command (StudioCertificate): swift-crypto and
        // swift-certificates for one signature per start compiled a second BoringSSL.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev", "liblapacke-dev"])]
        ),
        .target(name: "CGestureKernels"),
        // OpenBLAS by the target platform, not the build host: Apple platforms use Accelerate.
        .target(
            name: "GestureKit",
            dependencies: [.target(name: "COpenBLAS", condition: .when(platforms: [.linux, .android, .windows, .openbsd])), "CGestureKernels", .product(name: "Numerics", package: "swift-numerics")]
        ),
        // The web studio: the only target with a server dependency, so GestureKit stays embeddable.
        .target(
            name: "GestureStudio",
            dependencies: [
                "GestureKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.embedInCode("Page/studio.html")]
        ),
        // What both executables share: the error path and the helpers their commands call.
        .target(
            name: "GestureCLISupport",
            dependencies: ["GestureKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // No server here: `gesture studio` runs gesture-studio from beside this binary.
        .executableTarget(
            name: "gesture",
            dependencies: ["GestureKit", "GestureCLISupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "gesture-studio",
            dependencies: ["GestureKit", "GestureStudio", "GestureCLISupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The core loop of a gesture app (Examples/GestureApp); .ci/example runs it.
        .executableTarget(name: "GestureAppExample", dependencies: ["GestureKit"], path: "Examples/GestureApp"),
        .testTarget(name: "GestureKitTests", dependencies: ["GestureKit"]),
        .testTarget(name: "GestureCLITests", dependencies: ["GestureKit"]),
        // A real TLS client for the studio's --tls test (NIOSSL trusting the generated certificate).
        .testTarget(name: "GestureStudioTests", dependencies: [
            "GestureStudio", "GestureKit",
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
    ]
)
