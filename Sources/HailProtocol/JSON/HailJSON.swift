import Foundation

/// The JSON encoder and decoder configured for the wire: camelCase keys as declared, RFC 3339
/// millisecond dates, URLs without escaped slashes, and non-finite numbers refused.
///
/// Every call makes its own `JSONEncoder` or `JSONDecoder`, so nothing is shared between threads.
public enum HailJSON {
    /// An encoder for the wire. `sortedKeys` makes the bytes deterministic, for comparisons and caches.
    public static func makeEncoder(sortedKeys: Bool = true) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let text: String
            do throws(WireDateError) {
                text = try WireDate.format(date)
            } catch {
                throw EncodingError.invalidValue(
                    date, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: error.description))
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        encoder.nonConformingFloatEncodingStrategy = .throw
        return encoder
    }

    /// A decoder for the wire that accepts any RFC 3339 date-time and nothing else as a date.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            do throws(WireDateError) {
                return try WireDate.parse(text)
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
            }
        }
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }

    /// The wire JSON of `value`, with sorted keys unless asked otherwise.
    public static func encode<T: Encodable>(_ value: T, sortedKeys: Bool = true) throws(EncodingError) -> Data {
        do {
            return try makeEncoder(sortedKeys: sortedKeys).encode(value)
        } catch let error as EncodingError {
            throw error
        } catch {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "\(error)"))
        }
    }

    /// `value`'s wire JSON as a UTF-8 string, sorted keys: for text WebSocket frames and logs.
    public static func encodeString<T: Encodable>(_ value: T) throws(EncodingError) -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }

    /// Decodes `type` from wire JSON, with Foundation's `DecodingError` (see `WireDecoder` for `APIError`s).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(DecodingError) -> T {
        do {
            return try makeDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "\(error)", underlyingError: error))
        }
    }
}
