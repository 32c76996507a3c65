import HailCore
import Testing

struct AnyRandomNumberGeneratorTests {
    @Test func drawsExactlyWhatTheGeneratorItHoldsDraws() {
        var held = AnyRandomNumberGenerator(base: SplitMix64(seed: 42))
        var direct = SplitMix64(seed: 42)
        let drawn = (0..<4).map { _ in held.next() }
        #expect(drawn == (0..<4).map { _ in direct.next() })
        // Its state moves with each draw: a copy taken now continues from here, not from the seed.
        var copy = held
        #expect(copy.next() == direct.next())
    }
}
