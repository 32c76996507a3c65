import HailAppSeams
import HailProtocol

extension ClientConfig {
    /// `GET /v1/config` over `transport`: the flags, or nil when the server does not know the route (404, a server
    /// from before it).
    static func fetch(over transport: HTTPTransport) async throws(CallError) -> ClientConfig? {
        do {
            return try await transport.json("GET", Routes.config.template, as: ClientConfig.self)
        } catch {
            if error.status == 404 { return nil }
            throw error
        }
    }
}
