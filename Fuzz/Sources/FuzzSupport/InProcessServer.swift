import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization

/// The whole server without sockets: `HailAPI` for requests and `LiveStreams` for WebSockets, on memory
/// stores, a manual clock and the real HMAC.
///
/// One server serves many fuzz inputs (its services form reference cycles that are never freed, harmless
/// in a server that lives as long as its process but thousands of leaks a second here); each input gets
/// riders, drivers and trip ids of its own through `placeholders(forInput:)`, so inputs do not see each
/// other's trips.
public struct InProcessServer: Sendable {
    /// The server's date when the clock reads zero: 2026-12-02T12:40:00Z.
    public static let epoch = Date(timeIntervalSince1970: 1_796_220_000)
    /// The fixed secret the fuzzers sign tokens with (the real server's is random).
    public static let secret = [UInt8](repeating: 0x5A, count: 32)

    /// The clock every timer and stamp reads; scripts move it with `ADVANCE`.
    public let clock: ManualClock
    /// The services behind both front ends.
    public let services: ServerServices
    /// Every REST route.
    public let api: HailAPI
    /// The rider and driver WebSocket streams.
    public let streams: LiveStreams
    /// Mints the tokens scripts refer to by placeholder.
    public let tokens: TokenAuthority
    let tripCounter: TripCounter

    /// A server at the epoch with no trips and no drivers; trip ids are `trip-1`, `trip-2`, ...
    public static func start() async -> InProcessServer {
        let clock = ManualClock()
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: secret))
        let tripCounter = TripCounter()
        let services: ServerServices
        do {
            services = try await ServerServices.make(
                configuration: ServerConfiguration(), tokens: tokens,
                time: Timeline(clock: clock, origin: epoch), trips: MemoryTripStore(),
                history: MemoryLocationHistoryStore(), random: SplitMix64(seed: 9),
                newTripID: { tripCounter.next() })
        } catch {
            // Every piece here is in memory, one process's: `make` refuses only a mix of shared and local state.
            preconditionFailure("the fuzz server's in-memory services were refused: \(error)")
        }
        return InProcessServer(
            clock: clock, services: services, api: HailAPI(services: services),
            streams: LiveStreams(services: services), tokens: tokens, tripCounter: tripCounter)
    }

    /// What a script writes instead of tokens it cannot sign and trip ids it cannot know, for input
    /// number `input`, longest name first so `$rider2` is not read as `$rider` and a `2`.
    ///
    /// `$rider`, `$rider2`, `$driver`, `$driver2`, `$operator`: tokens valid for an hour from now;
    /// `$expired`: `$rider`'s account with a token that expired a second ago; `$trip1`, `$trip2`: the ids
    /// of the first two trips this input creates; `$share`, `$share2`: share tokens for them.
    public func placeholders(forInput input: Int) -> [(name: String, value: String)] {
        let now = Int64(services.time.now().timeIntervalSince1970)
        let base = tripCounter.count
        func token(_ role: Role, _ subject: String, trip: String? = nil, lifetime: Int64 = 3600) -> String {
            tokens.mint(AccessToken(role: role, sub: "\(subject).\(input)", exp: now + lifetime, iat: now, trip: trip))
        }
        let trip1 = "trip-\(base + 1)"
        let trip2 = "trip-\(base + 2)"
        return [
            ("$expired", token(.rider, "rider-1", lifetime: -1)),
            ("$operator", token(.operator, "operator-1")),
            ("$driver2", token(.driver, "driver-2")),
            ("$driver", token(.driver, "driver-1")),
            ("$rider2", token(.rider, "rider-2")),
            ("$share2", token(.share, "share-2", trip: trip2)),
            ("$share", token(.share, "share-1", trip: trip1)),
            ("$rider", token(.rider, "rider-1")),
            ("$trip1", trip1),
            ("$trip2", trip2),
        ]
    }
}

/// Hands out `trip-1`, `trip-2`, ... in order, so scripts can name the trips they create.
final class TripCounter: Sendable {
    private let state = Mutex(0)

    /// How many ids were handed out.
    var count: Int { state.withLock { $0 } }

    func next() -> String {
        state.withLock {
            $0 += 1
            return "trip-\($0)"
        }
    }
}

/// The server the next input runs on: the same one for `inputsPerServer` inputs, then a fresh one, so
/// the memory it accumulates stays bounded.
public final class ServerRotation: Sendable {
    private let state = Mutex<(server: InProcessServer?, inputs: Int)>((nil, 0))
    private let inputsPerServer: Int

    /// A rotation that replaces its server after `inputsPerServer` inputs.
    public init(inputsPerServer: Int) { self.inputsPerServer = inputsPerServer }

    /// The server for the next input and the input's number on it (from 1).
    public func next() async -> (InProcessServer, Int) {
        let current = state.withLock { state -> (InProcessServer, Int)? in
            guard let server = state.server, state.inputs < inputsPerServer else { return nil }
            state.inputs += 1
            return (server, state.inputs)
        }
        if let current { return current }
        let server = await InProcessServer.start()
        state.withLock { $0 = (server, 1) }
        return (server, 1)
    }
}
