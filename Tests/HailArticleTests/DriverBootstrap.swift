// The code of the DocC article "Binding the driver's model to the driver's screen" that needs no SwiftUI,
// verbatim: ArticleCodeTests checks that the article's marked blocks are in this file, and the build compiles them.
import Foundation
import HailAppStore
import HailClient
import HailDriver
import HailProtocol

/// The driver's model on the live seams, its outbox open on disk, restored: call it once per process, from the app
/// (or its delegate) rather than a view, so that it also runs when iOS relaunches the app in the background for
/// location, and never twice.
@MainActor
func startDriverModel(
    server: URL, token: String, database: String, location: any LocationSource
) async throws -> DriverModel {
    let client = ClientInfo(app: "hail-driver", version: "1.0.0")
    let model = DriverModel(
        api: DriverHTTPAPI(transport: HTTPTransport(baseURL: server, token: token, client: client)),
        channel: DriverLiveChannel(connector: SocketConnector(), server: server, token: token, client: client),
        location: location,
        store: try await SQLiteOutboxStore(path: database),
        timeline: .system())
    await model.start()
    return model
}
