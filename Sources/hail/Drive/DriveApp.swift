import Foundation
import HailAppStore
import HailClient
import HailCore
import HailDriver
import HailNetTransport
import HailProtocol
import HailTime

/// The terminal driver app: a `DriverModel` on the live transports, a location source (a replayed trace or
/// a car driving straight to each stop), the screen printed on every change, and either the keyboard or
/// the autopilot tapping.
@MainActor
final class DriveApp {
    private let options: DriveOptions
    private let connector: SocketConnector
    private let model: DriverModel
    private let follower: RouteFollower?
    private let replayer: TraceReplayer?
    private let timeline: Timeline
    private var lastScreen: DriverScreen?
    private var lastLine: String?
    private var completedTrips: Set<String> = []
    private var routedFor: String?
    private var stateSince: (key: String, at: Date)?
    private let quitSignal = AsyncStream.makeStream(of: Void.self)

    init(_ options: DriveOptions) async throws {
        self.options = options
        timeline = .system()
        connector = SocketConnector(transport: try NetSocketTransport())
        let client = ClientInfo(app: "hail-driver", version: "1.0.0", deviceModel: "terminal")
        let api = DriverHTTPAPI(
            transport: HTTPTransport(
                baseURL: options.server, token: options.token, client: client, exchange: NetHTTPExchange()))
        let channel = DriverLiveChannel(
            connector: connector, server: options.server, token: options.token, client: client)
        let source: any LocationSource
        if let path = options.trace {
            let points = try Self.loadTrace(path)
            let replayer = TraceReplayer(points: points, timeline: timeline)
            self.replayer = replayer
            follower = nil
            source = replayer
        } else {
            let follower = RouteFollower(start: options.start, speed: options.speedKMH / 3.6, timeline: timeline)
            self.follower = follower
            replayer = nil
            source = follower
        }
        let store: any OutboxStore =
            if let path = options.statePath { try await SQLiteOutboxStore(path: path) } else { MemoryOutboxStore() }
        model = DriverModel(api: api, channel: channel, location: source, store: store, timeline: timeline)
    }

    /// Reads a trace file by its extension.
    static func loadTrace(_ path: String) throws -> [LocationPoint] {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw UsageError("--trace: cannot read \(path)") }
        switch url.pathExtension.lowercased() {
        case "json":
            return try DriverTrace.parseBarefoot(data)
        case "csv":
            let trips = try DriverTrace.parseBusCSV(String(decoding: data, as: UTF8.self))
            // The bus trip with the most fixes, the first by id on a tie, so a replay is repeatable.
            let best = trips.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }
            return best?.value ?? []
        case "gpx":
            return try DriverTrace.parseGPX(String(decoding: data, as: UTF8.self))
        default:
            throw UsageError("--trace must be a .json (Barefoot), .csv (bus positions) or .gpx file, not '\(path)'")
        }
    }

    /// Runs until quit, or until `--trips` trips have completed.
    func run() async {
        let model = self.model
        let screens = Task { [weak self] in
            for await _ in model.changes() { self?.show(model) }
        }
        defer { screens.cancel() }
        await model.start()
        await model.goOnline()
        if !options.auto { readKeys() }
        let pilot = Task { [weak self] in await self?.drive() }
        for await _ in quitSignal.stream { break }
        pilot.cancel()
        await model.goOffline()
        await model.shutdown()
        await connector.shutdown()
    }

    private func show(_ model: DriverModel) {
        let screen = model.screen
        // Counted once the outbox is empty too, so quitting never leaves "ended" unconfirmed.
        if let trip = model.trip, trip.state == .completed, model.outbox.entries.isEmpty,
            !completedTrips.contains(trip.id)
        {
            completedTrips.insert(trip.id)
            if options.trips > 0, completedTrips.count >= options.trips { quitSignal.continuation.yield() }
        }
        guard screen != lastScreen else { return }
        lastScreen = screen
        if options.json {
            if let line = try? HailJSON.encodeString(screen) { say(line) }
            return
        }
        let line = humanLine(screen)
        guard line != lastLine else { return }
        lastLine = line
        say(line)
    }

    private func humanLine(_ screen: DriverScreen) -> String {
        var parts = [screen.headline.english, screen.online ? "online via \(screen.link.rawValue)" : "offline"]
        if let id = screen.offerTripID { parts.append("offer \(id), press a to accept, d to decline") }
        if let id = screen.tripID, let state = screen.tripState { parts.append("trip \(id) \(state.rawValue)") }
        if let fare = screen.fare {
            // Two minor digits, as in every currency the pricing table sells in.
            let sign = fare.amountMinor < 0 ? "-" : ""
            let minor = abs(fare.amountMinor)
            parts.append("fare \(sign)\(minor / 100).\(String(format: "%02d", minor % 100)) \(fare.currency)")
        }
        if let refusal = screen.rejection { parts.append("refused: \(refusal.reason)") }
        if screen.degraded { parts.append("degraded") }
        return parts.joined(separator: " | ")
    }

    /// Once a second: route the car to the next stop and, with --auto, tap what a driver would.
    private func drive() async {
        while !Task.isCancelled {
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(1)) } catch { return }
            await step()
        }
    }

    private func step() async {
        if options.auto, model.offer != nil, model.pendingAction == nil {
            await model.accept()
            return
        }
        guard let trip = model.trip, trip.state.isActive, model.pendingAction == nil else { return }
        let key = "\(trip.id)/\(trip.state.rawValue)"
        if stateSince?.key != key { stateSince = (key, timeline.now()) }
        let inState = timeline.now().timeIntervalSince(stateSince?.at ?? timeline.now())
        if let follower, routedFor != key {
            routedFor = key
            switch trip.state {
            case .driverAssigned: await follower.drive(through: [trip.pickup])
            case .onTrip: await follower.drive(through: [trip.dropoff])
            default: break
            }
            return
        }
        guard options.auto else { return }
        let arrived: Bool
        if let follower {
            arrived = await follower.isStopped
        } else if let replayer {
            // A replayed trace does not go where the rider is: stops are timed instead.
            arrived = await replayer.finished || inState >= (trip.state == .onTrip ? 30 : 10)
        } else {
            arrived = true
        }
        switch trip.state {
        case .driverAssigned where arrived: await model.tap(.arrived)
        case .driverArrived where inState >= 2: await model.tap(.started)
        case .onTrip where arrived: await model.tap(.ended)
        default: break
        }
    }

    private func readKeys() {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        Task { [weak self] in
            for await line in lines {
                guard let self else { return }
                await self.key(line.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
    }

    private func key(_ key: String) async {
        switch key {
        case "a", "accept": await model.accept()
        case "d", "decline": await model.decline()
        case "arrived": await model.tap(.arrived)
        case "start", "started": await model.tap(.started)
        case "end", "ended": await model.tap(.ended)
        case "cancel": await model.tap(.cancel)
        case "online": await model.goOnline()
        case "offline": await model.goOffline()
        case "ok": await model.dismissRejection()
        case "q", "quit": quitSignal.continuation.yield()
        case "": break
        default: say("keys: a, d, arrived, start, end, cancel, online, offline, ok, q")
        }
    }
}
