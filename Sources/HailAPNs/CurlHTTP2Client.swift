import CCurl
import Foundation

/// One libcurl easy handle speaking HTTP/2 over TLS, kept for many requests so its connection stays open.
final class CurlHTTP2Client: @unchecked Sendable {
    /// What one request got back.
    struct Answer: Sendable {
        /// The HTTP status.
        var status: Int
        /// The response body.
        var body: [UInt8]
        /// True when the exchange spoke HTTP/2.
        var http2: Bool
        /// Connections this request opened: 0 when it reused the open one.
        var newConnections: Int
    }

    /// libcurl failed before an answer came (no connection, TLS, timeout).
    struct TransportError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    // The handle is only touched on `queue`, one transfer at a time; libcurl's blocking perform stays off the
    // cooperative pool and the network loops.
    private let handle: UnsafeMutableRawPointer
    private let queue = DispatchQueue(label: "hail-apns-curl")
    private let caFile: String?
    private let timeoutMilliseconds: Int

    /// A client trusting `caFile` (PEM) instead of the system's store when given.
    init(caFile: String?, timeoutMilliseconds: Int = 10_000) {
        Self.globalInit
        handle = curl_easy_init()
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit { curl_easy_cleanup(handle) }

    /// POSTs `body` to `url` with `headers`.
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.perform(url: url, headers: headers, body: body) })
            }
        }
    }

    private final class Sink {
        var bytes: [UInt8] = []
    }

    private func perform(url: String, headers: [(name: String, value: String)], body: [UInt8]) throws -> Answer {
        // Reset forgets the last request's options but keeps the connection cache.
        curl_easy_reset(handle)
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, "\(header.name): \(header.value)") }
        // libcurl adds `accept: */*` of its own; APNs has no use for it.
        list = curl_slist_append(list, "accept:")
        defer { curl_slist_free_all(list) }
        let sink = Sink()
        let callback: hail_curl_data_callback = { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        let code: CURLcode = withExtendedLifetime(sink) {
            body.withUnsafeBytes { bytes in
                var settings = [
                    hail_curl_set_string(handle, CURLOPT_URL, url),
                    hail_curl_set_long(handle, CURLOPT_HTTP_VERSION, hail_curl_http_version_2()),
                    hail_curl_set_long(handle, CURLOPT_POST, 1),
                    hail_curl_set_body(handle, bytes.baseAddress, bytes.count),
                    hail_curl_set_headers(handle, list),
                    hail_curl_set_body_callback(handle, callback, Unmanaged.passUnretained(sink).toOpaque()),
                    hail_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds),
                    hail_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                ]
                if let caFile { settings.append(hail_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
                if let failed = settings.first(where: { $0 != CURLE_OK }) { return failed }
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            throw TransportError(description: String(cString: curl_easy_strerror(code)))
        }
        return Answer(
            status: hail_curl_status(handle), body: sink.bytes, http2: hail_curl_used_http2(handle) == 1,
            newConnections: hail_curl_new_connections(handle))
    }
}
