/// Whose certificates a `WebSocketClient` accepts from a wss:// server.
public enum WebSocketTrust: Sendable, Hashable {
    /// The system's trust store: OpenSSL's default locations (`SSL_CERT_FILE` and `SSL_CERT_DIR` move them).
    case system
    /// Only the CA certificates in this PEM file: a private CA, such as a test's throwaway one.
    case caFile(String)
}
