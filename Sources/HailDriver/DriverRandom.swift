/// The model's one random generator, shared by the outbox's retry jitter and the stream's reconnect backoff so a
/// seeded run draws the same numbers in the same order as before they were parts.
@MainActor
final class DriverRandom {
    private var generator: any RandomNumberGenerator

    /// Draws from `generator`.
    init(_ generator: any RandomNumberGenerator) { self.generator = generator }

    /// Runs `body` with the generator.
    func draw<T>(_ body: (inout any RandomNumberGenerator) -> T) -> T { body(&generator) }
}
