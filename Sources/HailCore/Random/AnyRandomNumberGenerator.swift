/// An injected random source behind one concrete type, so a stored property (an actor's, a model's) can hold
/// whichever generator it is given and `Backoff` or a shuffle can draw from it in place.
public struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    /// The generator drawn from.
    public var base: any RandomNumberGenerator & Sendable

    /// Draws from `base`.
    public init(base: any RandomNumberGenerator & Sendable) { self.base = base }

    /// The next value of `base`.
    public mutating func next() -> UInt64 { base.next() }
}
