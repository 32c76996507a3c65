import HailNet
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// HailNet's client stream fails each way with a reason naming the peer, and never waits past its timeout: a
/// refused port, a server that accepts but never answers, one that never completes a TLS handshake.
@Suite("Client streams fail with a reason, within their timeout")
struct ClientStreamTests {
    /// A socket bound to a free loopback port, listening when `listening` (the kernel then completes TCP
    /// handshakes into its backlog, and nobody ever answers), closed by `close()`.
    struct Listener {
        let descriptor: Int32
        let port: Int

        init(listening: Bool) throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
                }
            }
            try #require(bound)
            if listening { try #require(listen(descriptor, 8) == 0) }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        func close() { _ = Glibc.close(descriptor) }
    }

    @Test func aPortNobodyListensOnIsUnreachable() throws {
        let bound = try Listener(listening: false)
        defer { bound.close() }
        let error = #expect(throws: ClientStreamError.self) {
            _ = try ClientStream.connect(to: "127.0.0.1", port: bound.port, timeout: .seconds(1))
        }
        #expect(error?.code == .unreachable)
        #expect(error?.message == "127.0.0.1:\(bound.port): Connection refused")
    }

    @Test func aServerThatNeverAnswersTimesOutTheRead() throws {
        let silent = try Listener(listening: true)
        defer { silent.close() }
        let stream = try ClientStream.connect(to: "127.0.0.1", port: silent.port, timeout: .milliseconds(200))
        defer { stream.close() }
        #expect(!stream.isEncrypted)
        try [UInt8]("PING\r\n".utf8).withUnsafeBytes { try stream.write($0) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let error = #expect(throws: ClientStreamError.self) {
            _ = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message == "127.0.0.1:\(silent.port) did not answer within 0.2 s")
    }

    @Test func aServerThatNeverSpeaksTLSEndsTheConnectAtItsDeadline() throws {
        let silent = try Listener(listening: true)
        defer { silent.close() }
        let error = #expect(throws: ClientStreamError.self) {
            _ = try ClientStream.connect(
                to: "127.0.0.1", port: silent.port, timeout: .milliseconds(300), tls: TLSClientSettings())
        }
        #expect(error?.code == .timedOut)
        #expect(error?.message == "127.0.0.1:\(silent.port): no TLS handshake within 0.3 s")
    }

    @Test func aCAFileThatCannotBeReadIsAConfigurationError() throws {
        let silent = try Listener(listening: true)
        defer { silent.close() }
        let error = #expect(throws: ClientStreamError.self) {
            _ = try ClientStream.connect(
                to: "127.0.0.1", port: silent.port, timeout: .seconds(1),
                tls: TLSClientSettings(caFile: "/nonexistent/ca.pem"))
        }
        #expect(error?.code == .configuration)
        #expect(
            error?.message.hasPrefix("127.0.0.1:\(silent.port): TLS: cannot use the CA file /nonexistent/ca.pem")
                == true)
    }
}
