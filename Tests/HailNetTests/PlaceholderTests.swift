import Testing

@Test func netPlaceholder() { #expect(Bool(true)) }
