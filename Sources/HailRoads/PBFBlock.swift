/// One block of a PBF file: its type (`OSMHeader`, `OSMData`) and its uncompressed content.
public struct PBFBlock: Sendable, Hashable {
    /// The `BlobHeader.type`.
    public var type: String
    /// The serialized `HeaderBlock` or `PrimitiveBlock`.
    public var content: [UInt8]
}
