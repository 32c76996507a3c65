import Foundation
import HailCore

/// Turns bytes from the network into a value or an `APIError` that names the field at fault.
///
/// This is the one entry point servers use for request bodies and client frames, so every route
/// reports malformed JSON, wrong types, missing fields and out-of-range values the same way.
public enum WireDecoder {
    /// The largest JSON body accepted by default: 1 MiB, ample for 1,000 location points.
    public static let defaultMaxBytes = 1 << 20

    /// Decodes and validates a request body; an empty body is the type's `valueForEmptyBody` if it has one.
    public static func decodeRequest<T: Decodable & Validatable>(
        _ type: T.Type, from bytes: Data, maxBytes: Int = defaultMaxBytes
    ) throws(APIError) -> T {
        if bytes.allSatisfy(isJSONWhitespace) {
            if let empty = T.valueForEmptyBody { return empty }
            throw APIError(code: .invalidJSON, message: "the body is empty; expected a JSON object")
        }
        let value = try decode(type, from: bytes, maxBytes: maxBytes)
        try value.validate()
        return value
    }

    /// Decodes a value without semantic checks (responses and server frames, which the server vouches for).
    public static func decode<T: Decodable>(
        _ type: T.Type, from bytes: Data, maxBytes: Int = defaultMaxBytes
    ) throws(APIError) -> T {
        guard bytes.count <= maxBytes else {
            throw APIError(code: .payloadTooLarge, message: "the body is larger than \(maxBytes) bytes")
        }
        do {
            return try HailJSON.decode(type, from: bytes)
        } catch {
            throw apiError(for: error)
        }
    }

    /// The `APIError` for a `DecodingError`, with the field path taken from its coding path.
    public static func apiError(for error: DecodingError) -> APIError {
        switch error {
        case .keyNotFound(let key, let context):
            return APIError.missingField(FieldPath.render(context.codingPath + [key]))
        case .typeMismatch(let expected, let context):
            let field = FieldPath.render(context.codingPath)
            return invalid(field, "\(name(field)) must be \(describe(expected))")
        case .valueNotFound(let expected, let context):
            let field = FieldPath.render(context.codingPath)
            return invalid(field, "\(name(field)) must be \(describe(expected)), not null")
        case .dataCorrupted(let context):
            let field = FieldPath.render(context.codingPath)
            // Foundation reports unparseable JSON as corrupted data at the root; a body's root is
            // always an object, so a root-level corruption means the bytes are not JSON.
            guard !field.isEmpty else {
                return APIError(code: .invalidJSON, message: "the body is not valid JSON")
            }
            return APIError.invalidField(field, "\(name(field)) is invalid: \(context.debugDescription)")
        @unknown default:
            return APIError(code: .invalidJSON, message: "the body could not be decoded")
        }
    }

    private static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(code: .invalidField, message: message, field: field.isEmpty ? nil : field)
    }

    private static func name(_ field: String) -> String {
        field.isEmpty ? "the body" : FieldPath.lastComponent(field)
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: return "an integer"
        case is Bool.Type: return "true or false"
        case is String.Type: return "a string"
        case is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object"
        default:
            let text = String(describing: type)
            if text.hasPrefix("Array") { return "an array" }
            if text.hasPrefix("Dictionary") { return "an object" }
            return "a \(text)"
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

extension WireDecoder {
    /// Decodes and validates a binary location batch (see `LocationBatchCodec`), as a request body
    /// or a WebSocket binary frame, with the same checks as its JSON form.
    public static func decodeLocationBatch(binary bytes: Data) throws(APIError) -> LocationBatch {
        let batch: LocationBatch
        do throws(LocationBatchCodecError) {
            batch = try LocationBatchCodec.decode(bytes)
        } catch {
            throw error.apiError
        }
        try batch.validate()
        return batch
    }
}
