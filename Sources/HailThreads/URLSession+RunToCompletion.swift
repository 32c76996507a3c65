#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    extension URLSession {
        /// `data(for:)` whose request runs to its end (answer, error or `timeoutInterval`) even when the
        /// calling task is cancelled.
        ///
        /// On Linux, `data(for:)` answers a task cancellation with `URLSessionTask.cancel()`, which races the
        /// request's own completion inside FoundationNetworking and can abort the whole process ("a task that
        /// is not in the registry"). A cancelled caller here simply gets the result late; the request's
        /// timeout bounds how late.
        public func dataRunningToCompletion(for request: URLRequest) async throws -> (Data, URLResponse) {
            try await withCheckedThrowingContinuation { continuation in
                dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                .resume()
            }
        }
    }
#endif
