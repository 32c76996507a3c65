import HailProtocol

extension ClientConfig {
    /// `GET /v1/config` over `transport`: the flags, or nil when the server does not know the route (404, a server
    /// from before it). Any other failure goes through `sorting`, each API's own rule for what it throws.
    static func fetch(over transport: HTTPTransport, sorting: (ClientError) -> any Error) async throws -> ClientConfig?
    {
        do {
            return try await transport.json("GET", Routes.config.template, as: ClientConfig.self)
        } catch {
            if error.status == 404 { return nil }
            throw sorting(error)
        }
    }
}
