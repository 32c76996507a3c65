// The code of the DocC article "Binding the rider's model to a SwiftUI view" that needs no SwiftUI, verbatim:
// ArticleCodeTests checks that the article's marked blocks are in this file, and the build compiles them.
import Foundation
import HailAppStore
import HailClient
import HailProtocol
import HailRider

/// The rider's model on the live seams, once its cursor store is open on disk (the store opens asynchronously,
/// which an `@State` initializer cannot wait for).
@MainActor
func makeRiderModel(server: URL, token: String, database: String) async throws -> RiderModel {
    let client = ClientInfo(app: "hail-rider", version: "1.0.0")
    let cursors = try await SQLiteCursorStore.open(path: database)
    return RiderModel(
        api: RiderHTTPAPI(transport: HTTPTransport(baseURL: server, token: token, client: client)),
        channel: RiderLiveChannel(baseURL: server, token: token, connector: SocketConnector(), client: client),
        cursors: cursors)
}
