import CZlib

/// Inflates zlib-compressed PBF blobs with the system zlib; no C type leaves this file.
enum Zlib {
    /// The `size` bytes that `compressed` inflates to, or an error if zlib refuses it or the size differs.
    static func inflate(_ compressed: ArraySlice<UInt8>, expectedSize size: Int) throws(PBFError) -> [UInt8] {
        guard size > 0 else {
            if compressed.isEmpty { return [] }
            throw PBFError.decompressionFailed("declared raw_size 0 for non-empty data")
        }
        var output = [UInt8](repeating: 0, count: size)
        var outputLength = uLongf(size)
        let status = output.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { input in
                // One-shot uncompress: raw_size bounds the output buffer, so hostile data cannot overrun it.
                uncompress(out.baseAddress, &outputLength, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK else {
            let reason =
                switch status {
                case Z_BUF_ERROR: "data inflates past the declared raw_size \(size) or is incomplete"
                case Z_DATA_ERROR: "corrupt deflate stream"
                case Z_MEM_ERROR: "out of memory"
                default: "status \(status)"
                }
            throw PBFError.decompressionFailed(reason)
        }
        guard Int(outputLength) == size else {
            throw PBFError.decompressionFailed("inflated \(outputLength) bytes, raw_size said \(size)")
        }
        return output
    }
}
