// The availability check's fixture (scripts/availability.py --self-test, floors iOS 17 and macOS 14): the line
// after each run of `// expect:` lines must be reported for exactly those names and platforms, and nothing else
// in this file may be.
import Synchronization

public func planted(_ bytes: [UInt8]) -> String? {
    // expect: Synchronization.Mutex iOS
    // expect: Synchronization.Mutex macOS
    // expect: Synchronization.Mutex.init(_:) iOS
    // expect: Synchronization.Mutex.init(_:) macOS
    let counter = Mutex(0)
    // expect: Synchronization.Mutex iOS
    // expect: Synchronization.Mutex macOS
    // expect: Synchronization.Mutex.withLock(_:) iOS
    // expect: Synchronization.Mutex.withLock(_:) macOS
    counter.withLock { $0 += 1 }
    // expect: Swift.String.init(validating:as:) iOS
    // expect: Swift.String.init(validating:as:) macOS
    return String(validating: bytes, as: UTF8.self)
}

// A type named only in a signature is a use too.
// expect: Synchronization.Atomic iOS
// expect: Synchronization.Atomic macOS
public func typeOnly(_ counter: borrowing Atomic<Int>) {}

public func guardedByIf(_ bytes: [UInt8]) -> String? {
    if #available(iOS 18, macOS 15, *) {
        return String(validating: bytes, as: UTF8.self)
    }
    return nil
}

public func guardedByGuard(_ bytes: [UInt8]) -> String? {
    guard #available(iOS 18, macOS 15, *) else { return nil }
    return String(validating: bytes, as: UTF8.self)
}

public func guardedForIOSOnly(_ bytes: [UInt8]) -> String? {
    if #available(iOS 18, *) {
        // expect: Swift.String.init(validating:as:) macOS
        return String(validating: bytes, as: UTF8.self)
    }
    return nil
}

@available(iOS 18, macOS 15, *)
public final class Annotated {
    let counter = Mutex(0)
}

// `for await` is the compiler's to lower (`next()` before iOS 18), and UInt64 has an `&*` older than
// FixedWidthInteger's iOS 18 requirement of that name: neither is reported.
public func desugared(_ numbers: AsyncStream<UInt64>) async -> UInt64 {
    var product: UInt64 = 1
    for await number in numbers { product = product &* number }
    return product
}
