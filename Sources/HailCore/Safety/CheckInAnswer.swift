/// The rider's answer to a trip alert's check-in.
public enum CheckInAnswer: String, Codable, Sendable, Hashable, CaseIterable {
    /// "I'm OK": nothing is wrong.
    case ok
    /// "Get help": the rider asks for help.
    case help
}
