import CLibWebSockets
import HailThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The TLS half of `ClientStream.connect`: a client context made from the settings (read afresh on every connect,
/// so a rotated CA or client certificate is picked up by the next connection), then the handshake on the
/// non-blocking socket, polled until the connect's deadline.
enum TLSHandshake {
    /// An `SSL *` that has completed its handshake on `descriptor` and verified the server, or why not.
    static func run(
        on descriptor: Int32, host: String, settings: TLSClientSettings, peer: String,
        until deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(ClientStreamError) -> OpaquePointer {
        ignoreBrokenPipes()
        ERR_clear_error()
        let context = try makeContext(settings, peer: peer)
        // The session holds a reference of its own to the context.
        defer { SSL_CTX_free(context) }
        guard let session = SSL_new(context) else {
            throw ClientStreamError(.tls, "\(peer): TLS: \(openSSLReason())")
        }
        let name = settings.serverName ?? host
        let named: Bool
        if isAddressLiteral(name) {
            // RFC 6066 sends no SNI for an address; the certificate must list the address itself.
            named = hail_tls_expect_ip(session, name) == 1
        } else {
            named = hail_tls_set_server_name(session, name) == 1 && SSL_set1_host(session, name) == 1
        }
        guard named, SSL_set_fd(session, descriptor) == 1 else {
            SSL_free(session)
            throw ClientStreamError(.tls, "\(peer): TLS: \(openSSLReason())")
        }
        while true {
            ERR_clear_error()
            let result = SSL_connect(session)
            if result == 1 { return session }
            let events: Int16
            switch SSL_get_error(session, result) {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default:
                let reason = failureReason(session)
                SSL_free(session)
                throw ClientStreamError(.tls, "\(peer): TLS handshake failed: \(reason)")
            }
            guard SocketConnect.wait(descriptor, events: events, until: deadline) == true else {
                SSL_free(session)
                throw ClientStreamError(.timedOut, "\(peer): no TLS handshake within \(timeout.secondsText) s")
            }
        }
    }

    /// OpenSSL's queued reason for the last failure on this thread, else "unknown".
    static func openSSLReason() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func failureReason(_ session: OpaquePointer) -> String {
        let verdict = SSL_get_verify_result(session)
        if verdict != X509_V_OK {
            return "certificate verify failed: \(String(cString: X509_verify_cert_error_string(verdict)))"
        }
        return openSSLReason()
    }

    private static func makeContext(_ settings: TLSClientSettings, peer: String) throws(ClientStreamError)
        -> OpaquePointer
    {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw ClientStreamError(.tls, "\(peer): TLS: \(openSSLReason())")
        }
        func refuse(_ what: String) -> ClientStreamError {
            let error = ClientStreamError(.configuration, "\(peer): TLS: \(what): \(openSSLReason())")
            SSL_CTX_free(context)
            return error
        }
        guard hail_tls_require_tls12(context) == 1 else { throw refuse("no TLS 1.2") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile = settings.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw refuse("cannot use the CA file \(caFile)")
            }
        } else if SSL_CTX_set_default_verify_paths(context) != 1 {
            throw refuse("cannot load the system's CA store")
        }
        if let certificate = settings.certificateFile {
            let key = settings.keyFile ?? certificate
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw refuse("cannot use the certificate file \(certificate)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1,
                SSL_CTX_check_private_key(context) == 1
            else { throw refuse("cannot use the key file \(key)") }
        }
        return context
    }

    private static func isAddressLiteral(_ name: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    private static let brokenPipesIgnored = Mutex(false)

    /// OpenSSL writes to the socket with `write(2)`, which raises SIGPIPE (ending the process) when the server has
    /// closed it; a dead server must cost a failed command instead. libwebsockets does the same for its sockets.
    private static func ignoreBrokenPipes() {
        brokenPipesIgnored.withLock { done in
            guard !done else { return }
            signal(SIGPIPE, SIG_IGN)
            done = true
        }
    }
}
