// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for every input the Hail server reads from the network. A package of its own so the
// main package's build stays free of sanitizers and unsafe flags; `make fuzz` and `make fuzz-short` build it
// with `swift build --package-path Fuzz --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address`.

// libFuzzer supplies `main`; each fuzzer only exports `LLVMFuzzerTestOneInput`.
let entryPoint: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "HailFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Hail", path: "..")],
    targets: [
        // The in-process server, the script format of FuzzServer's inputs, and the invariant check.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "HailCore", package: "Hail"),
                .product(name: "HailProtocol", package: "Hail"),
                .product(name: "HailServer", package: "Hail"),
                .product(name: "HailTesting", package: "Hail"),
            ]
        ),
        // Scripts of HTTP requests and WebSocket sessions through HailAPI and LiveStreams, in process.
        .executableTarget(
            name: "FuzzServer",
            dependencies: [
                "FuzzSupport", .product(name: "HailProtocol", package: "Hail"),
                .product(name: "HailServer", package: "Hail"),
            ],
            swiftSettings: entryPoint
        ),
        // Every request body and driver frame through WireDecoder, JSON and binary.
        .executableTarget(
            name: "FuzzBodies",
            dependencies: [
                "FuzzSupport", .product(name: "HailCore", package: "Hail"),
                .product(name: "HailProtocol", package: "Hail"),
            ],
            swiftSettings: entryPoint
        ),
        // Bearer tokens: the header, the token's three parts, and signed claims of any shape.
        .executableTarget(
            name: "FuzzTokens",
            dependencies: [
                "FuzzSupport", .product(name: "HailProtocol", package: "Hail"),
                .product(name: "HailServer", package: "Hail"),
            ],
            swiftSettings: entryPoint
        ),
        // Request targets: route matching, percent-escapes, query strings and the query types, headers, dates.
        .executableTarget(
            name: "FuzzRoutes",
            dependencies: ["FuzzSupport", .product(name: "HailProtocol", package: "Hail")],
            swiftSettings: entryPoint
        ),
    ],
    swiftLanguageModes: [.v6]
)
