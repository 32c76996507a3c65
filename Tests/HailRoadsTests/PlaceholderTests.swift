import Testing

@Test func roadsPlaceholder() { #expect(Bool(true)) }
