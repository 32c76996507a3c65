import Testing

@Test func storagePlaceholder() { #expect(Bool(true)) }
