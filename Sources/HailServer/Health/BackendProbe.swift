/// One backend's readiness check for `GET /readyz`: a cheap round trip (Redis `PING`, PostgreSQL `SELECT 1`, a
/// SQLite read) that throws when the backend does not answer.
public struct BackendProbe: Sendable {
    /// The backend's name in `/readyz`'s answer (`postgresql`, `redis`, `sqlite`).
    public let name: String
    /// The round trip.
    public let check: @Sendable () async throws -> Void

    /// A probe of the backend `name`.
    public init(name: String, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.check = check
    }
}
