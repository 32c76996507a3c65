// swift-tools-version:6.1
import PackageDescription

// Every target builds in the Swift 6 language mode (complete concurrency checking). CI adds
// `-Xswiftc -warnings-as-errors`; see `make build`.
let package = Package(
    name: "Hail",
    // iOS 17 is the app cores' floor: @Observable, and CLLocationUpdate.liveUpdates / CLBackgroundActivitySession,
    // the seeds' location API. Every module an app product links uses nothing newer without `if #available`
    // (scripts/availability.py, run by `make test`, checks it against the toolchain's own availability data).
    // macOS 15 is for the server side (Synchronization's Mutex); the server itself is Linux-only (README).
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "HailCore", targets: ["HailCore"]),
        .library(name: "HailProtocol", targets: ["HailProtocol"]),
        .library(name: "HailStorage", targets: ["HailStorage"]),
        .library(name: "HailNet", targets: ["HailNet"]),
        .library(name: "HailServer", targets: ["HailServer"]),
        .library(name: "HailClient", targets: ["HailClient"]),
        .library(name: "HailNetTransport", targets: ["HailNetTransport"]),
        .library(name: "HailRoads", targets: ["HailRoads"]),
        .library(name: "HailSim", targets: ["HailSim"]),
        .library(name: "HailAppStore", targets: ["HailAppStore"]),
        .library(name: "HailScale", targets: ["HailScale"]),
        .library(name: "HailAPNs", targets: ["HailAPNs"]),
        .library(name: "HailAppSeams", targets: ["HailAppSeams"]),
        .library(name: "HailAppDoubles", targets: ["HailAppDoubles"]),
        .library(name: "HailRider", targets: ["HailRider"]),
        .library(name: "HailDriver", targets: ["HailDriver"]),
        .library(name: "HailTesting", targets: ["HailTesting"]),
        .library(name: "HailTestSupport", targets: ["HailTestSupport"]),
        .library(name: "HailProcess", targets: ["HailProcess"]),
        .library(name: "HailThreads", targets: ["HailThreads"]),
        .library(name: "HailTime", targets: ["HailTime"]),
        .library(name: "HailBench", targets: ["HailBench"]),
        .library(name: "HailFleet", targets: ["HailFleet"]),
        .executable(name: "hail", targets: ["hail"]),
    ],
    targets: [
        // Domain types and pure logic: no I/O, no clock reads, randomness injected.
        .target(name: "HailCore"),
        // The wire: REST bodies, WebSocket frames, errors, routes, JSON and binary codecs.
        .target(name: "HailProtocol", dependencies: ["HailCore"]),
        // C libraries, each behind one system-library target and imported by exactly one Swift module.
        // CSQLite is for Linux only: Apple platforms import the SDK's own `SQLite3` module, so an iOS build never
        // picks up a Homebrew (macOS) libsqlite3 through pkg-config.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libwebsockets-evlib-ev", "libev-dev"]), .brew(["libwebsockets"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CRedis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev", "libssl-dev"]), .brew(["curl", "openssl@3"])]
        ),
        // Push to Apple: an APNs PushSender over HTTP/2 (libcurl with nghttp2), ES256 provider tokens (libcrypto).
        .target(name: "HailAPNs", dependencies: ["HailServer", "HailProtocol", "HailCore", "CCurl"]),
        // The server's store, geo index and bus protocols on PostgreSQL (libpq) and Redis (hiredis).
        .target(
            name: "HailScale",
            dependencies: [
                "HailServer", "HailCore", "HailProtocol", "HailThreads", "HailNet", "CPostgres", "CRedis",
            ]
        ),
        // Road networks: the OSM PBF reader, a generated city, routing and ETA, snapping, map matching.
        .target(name: "HailRoads", dependencies: ["HailCore", "CZlib"]),
        // Threads of Hail's own: the batch queue every one of them drains, a serial executor on a thread, a pool.
        .target(name: "HailThreads"),
        // The runtimes' one time type: dates and sleeping from one injected Clock.
        .target(name: "HailTime"),
        // The one SQLite wrapper: server stores, the driver's outbox, the rider's cursor.
        .target(
            name: "HailStorage",
            dependencies: [.target(name: "CSQLite", condition: .when(platforms: [.linux, .android])), "HailThreads"]
        ),
        // The one libwebsockets wrapper: HTTP and WebSocket server, WebSocket client, HMAC.
        .target(name: "HailNet", dependencies: ["CLibWebSockets", "HailThreads", "HailTime"]),
        // The backend as a library: routes, streams, trip authority, dispatch, ingest, stores, metrics.
        .target(
            name: "HailServer",
            dependencies: [
                "HailCore", "HailProtocol", "HailStorage", "HailNet", "HailRoads", "HailThreads", "HailTime",
            ]
        ),
        // The rider app's runtime: an @Observable model a SwiftUI screen binds to, on injected seams.
        // What the app cores need from the outside world, as protocols (isowords' ApiClient): the server's calls and
        // streams, durable stores, the location hardware, and the one error contract, CallError.
        .target(name: "HailAppSeams", dependencies: ["HailCore", "HailProtocol"]),
        // Doubles of the seams, shipped: canned ones for SwiftUI previews, scriptable ones for tests.
        .target(name: "HailAppDoubles", dependencies: ["HailAppSeams", "HailCore", "HailProtocol", "HailThreads"]),
        .target(name: "HailRider", dependencies: ["HailCore", "HailProtocol", "HailAppSeams", "HailTime"]),
        // The driver app's runtime: location pipeline, durable outbox, restore after kill, on injected seams.
        .target(name: "HailDriver", dependencies: ["HailCore", "HailProtocol", "HailAppSeams", "HailTime"]),
        // The app cores' durable state on HailStorage: the rider's cursor and the driver's outbox.
        .target(name: "HailAppStore", dependencies: ["HailAppSeams", "HailCore", "HailStorage"]),
        // Live transports for the app cores: REST over URLSession, and WebSockets through the `SocketTransport`
        // seam, URLSessionWebSocketTask by default, so an app links no C library on any platform.
        .target(
            name: "HailClient", dependencies: ["HailProtocol", "HailCore", "HailAppSeams", "HailThreads", "HailTime"]),
        // HailNet's transports for HailClient's seams, outside the app products: WebSockets on libwebsockets, and
        // HTTP/1.1 on HailNet's client sockets (`NetHTTPExchange`), which the `hail` command, the simulated city and
        // the tests plug in on Linux, where URLSession's requests keep a core busy while they wait.
        .target(name: "HailNetTransport", dependencies: ["HailClient", "HailAppSeams", "HailNet", "HailThreads"]),
        // A simulated city: drivers and riders on real roads over real sockets, with network faults.
        .target(
            name: "HailSim",
            dependencies: [
                "HailCore", "HailProtocol", "HailRoads", "HailServer", "HailClient", "HailRider", "HailDriver",
                "HailNet", "HailNetTransport",
            ]
        ),
        // Child processes with a clean signal state that die with their parent. CSpawn is the fork-to-exec
        // step, which must be C (async-signal-safe calls only, and prctl is variadic); only HailProcess imports it.
        .target(name: "CSpawn"),
        .target(name: "HailProcess", dependencies: ["CSpawn"]),
        // Test support shipped as a target: the process-free half (manual clock, waits, fixtures from ../shared/data)
        // in HailTestSupport, which the app-core tests use alone; HailTesting re-exports it and adds `hail` children
        // and raw sockets.
        .target(name: "HailTestSupport", dependencies: ["HailCore"]),
        .target(name: "HailTesting", dependencies: ["HailCore", "HailProtocol", "HailProcess", "HailTestSupport"]),
        // Every benchmark `hail bench` runs, in process, with typed results: load generators, server children,
        // backend counters, and the road and client-core measurements.
        .target(
            name: "HailBench",
            dependencies: [
                "HailCore", "HailProtocol", "HailServer", "HailNet", "HailScale", "HailRoads", "HailDriver",
                "HailProcess", "HailTime",
            ]
        ),
        // The fault suite's native load client (`hail fleet`): many real rider and driver app cores in one process,
        // on HailNetTransport, riding ride after ride against a URL and logging what each was told (JSON lines).
        .target(
            name: "HailFleet",
            dependencies: [
                "HailCore", "HailProtocol", "HailAppSeams", "HailClient", "HailNetTransport", "HailRider", "HailDriver",
                "HailAppStore", "HailRoads", "HailTime",
            ]
        ),
        // The thin command-line front end: options parsed and handed to the libraries above.
        .executableTarget(
            name: "hail",
            dependencies: [
                "HailCore", "HailProtocol", "HailServer", "HailNet", "HailStorage", "HailClient", "HailNetTransport",
                "HailRider", "HailDriver", "HailScale", "HailRoads", "HailSim", "HailAppStore", "HailAPNs",
                "HailProcess",
                "HailBench", "HailFleet",
            ]
        ),
        .testTarget(name: "HailCoreTests", dependencies: ["HailCore", "HailTesting"]),
        .testTarget(name: "HailStorageTests", dependencies: ["HailStorage", "HailProcess"]),
        .testTarget(
            name: "HailScaleTests",
            dependencies: [
                "HailScale", "HailServer", "HailCore", "HailProtocol", "HailNet", "HailStorage", "HailTesting",
            ]
        ),
        .testTarget(
            name: "HailSimTests",
            dependencies: [
                "HailSim", "HailRoads", "HailServer", "HailCore", "HailProtocol", "HailClient", "HailNet",
                "HailTesting", "HailProcess",
            ]
        ),
        .testTarget(name: "HailRoadsTests", dependencies: ["HailRoads", "HailCore", "HailTesting"]),
        .testTarget(name: "HailNetTests", dependencies: ["HailNet", "HailTesting"]),
        .testTarget(name: "HailProcessTests", dependencies: ["HailProcess"]),
        .testTarget(name: "HailThreadsTests", dependencies: ["HailThreads"]),
        // The DocC articles' code that needs no SwiftUI, compiled as written.
        .testTarget(
            name: "HailArticleTests",
            dependencies: ["HailRider", "HailDriver", "HailClient", "HailAppStore", "HailProtocol"]
        ),
        // The URLSession transport's decisions and runtime, socket-free: a double shaped like URLSessionWebSocketTask.
        .testTarget(
            name: "HailClientTests", dependencies: ["HailClient", "HailAppSeams", "HailTestSupport", "HailTime"]
        ),
        .testTarget(
            name: "HailServerTests",
            dependencies: [
                "HailServer", "HailCore", "HailProtocol", "HailStorage", "HailNet", "HailRoads", "HailTesting",
                "HailScale", "HailAPNs", "HailProcess", "HailSim",
            ]
        ),
        // The app cores' unit tests: app modules and doubles only (no HailNet, no HailServer), so they run on macOS
        // too (.github/workflows/apple.yml; scripts/app_closure.py checks their dependencies).
        .testTarget(
            name: "HailRiderTests",
            dependencies: ["HailRider", "HailAppDoubles", "HailCore", "HailProtocol", "HailTestSupport"]
        ),
        .testTarget(
            name: "HailAppStoreTests",
            dependencies: ["HailAppStore", "HailRider", "HailDriver", "HailCore", "HailStorage"]
        ),
        .testTarget(
            name: "HailDriverTests",
            dependencies: ["HailDriver", "HailAppDoubles", "HailCore", "HailProtocol", "HailTime", "HailTestSupport"]
        ),
        // The app cores on the live transports against a real server on loopback, and `hail ride` / `hail drive`
        // killed mid-save: Linux, through HailNetTransport.
        .testTarget(
            name: "HailAppLiveTests",
            dependencies: [
                "HailRider", "HailDriver", "HailAppDoubles", "HailAppStore", "HailClient", "HailNetTransport",
                "HailServer", "HailStorage", "HailNet", "HailCore", "HailProtocol", "HailTime", "HailTesting",
                "HailProcess",
            ]
        ),
        // Whole-system tests: `hail server` children (SIGKILLed in the crash loops, reloaded by SIGHUP) under real
        // rider and driver apps on the live transports, and the `hail ride` and `hail drive` commands against each
        // other.
        .testTarget(
            name: "HailSystemTests",
            dependencies: [
                "HailAppStore", "HailAppDoubles", "HailRider", "HailDriver", "HailClient", "HailServer", "HailStorage",
                "HailCore", "HailProtocol", "HailNet", "HailNetTransport", "HailTesting", "HailProcess", "HailTime",
                "HailFleet",
            ]
        ),
        .testTarget(name: "HailProtocolTests", dependencies: ["HailProtocol", "HailCore", "HailTesting"]),
        .testTarget(
            name: "HailBenchTests",
            dependencies: ["HailBench", "HailCore", "HailRoads", "HailDriver", "HailProcess", "HailTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `HAIL_APP_CORES_ONLY=1` keeps the app products and their unit tests alone: how the macOS workflow runs
// `swift test` without building the Linux-only server side (libwebsockets, libpq, ...). The build fails if a kept
// target depends on one left out, which is the check that the app-core tests need no server.
if Context.environment["HAIL_APP_CORES_ONLY"] != nil {
    let appCores: Set<String> = [
        "HailCore", "HailProtocol", "HailThreads", "HailTime", "CSQLite", "HailStorage", "HailAppSeams",
        "HailAppDoubles", "HailRider", "HailDriver", "HailAppStore", "HailClient", "HailTestSupport",
        "HailRiderTests", "HailDriverTests", "HailAppStoreTests", "HailClientTests", "HailArticleTests",
    ]
    package.targets.removeAll { !appCores.contains($0.name) }
    package.products.removeAll { !appCores.contains($0.name) }
}
