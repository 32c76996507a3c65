import Foundation

/// SplitMix64, the one seeded random number generator of Hail: one seed replays the same city, route pairs
/// and property test everywhere, and the library needs no random source from outside.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform draw in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A uniform draw in [-1, 1), from the top 53 bits.
    public mutating func signedUnit() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }

    /// A standard normal draw (Box-Muller), for GPS noise.
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * unit())
    }

    /// A new generator whose stream does not overlap this one's in practice, for one simulated client.
    public mutating func split() -> SplitMix64 { SplitMix64(seed: next()) }
}
