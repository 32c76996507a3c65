/// Why bytes could not be read as an OpenStreetMap PBF file; every malformed input ends in one of these.
public struct PBFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case truncated, malformedVarint, unsupportedWireType, blobHeaderTooLarge, blobTooLarge,
                unsupportedCompression, decompressionFailed, missingField, invalidField, unsupportedFeature
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The input ended inside `what`, whose length field or start is at `offset`.
        public static let truncated = Code(.truncated)
        /// A varint ran past ten bytes or past the end of its message.
        public static let malformedVarint = Code(.malformedVarint)
        /// A protobuf field used a wire type this format never uses (groups, or 6 and 7).
        public static let unsupportedWireType = Code(.unsupportedWireType)
        /// A blob header declared a size that is negative or above the spec's 64 KiB limit.
        public static let blobHeaderTooLarge = Code(.blobHeaderTooLarge)
        /// A blob (or its uncompressed content) declared a size that is negative or above the spec's 32 MiB limit.
        public static let blobTooLarge = Code(.blobTooLarge)
        /// The blob is compressed with something other than zlib (lzma, lz4, zstd, bzip2).
        public static let unsupportedCompression = Code(.unsupportedCompression)
        /// zlib refused the data, or it did not inflate to the declared size.
        public static let decompressionFailed = Code(.decompressionFailed)
        /// A required field was absent.
        public static let missingField = Code(.missingField)
        /// A field held a value the format forbids (a string index past the table, mismatched array lengths).
        public static let invalidField = Code(.invalidField)
        /// The header requires a feature this reader does not implement.
        public static let unsupportedFeature = Code(.unsupportedFeature)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A one-line explanation for logs.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The input ended inside `what`, whose length field or start is at `offset`.
    public static func truncated(offset: Int, what: String) -> PBFError {
        PBFError(.truncated, "PBF truncated at offset \(offset) inside \(what)")
    }

    /// A varint ran past ten bytes or past the end of its message.
    public static func malformedVarint(offset: Int) -> PBFError {
        PBFError(.malformedVarint, "malformed varint at offset \(offset)")
    }

    /// A protobuf field used a wire type this format never uses (groups, or 6 and 7).
    public static func unsupportedWireType(_ type: Int, offset: Int) -> PBFError {
        PBFError(.unsupportedWireType, "unsupported wire type \(type) at offset \(offset)")
    }

    /// A blob header declared a size that is negative or above the spec's 64 KiB limit.
    public static func blobHeaderTooLarge(_ size: Int) -> PBFError {
        PBFError(.blobHeaderTooLarge, "blob header size \(size) outside 0...65536")
    }

    /// A blob (or its uncompressed content) declared a size that is negative or above the spec's 32 MiB limit.
    public static func blobTooLarge(_ size: Int) -> PBFError {
        PBFError(.blobTooLarge, "blob size \(size) outside 0...33554432")
    }

    /// The blob is compressed with something other than zlib (lzma, lz4, zstd, bzip2).
    public static func unsupportedCompression(_ kind: String) -> PBFError {
        PBFError(.unsupportedCompression, "unsupported blob compression \(kind)")
    }

    /// zlib refused the data, or it did not inflate to the declared size.
    public static func decompressionFailed(_ reason: String) -> PBFError {
        PBFError(.decompressionFailed, "zlib: \(reason)")
    }

    /// A required field was absent.
    public static func missingField(_ name: String) -> PBFError {
        PBFError(.missingField, "missing required field \(name)")
    }

    /// A field held a value the format forbids (a string index past the table, mismatched array lengths).
    public static func invalidField(_ reason: String) -> PBFError {
        PBFError(.invalidField, "invalid field: \(reason)")
    }

    /// The header requires a feature this reader does not implement.
    public static func unsupportedFeature(_ name: String) -> PBFError {
        PBFError(.unsupportedFeature, "unsupported required feature \(name)")
    }
}
