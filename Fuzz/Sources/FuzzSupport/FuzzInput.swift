/// The bytes libFuzzer passes to `LLVMFuzzerTestOneInput`.
public enum FuzzInput {
    /// A copy of the input as an array.
    public static func bytes(_ data: UnsafeRawPointer, _ size: Int) -> [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: data, count: size))
    }

    /// `bytes` split at every occurrence of `separator` (which is not part of any piece).
    public static func split(_ bytes: ArraySlice<UInt8>, separator: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces = [ArraySlice<UInt8>]()
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index + separator.count <= bytes.endIndex {
            if bytes[index..<index + separator.count].elementsEqual(separator) {
                pieces.append(bytes[start..<index])
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(bytes[start..<bytes.endIndex])
        return pieces
    }
}
