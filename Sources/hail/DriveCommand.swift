/// `hail drive`: a terminal driver app on `DriverModel`.
enum DriveCommand {
    static let usage = """
        usage: hail drive --server URL --token TOKEN [--start LAT,LNG] [--trace FILE | --speed KMH] [--auto] [--json]
        """

    static func run(_ arguments: [String]) async throws(UsageError) {
        throw UsageError("the driver app is not built yet")
    }
}
