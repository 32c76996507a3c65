/// One request on a connection of its own, for `hail bench edge`'s set-up: is the server up, what does a route
/// answer before wrk repeats it.
enum EdgeProbe {
    /// The status `method path` gets (with `headers` and `body`), or nil when nothing answered.
    static func status(
        of method: String, _ path: String, on endpoint: HTTPEndpoint, headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async -> Int? {
        let request = HTTPRequestBytes.make(
            method: method, path: path, authority: endpoint.authority, headers: headers, body: body)
        let answers = await BlockingThreads.run(count: 1) { _ -> Int? in
            guard let connection = try? HTTPConnection(to: endpoint, timeoutSeconds: 2) else { return nil }
            return try? connection.exchange(request).status
        }
        return answers.first ?? nil
    }
}
