/// How a `ClientStream` speaks TLS: whom it trusts, what it presents, and which name it expects.
///
/// The server's certificate is always verified (there is no switch to turn that off): its chain against `caFile`
/// (else OpenSSL's default store, the system's CAs), and its name against `serverName` (else the host connected to,
/// an IP address matched against the certificate's IP entries). TLS 1.2 is the oldest version spoken.
public struct TLSClientSettings: Sendable, Hashable {
    /// A PEM file of the CAs that may sign the server's certificate; nil: the system's store.
    public var caFile: String?
    /// A PEM file holding the client's certificate (and its chain), for a server that asks for one; nil: none.
    public var certificateFile: String?
    /// The PEM private key of `certificateFile`; nil: the key is in `certificateFile` too.
    public var keyFile: String?
    /// The name the server's certificate must carry, also sent as SNI; nil: the host connected to.
    public var serverName: String?

    /// Settings that trust `caFile` (nil: the system's store) and present no client certificate.
    public init(
        caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, serverName: String? = nil
    ) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.serverName = serverName
    }
}
