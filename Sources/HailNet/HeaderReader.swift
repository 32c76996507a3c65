import CLibWebSockets

/// Reads the parsed request head of a wsi; only valid on the loop thread while lws still holds the
/// header table (HTTP callbacks and the WebSocket protocol filter).
enum HeaderReader {
    /// Every header lws tokenised plus the configured custom ones.
    static func headers(_ wsi: OpaquePointer, customNames: [String]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (index, name) in fieldTokens {
            let length = Int(lws_hdr_total_length(wsi, index))
            guard length > 0, let value = copy(length: length, { lws_hdr_copy(wsi, $0, $1, index) }) else {
                continue
            }
            headers.add(name, value)
        }
        for name in customNames {
            let key = name.lowercased() + ":"
            let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
            guard length >= 0,
                let value = copy(length: length, { lws_hdr_custom_copy(wsi, $0, $1, key, Int32(key.utf8.count)) })
            else { continue }
            headers.add(name.lowercased(), value)
        }
        return headers
    }

    /// The tokens lws parses that are header fields, with their names (lower case, no colon): worked out once
    /// rather than by turning each of lws's token names into a Swift string on every request.
    private static let fieldTokens: [(lws_token_indexes, String)] = (0..<Int32(WSI_TOKEN_COUNT.rawValue)).compactMap {
        token in
        let index = lws_token_indexes(rawValue: UInt32(token))
        guard let cName = lws_token_to_string(index) else { return nil }
        let rawName = String(cString: UnsafeRawPointer(cName).assumingMemoryBound(to: CChar.self))
        // Method/URI tokens are spelt like "get " and HTTP/2 pseudo-headers start with ':'.
        guard rawName.hasSuffix(":"), !rawName.hasPrefix(":") else { return nil }
        return (index, String(rawName.dropLast()))
    }

    /// The methods lws parses, by the token holding their request target.
    private static let methods: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_PUT_URI, "PUT"),
        (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        (WSI_TOKEN_HEAD_URI, "HEAD"), (WSI_TOKEN_CONNECT, "CONNECT"),
    ]

    /// The request method and path, or nil when lws saw no request line.
    static func methodAndPath(_ wsi: OpaquePointer) -> (method: String, path: String)? {
        for (token, method) in methods {
            let length = Int(lws_hdr_total_length(wsi, token))
            if length > 0, let path = copy(length: length, { lws_hdr_copy(wsi, $0, $1, token) }) {
                return (method, path)
            }
        }
        return nil
    }

    /// The query items; lws has already split them at '&' and percent-decoded them.
    static func query(_ wsi: OpaquePointer) -> [QueryItem] {
        var items: [QueryItem] = []
        var fragment: Int32 = 0
        while true {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, fragment))
            guard length > 0 else { break }
            if let text = copy(
                length: length, { lws_hdr_copy_fragment(wsi, $0, $1, WSI_TOKEN_HTTP_URI_ARGS, fragment) })
            {
                if let equals = text.firstIndex(of: "=") {
                    items.append(
                        QueryItem(name: String(text[..<equals]), value: String(text[text.index(after: equals)...])))
                } else {
                    items.append(QueryItem(name: text, value: ""))
                }
            }
            fragment += 1
        }
        return items
    }

    /// The peer's address as text.
    static func remoteAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = buffer.count
        return buffer.withUnsafeMutableBufferPointer { pointer -> String in
            guard let base = pointer.baseAddress, lws_get_peer_simple(wsi, base, count) != nil else { return "" }
            return String(cString: base)
        }
    }

    /// Runs an lws copy function straight into a new string's storage, one byte longer than `length` for the NUL
    /// (a value of up to 15 bytes stays inside the string, no allocation).
    private static func copy(length: Int, _ body: (UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
        var copied: Int32 = -1
        let text = String(unsafeUninitializedCapacity: length + 1) { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            copied = base.withMemoryRebound(to: CChar.self, capacity: length + 1) { body($0, Int32(length + 1)) }
            return max(0, Int(copied))
        }
        return copied >= 0 ? text : nil
    }

    /// A request id: the client's X-Request-Id when it is short and printable, else a random one.
    static func requestID(from headers: HTTPHeaders) -> String {
        if let given = headers["x-request-id"], !given.isEmpty, given.utf8.count <= 128,
            given.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        {
            return given
        }
        return SecureRandom.hex(byteCount: 8)
    }
}
