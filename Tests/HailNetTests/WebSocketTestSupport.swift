import HailNet

/// Echoes every message back; "close:<code>:<reason>" makes the server close with that code.
let echoWebSocket: WebSocketHandler = { request in
    if request.queryValue("reject") != nil { return .reject(code: 4401, reason: "unauthorized") }
    return .accept { connection in
        for await message in connection.messages {
            switch message {
            case .text(let text) where text.hasPrefix("close:"):
                let parts = text.split(separator: ":", maxSplits: 2).map(String.init)
                connection.close(code: UInt16(parts[1]) ?? 1000, reason: parts.count > 2 ? parts[2] : "")
            case .text(let text):
                connection.send(text: text)
            case .binary(let bytes):
                connection.send(binary: bytes)
            }
        }
    }
}
