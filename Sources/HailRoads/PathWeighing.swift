/// What the map matcher's model makes of the paths one bounded search finds from a candidate of one fix to the
/// candidates of the next, and so how far that search need go.
///
/// A path's score is its source's score, less what passing a fix by cost, plus its end's emission (`gain`), less its
/// detour over the straight line between its road positions and its costs for turning round and for a stretch
/// against a one-way road. The detour only grows with the path's length, so once the search has gone farther than
/// an end's straight line plus the detour that would take its score down to its `floor` (the best score that end has
/// from another source) or to `margin` below the best score any end has, no path still to be found to it can count.
struct PathWeighing {
    /// The distance between the two fixes, metres: the straight line of a jitter step or a stretch against a one-way
    /// road, which join two positions of one road.
    var fixes: Double
    /// True when the two fixes' courses say the car turned round between them.
    var turnedRound: Bool
    /// The best score of any end so far, from this search or the ones before for the same fix.
    var best: Double
    /// How far below `best` a path's score may fall and still be searched for.
    var margin: Double
    /// The straight line from the start to each end, metres.
    var straight: [Double]
    /// Each end's score before its path's costs: the source's score, less any pass-by cost, plus its emission.
    var gain: [Double]
    /// Each end's best score from the searches before: a path scoring no more is not worth finding.
    var floor: [Double]

    /// Weighs nothing and bounds no search: the search goes to its limit.
    static let none = PathWeighing(
        fixes: 0, turnedRound: false, best: -.infinity, margin: .infinity, straight: [], gain: [], floor: [])

    /// The score of `path` to end `end` in `matcher`'s model.
    func score(of path: MapMatcher.LengthPath, end: Int, matcher: MapMatcher) -> Double {
        gain[end] - matcher.cost(of: path, straight: straight[end], fixes: fixes, turnedRound: turnedRound)
    }

    /// Notes the score of a path found to `end`.
    mutating func found(_ path: MapMatcher.LengthPath, end: Int, matcher: MapMatcher) {
        guard !gain.isEmpty else { return }
        best = max(best, score(of: path, end: end, matcher: matcher))
    }

    /// The longest path to any end still `unsettled` that could score above both its floor and `margin` below the
    /// best, metres; infinity when nothing is weighed.
    func reach(unsettled: [Bool], matcher: MapMatcher) -> Double {
        guard !gain.isEmpty else { return .infinity }
        let allowance = turnedRound ? 2 * matcher.turnRoundReach : 0
        var farthest = -Double.infinity
        for end in unsettled.indices where unsettled[end] {
            let bar = max(floor[end], best - margin)
            farthest = max(farthest, straight[end] + allowance + matcher.beta * (gain[end] - bar))
        }
        return farthest
    }
}
