import Foundation
import HailAppStore
import HailClient
import HailCore
import HailNetTransport
import HailProtocol
import HailRider

/// The terminal rider app: a `RiderModel` on the live transports, its screen printed on each change,
/// `c` + Enter to cancel.
@MainActor
final class RideSession {
    struct Options {
        var server: URL
        var token: String
        var pickup: Coordinate
        var dropoff: Coordinate
        var product: ProductID
        var json: Bool
        var statePath: String
    }

    private let options: Options
    private let model: RiderModel

    private init(options: Options, model: RiderModel) {
        self.options = options
        self.model = model
    }

    /// Runs the ride to its end and returns the exit status.
    static func run(_ options: Options) async -> Int32 {
        let connector: SocketConnector
        let cursors: SQLiteCursorStore
        do {
            connector = SocketConnector(transport: try NetSocketTransport())
            cursors = try await SQLiteCursorStore.open(path: options.statePath)
        } catch {
            return fail("cannot start: \(error)", status: 1)
        }
        let client = ClientInfo(app: "hail-ride", version: "1.0.0")
        let transport = HTTPTransport(
            baseURL: options.server, token: options.token, client: client, exchange: NetHTTPExchange())
        let model = RiderModel(
            api: RiderHTTPAPI(transport: transport),
            channel: RiderLiveChannel(
                baseURL: options.server, token: options.token, connector: connector, client: client),
            cursors: cursors)
        let session = RideSession(options: options, model: model)
        let status = await session.ride()
        model.stop()
        await cursors.close()
        await connector.shutdown()
        return status
    }

    private func ride() async -> Int32 {
        model.screenVisibilityChanged(true)
        await model.launch()
        if model.trip == nil || model.trip?.state.isActive == false {
            if model.isOffline { return Self.fail("cannot reach \(options.server.absoluteString)", status: 1) }
            await model.loadEstimates(pickup: options.pickup, dropoff: options.dropoff)
            if let estimate = model.estimates.first(where: { $0.productID == options.product }) {
                note(
                    "\(options.product): about \(RideLine.format(estimate.fare)), a driver in about "
                        + "\(EtaSmoother.minutes(forSeconds: estimate.etaSeconds)) min")
            } else if !model.estimates.isEmpty {
                let offered = model.estimates.map(\.productID.rawValue).joined(separator: ", ")
                return Self.fail("the server does not offer '\(options.product)'; it offers \(offered)", status: 1)
            }
            await model.requestRide(pickup: options.pickup, dropoff: options.dropoff, product: options.product)
            if model.trip == nil {
                return Self.fail(
                    model.screen.problem.map(RideLine.words) ?? "the ride could not be requested", status: 1)
            }
        } else {
            note("resuming your active trip \(model.trip?.id ?? "")")
        }
        startKeyboard()
        let ticker = Task { @MainActor [model] in
            // Ages grow with no event; a tick lets the pin and the banner change on time.
            while !Task.isCancelled {
                try? await ContinuousClock().sleep(for: .seconds(1))
                model.refresh()
            }
        }
        defer { ticker.cancel() }
        var shown: RiderScreen?
        for await screen in model.changes() where screen != shown {
            shown = screen
            print(screen)
            switch screen.phase {
            case .completed: return 0
            case .cancelled: return Self.fail("the trip was cancelled", status: 2)
            case .noDriversFound: return Self.fail("no driver was found", status: 3)
            default: continue
            }
        }
        return 1
    }

    private func startKeyboard() {
        let model = self.model
        let thread = Thread {
            // readLine blocks, so it gets its own thread rather than one of the cooperative pool's.
            while let line = readLine() {
                guard line.trimmingCharacters(in: .whitespaces).lowercased() == "c" else { continue }
                Task { @MainActor in
                    guard model.screen.canCancel else {
                        RideSession.note("cancel is not offered now")
                        return
                    }
                    await model.cancel()
                }
            }
        }
        thread.start()
    }

    private func print(_ screen: RiderScreen) {
        if options.json {
            say(RideLine(screen: screen, cursor: model.cursor).json)
        } else {
            say(RideLine(screen: screen).text)
        }
    }

    private func note(_ text: String) { Self.note(text) }

    static func note(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data("hail ride: \(text)\n".utf8))
    }

    static func fail(_ message: String, status: Int32) -> Int32 {
        note(message)
        return status
    }
}
