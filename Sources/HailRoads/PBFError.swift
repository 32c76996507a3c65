/// Why bytes could not be read as an OpenStreetMap PBF file; every malformed input ends in one of these.
public enum PBFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input ended inside `what`, whose length field or start is at `offset`.
    case truncated(offset: Int, what: String)
    /// A varint ran past ten bytes or past the end of its message.
    case malformedVarint(offset: Int)
    /// A protobuf field used a wire type this format never uses (groups, or 6 and 7).
    case unsupportedWireType(Int, offset: Int)
    /// A blob header declared a size that is negative or above the spec's 64 KiB limit.
    case blobHeaderTooLarge(Int)
    /// A blob (or its uncompressed content) declared a size that is negative or above the spec's 32 MiB limit.
    case blobTooLarge(Int)
    /// The blob is compressed with something other than zlib (lzma, lz4, zstd, bzip2).
    case unsupportedCompression(String)
    /// zlib refused the data, or it did not inflate to the declared size.
    case decompressionFailed(String)
    /// A required field was absent.
    case missingField(String)
    /// A field held a value the format forbids (a string index past the table, mismatched array lengths).
    case invalidField(String)
    /// The header requires a feature this reader does not implement.
    case unsupportedFeature(String)

    /// A one-line explanation for logs.
    public var description: String {
        switch self {
        case .truncated(let offset, let what): "PBF truncated at offset \(offset) inside \(what)"
        case .malformedVarint(let offset): "malformed varint at offset \(offset)"
        case .unsupportedWireType(let type, let offset): "unsupported wire type \(type) at offset \(offset)"
        case .blobHeaderTooLarge(let size): "blob header size \(size) outside 0...65536"
        case .blobTooLarge(let size): "blob size \(size) outside 0...33554432"
        case .unsupportedCompression(let kind): "unsupported blob compression \(kind)"
        case .decompressionFailed(let reason): "zlib: \(reason)"
        case .missingField(let name): "missing required field \(name)"
        case .invalidField(let reason): "invalid field: \(reason)"
        case .unsupportedFeature(let name): "unsupported required feature \(name)"
        }
    }
}
