import Foundation
import HailAppSeams
import HailThreads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTPExchange` over URLSession: what an app uses on Apple platforms, where it links no C library.
///
/// On Linux it works but costs a core per waiting request (FoundationNetworking's `_MultiHandle` never removes a
/// socket's write source, so libcurl's loop spins until the answer comes): the `hail` command uses
/// HailNetTransport's `NetHTTPExchange` there instead.
public struct URLSessionExchange: HTTPExchange {
    private let session: URLSession

    /// An exchange over `session`.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Sends `call` with URLSession, bounded by its timeout.
    public func exchange(_ call: HTTPCall) async throws(CallError) -> HTTPReply {
        var request = URLRequest(url: call.url, timeoutInterval: call.timeout)
        request.httpMethod = call.method
        for field in call.headers { request.setValue(field.value, forHTTPHeaderField: field.name) }
        request.httpBody = call.body
        let data: Data
        let response: URLResponse
        do {
            #if canImport(FoundationNetworking)
                (data, response) = try await session.dataRunningToCompletion(for: request)
            #else
                (data, response) = try await session.data(for: request)
            #endif
        } catch {
            throw .noAnswer("\(call.label): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else { return HTTPReply(status: 0, body: data) }
        let headers = http.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        return HTTPReply(status: http.statusCode, headers: headers, body: data)
    }
}
