/// `hail ride`: a terminal rider app on `RiderModel`.
enum RideCommand {
    static let usage = """
        usage: hail ride --server URL --token TOKEN --from LAT,LNG --to LAT,LNG [--product economy] [--json]
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        throw UsageError("the rider app is not built yet")
    }
}
