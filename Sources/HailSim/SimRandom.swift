import Foundation

/// The simulator's seeded random source (SplitMix64): one seed replays the same city.
public struct SimRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A uniform draw in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A standard normal draw (Box-Muller), for GPS noise.
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * unit())
    }

    /// A new generator whose stream does not overlap this one's in practice, for one simulated client.
    public mutating func split() -> SimRandom { SimRandom(seed: next()) }
}
