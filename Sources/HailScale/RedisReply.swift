/// One Redis reply, copied out of the reply object hiredis's reader made.
enum RedisReply: Sendable, Hashable {
    case string(String)
    case status(String)
    case integer(Int)
    case array([RedisReply])
    case null
    case error(String)

    /// The text of a bulk or status reply.
    var text: String? {
        switch self {
        case .string(let text), .status(let text): return text
        default: return nil
        }
    }

    /// The elements of an array reply.
    var elements: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The reply itself, or the server's error thrown (an error nested in a transaction's result too).
    func checked() throws -> RedisReply {
        switch self {
        case .error(let message):
            // A server that wants a password Hail was not given: a setting to fix, not an outage.
            if message.hasPrefix("NOAUTH") || message.hasPrefix("WRONGPASS") {
                throw RedisError.authentication(message)
            }
            throw RedisError.reply(message)
        case .array(let elements):
            for element in elements { _ = try element.checked() }
            return self
        default: return self
        }
    }
}
