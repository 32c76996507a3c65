/// Why one request on a benchmark connection got no response.
enum HTTPExchangeError: Error {
    /// No byte within the socket timeout.
    case timeout
    /// The server closed the connection before the response was complete.
    case closed
    /// A socket call failed with this errno.
    case socket(Int32)
    /// The response did not parse as HTTP/1.1.
    case malformed

    /// A short label for error tallies.
    var label: String {
        switch self {
        case .timeout: return "timeout"
        case .closed: return "closed"
        case .socket(let code): return "errno \(code)"
        case .malformed: return "malformed"
        }
    }
}
