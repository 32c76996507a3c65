import Foundation
import HailAppStore
import HailCore
import HailDriver
import HailProcess
import HailProtocol
import HailServer
import HailTesting
import Testing

@Suite("hail drive against the real server", .serialized)
struct DriveCommandTests {
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)

    @Test func autoModeDrivesATripToTheFareAndPrintsEveryScreen() async throws {
        guard FileManager.default.isExecutableFile(atPath: HailCommandProcess.executable.path) else { return }
        let loopback = try await DriverLoopback.start(time: .system(), origin: Date())
        defer { Task { await loopback.stop() } }
        let driver = try HailCommandProcess(
            [
                "--server", loopback.baseURL.absoluteString, "--token", loopback.token(.driver, "cli-driver"),
                "--start", "43.7390,7.4270", "--speed", "200", "--auto", "--json", "--trips", "1",
            ], command: "drive")
        let screens = await withDeadline(60) { () -> [DriverScreen] in
            var screens: [DriverScreen] = []
            var requested = false
            for await line in driver.lines {
                guard let screen = try? HailJSON.decode(DriverScreen.self, from: Data(line.utf8)) else { continue }
                screens.append(screen)
                if !requested, screen.link == .stream {
                    requested = true
                    _ = try? await loopback.requestTrip(
                        rider: loopback.token(.rider, "cli-rider"), pickup: Self.pickup,
                        dropoff: Coordinate(lat: 43.7380, lng: 7.4260))
                }
            }
            return screens
        }
        #expect(await driver.status() == 0)
        let headlines = (screens ?? []).map(\.headline).reduce(into: [DriverScreen.Headline]()) { seen, headline in
            if seen.last != headline { seen.append(headline) }
        }
        let expected: [DriverScreen.Headline] = [
            .offline, .waitingForTrips, .newOffer, .accepting, .drivingToPickup, .arriving, .atPickup, .starting,
            .onTrip, .ending, .completed,
        ]
        #expect(headlines.starts(with: expected))
        let completed = screens?.last { $0.tripState == .completed }
        #expect(completed?.fare == Money(amountMinor: 700, currency: "EUR"))
    }
}

extension DriveCommandTests {
    @Test func aSIGKILLedAppLosesNoTapItShowedOnItsSavedStateAtSynchronousNormal() async throws {
        guard FileManager.default.isExecutableFile(atPath: HailCommandProcess.executable.path) else { return }
        let loopback = try await DriverLoopback.start(time: .system(), origin: Date())
        defer { Task { await loopback.stop() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("drive-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let driver = try HailCommandProcess(
            [
                "--server", loopback.baseURL.absoluteString, "--token", loopback.token(.driver, "cli-driver"),
                "--start", "43.7390,7.4270", "--speed", "200", "--auto", "--json", "--trips", "1", "--state", path,
            ], command: "drive")
        // Killed the moment its screen first shows a tap waiting for the server: the user has been told.
        let shown = await withDeadline(60) { () -> (screen: DriverScreen, offered: String?)? in
            var requested = false
            var offered: String?
            for await line in driver.lines {
                guard let screen = try? HailJSON.decode(DriverScreen.self, from: Data(line.utf8)) else { continue }
                offered = screen.offerTripID ?? offered
                if !requested, screen.link == .stream {
                    requested = true
                    _ = try? await loopback.requestTrip(
                        rider: loopback.token(.rider, "cli-rider"), pickup: Self.pickup,
                        dropoff: Coordinate(lat: 43.7380, lng: 7.4260))
                }
                if screen.pending != nil {
                    driver.process.send(SIGKILL)
                    return (screen, offered)
                }
            }
            return nil
        }
        #expect(await driver.status() == SIGKILL)
        let tapped = try #require(shown ?? nil)
        let kind = try #require(tapped.screen.pending)
        // An accept shows no trip yet: it is the one that was offered.
        let tripID = try #require(tapped.screen.tripID ?? tapped.offered)
        let saved = try #require(try await SQLiteOutboxStore(path: path).load())
        // The tap is on disk, or the server had it before the kill; either way the relaunched app carries it on.
        let onDisk = saved.outbox.pendingIntents.contains(DriverIntent(kind, tripID: tripID))
        let state = try await loopback.trip(tripID, rider: loopback.token(.rider, "cli-rider")).state
        let confirmed: [DriverIntent.Kind: Set<TripState>] = [
            .accept: [.driverAssigned, .driverArrived, .onTrip, .completed],
            .arrived: [.driverArrived, .onTrip, .completed],
            .started: [.onTrip, .completed], .ended: [.completed], .cancel: [.cancelled, .searching],
        ]
        let onServer = confirmed[kind]?.contains(state) == true
        #expect(onDisk || onServer, "the \(kind) shown on screen is neither saved nor on the server")
        #expect(saved.online)
    }
}
