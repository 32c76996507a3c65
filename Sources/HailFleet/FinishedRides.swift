/// How many of a fleet's riders have finished their rides (each rider's task counts itself on the main actor).
@MainActor
final class FinishedRides {
    var count = 0
}
