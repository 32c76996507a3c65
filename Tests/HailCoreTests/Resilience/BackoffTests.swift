import Foundation
import HailCore
import HailTesting
import Testing

struct BackoffTests {
    @Test(arguments: zip([1, 2, 3, 4, 5, 6, 7, 50, Int.max], [1.0, 2, 4, 8, 16, 30, 30, 30, 30]))
    func ceilingDoublesFromOneSecondAndStopsAtThirty(attempt: Int, expected: TimeInterval) {
        #expect(Backoff.standard.ceiling(afterAttempt: attempt) == expected)
    }

    @Test(arguments: [0, -1, Int.min])
    func attemptsBelowOneCountAsTheFirst(attempt: Int) {
        #expect(Backoff.standard.ceiling(afterAttempt: attempt) == 1)
    }

    @Test func equalJitterGivesExactDelaysForASeed() {
        // Expected values computed independently: SplitMix64(42), top 53 bits / 2^53, c/2 + c/2 * u.
        var generator = SplitMix64(seed: 42)
        let delays = (1...7).map { Backoff.standard.delay(afterAttempt: $0, using: &generator) }
        #expect(
            delays == [
                0.8707824393859116, 1.15991039287692, 2.5572022605102775, 5.37676286609455, 8.30424134832197,
                28.023421148197983, 18.276077905682765,
            ]
        )
    }

    @Test func fullJitterGivesExactDelaysForASeed() {
        var generator = SplitMix64(seed: 42)
        let backoff = Backoff(jitter: .full)
        let delays = (1...7).map { backoff.delay(afterAttempt: $0, using: &generator) }
        #expect(
            delays == [
                0.7415648787718233, 0.3198207857538402, 1.1144045210205547, 2.7535257321891002, 0.6084826966439394,
                26.04684229639597, 6.552155811365531,
            ]
        )
    }

    @Test func noJitterIsTheCeiling() {
        var generator = SplitMix64(seed: 1)
        let backoff = Backoff(jitter: .none)
        let delays = (1...7).map { backoff.delay(afterAttempt: $0, using: &generator) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30])
    }

    @Test(arguments: Backoff.Jitter.allCases)
    func delaysStayBetweenTheFloorAndTheCapForManySeeds(jitter: Backoff.Jitter) {
        let backoff = Backoff(jitter: jitter)
        for seed in UInt64(0)..<200 {
            var generator = SplitMix64(seed: seed)
            for attempt in 1...40 {
                let ceiling = backoff.ceiling(afterAttempt: attempt)
                let delay = backoff.delay(afterAttempt: attempt, using: &generator)
                let floor = jitter == .full ? 0 : (jitter == .equal ? ceiling / 2 : ceiling)
                #expect(delay >= floor && delay <= ceiling && delay <= 30, "seed \(seed) attempt \(attempt)")
            }
        }
    }

    @Test(arguments: [
        Backoff(base: -5, multiplier: 2, cap: 30),
        Backoff(base: 1, multiplier: -3, cap: 30),
        Backoff(base: .nan, multiplier: .nan, cap: .nan),
        Backoff(base: 1, multiplier: 2, cap: -1),
        Backoff(base: .infinity, multiplier: .infinity, cap: .infinity),
        Backoff(base: 0, multiplier: 2, cap: 30),
    ])
    func nonsenseConfigurationsNeverGiveANegativeOrNonFiniteDelay(backoff: Backoff) {
        var generator = SplitMix64(seed: 9)
        for attempt in [Int.min, 0, 1, 2, 10, 1000, Int.max] {
            let delay = backoff.delay(afterAttempt: attempt, using: &generator)
            #expect(delay >= 0 && delay.isFinite)
        }
    }

    /// A node holding 8,000 drivers crashes and every stream drops at once: with `standard`'s first wait they all
    /// land on the node left between 0.5 and 1 s (4,001 and 3,999 in its two quarter seconds); `afterDrop` spreads
    /// them over 3 s, at most 682 in any quarter second, the last at 3 s (each phone its own seed).
    @Test func aCrashStormIsSpreadOverThreeSecondsAfterADrop() {
        func quarterSeconds(_ backoff: Backoff) -> [Int] {
            var counts = Array(repeating: 0, count: 16)
            for phone in UInt64(0)..<8_000 {
                var generator = SplitMix64(seed: phone)
                counts[Int(backoff.delay(afterAttempt: 1, using: &generator) / 0.25)] += 1
            }
            return counts
        }
        #expect(quarterSeconds(.standard) == [0, 0, 4_001, 3_999, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(
            quarterSeconds(.afterDrop) == [673, 668, 650, 659, 682, 669, 677, 660, 680, 673, 653, 656, 0, 0, 0, 0])
    }

    @Test func survivesEncodeAndDecode() throws {
        let backoff = Backoff(base: 0.5, multiplier: 3, cap: 12, jitter: .full)
        let decoded = try JSONDecoder().decode(Backoff.self, from: JSONEncoder().encode(backoff))
        #expect(decoded == backoff)
    }
}
