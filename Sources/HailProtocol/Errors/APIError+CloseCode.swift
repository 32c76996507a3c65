extension APIError {
    /// The close code a WebSocket gets for this error: a refused upgrade, or a frame the server could not take.
    ///
    /// A storage failure (503) is 4013 so the client reconnects later without taking its frame for bad,
    /// and a 500 is 1011; every other client mistake that has no code of its own is 4008.
    public var closeCode: WebSocketCloseCode {
        switch httpStatus {
        case 401: return .unauthorized
        case 403: return .forbidden
        case 404: return .tripNotFound
        case 429: return .rateLimited
        case 503: return .reconnectLater
        case 500...599: return .internalError
        default: return .invalidFrame
        }
    }
}
