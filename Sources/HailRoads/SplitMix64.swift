/// SplitMix64, so the library needs no random source from outside and the city is the same everywhere.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [-1, 1).
    mutating func nextSigned() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}
