/// The properties a fuzzer checks beyond "does not crash": a violation stops the run like a crash, so
/// libFuzzer saves the input that broke it.
public enum FuzzInvariant {
    /// Traps with `message` when `condition` is false.
    public static func require(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #file,
        line: UInt = #line
    ) {
        if !condition() { fatalError("fuzz invariant violated: \(message())", file: file, line: line) }
    }
}
