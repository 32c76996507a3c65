import CLibWebSockets
import HailThreads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP connection to one server, in TLS when asked, for a client that speaks its own protocol over
/// it (HailScale's Redis connections, whose hiredis 0.14 has no TLS of its own).
///
/// No wait is unbounded: the connect (every address the name resolves to, and the TLS handshake) ends at one
/// deadline `timeout` away, and afterwards each send and receive waits at most `timeout` (the socket's
/// `SO_SNDTIMEO`/`SO_RCVTIMEO`, set once, so an exchange costs no extra system call). TCP keepalive finds a peer
/// that vanished while the connection sat idle, and `TCP_USER_TIMEOUT` (three timeouts) one that stops
/// acknowledging what was sent. After any failure the stream is unusable: close it and connect anew.
///
/// Not `Sendable`: one thread owns a stream (OpenSSL's `SSL` allows no two at once).
public final class ClientStream {
    private var descriptor: Int32
    /// The `SSL *` of a TLS stream, nil for plain TCP.
    private var session: OpaquePointer?
    private let peer: String
    private let timeout: Duration

    private init(descriptor: Int32, session: OpaquePointer?, peer: String, timeout: Duration) {
        self.descriptor = descriptor
        self.session = session
        self.peer = peer
        self.timeout = timeout
    }

    deinit { close() }

    /// Connects to `host`:`port` within `timeout`, then speaks TLS with `tls` when given (the handshake inside
    /// the same deadline); `timeout` stays the limit of each later send and receive.
    public static func connect(
        to host: String, port: Int, timeout: Duration, tls: TLSClientSettings? = nil
    ) throws(ClientStreamError) -> ClientStream {
        let peer = "\(host):\(port)"
        let deadline = ContinuousClock.now + timeout
        let descriptor = try SocketConnect.open(
            host: host, port: port, peer: peer, timeout: timeout, until: deadline)
        var session: OpaquePointer?
        do {
            if let tls {
                session = try TLSHandshake.run(
                    on: descriptor, host: host, settings: tls, peer: peer, until: deadline, timeout: timeout)
            }
            try SocketConnect.configure(descriptor, timeout: timeout, peer: peer)
        } catch {
            closeSocket(descriptor)
            throw error
        }
        return ClientStream(descriptor: descriptor, session: session, peer: peer, timeout: timeout)
    }

    /// The socket, for `poll` (readable means bytes have arrived, not necessarily a whole TLS record).
    public var fileDescriptor: Int32 { descriptor }

    /// True when the connection speaks TLS.
    public var isEncrypted: Bool { session != nil }

    /// True when bytes already read and decrypted wait in the stream, which `poll` on the socket cannot see: read
    /// them before waiting on the socket again.
    public var hasBufferedInput: Bool { session.map { SSL_pending($0) > 0 } ?? false }

    /// Sends all of `bytes`, each write waiting at most the timeout.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ClientStreamError) {
        guard descriptor >= 0 else { throw ClientStreamError(.closed, "\(peer): the connection is closed") }
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            if let session {
                ERR_clear_error()
                let written = SSL_write(session, rest.baseAddress, Int32(clamping: rest.count))
                guard written > 0 else { throw tlsFailure(session, written, sending: true) }
                offset += Int(written)
            } else {
                let written = send(descriptor, rest.baseAddress, rest.count, Self.noSignal)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw socketFailure(sending: true)
                }
                offset += written
            }
        }
    }

    /// Reads what has arrived into `buffer` (at least one byte), waiting at most the timeout; returns how many.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ClientStreamError) -> Int {
        guard descriptor >= 0 else { throw ClientStreamError(.closed, "\(peer): the connection is closed") }
        while true {
            if let session {
                ERR_clear_error()
                let count = SSL_read(session, buffer.baseAddress, Int32(clamping: buffer.count))
                guard count > 0 else { throw tlsFailure(session, count, sending: false) }
                return Int(count)
            }
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return count }
            if count == 0 { throw ClientStreamError(.closed, "\(peer) closed the connection") }
            if errno == EINTR { continue }
            throw socketFailure(sending: false)
        }
    }

    /// Closes the connection (a TLS one without waiting for the server's close_notify); idempotent.
    public func close() {
        if let session {
            // A quiet shutdown: no close_notify sent into a socket that may be dead, so close never waits.
            SSL_set_quiet_shutdown(session, 1)
            SSL_free(session)
        }
        session = nil
        if descriptor >= 0 { closeSocket(descriptor) }
        descriptor = -1
    }

    /// `send`'s flag for "a closed peer is an error, not SIGPIPE" (Darwin has none: its socket has `SO_NOSIGPIPE`).
    private static var noSignal: Int32 {
        #if os(Linux)
            Int32(MSG_NOSIGNAL)
        #else
            0
        #endif
    }

    private func socketFailure(sending: Bool) -> ClientStreamError {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK {
            let what = sending ? "took nothing sent" : "did not answer"
            return ClientStreamError(.timedOut, "\(peer) \(what) within \(timeout.secondsText) s")
        }
        if code == ECONNRESET || code == EPIPE {
            return ClientStreamError(.closed, "\(peer) closed the connection (\(String(cString: strerror(code))))")
        }
        return ClientStreamError(.io, "\(peer): \(String(cString: strerror(code)))")
    }

    private func tlsFailure(_ session: OpaquePointer, _ result: Int32, sending: Bool) -> ClientStreamError {
        let savedErrno = errno
        switch SSL_get_error(session, result) {
        case SSL_ERROR_ZERO_RETURN:
            return ClientStreamError(.closed, "\(peer) closed the connection")
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            let what = sending ? "took nothing sent" : "did not answer"
            return ClientStreamError(.timedOut, "\(peer) \(what) within \(timeout.secondsText) s")
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            errno = savedErrno
            if savedErrno == 0 { return ClientStreamError(.closed, "\(peer) closed the connection") }
            return socketFailure(sending: sending)
        default:
            return ClientStreamError(.io, "\(peer): TLS: \(TLSHandshake.openSSLReason())")
        }
    }
}

/// `close(2)`, out of reach of the stream's own `close()` inside the class.
private func closeSocket(_ descriptor: Int32) {
    _ = close(descriptor)
}
