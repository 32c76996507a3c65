/// Where the ETA a rider's app shows comes from.
public enum EtaSource: String, Codable, Sendable, Hashable, CaseIterable {
    /// The road ETA the server sends with the trip and each position (the driver's cohort's route provider).
    case roadGraph
    /// The coarse straight-line ETA the app computes from the car's newest position (`StraightLineETA`): the
    /// exit when road ETAs misbehave for a cohort of riders.
    case straightLine

    /// Reads the source, naming the accepted values when the string is none of them.
    public init(from decoder: any Decoder) throws {
        self = try WireEnum.decode(from: decoder)
    }
}
