import Testing

@Test func scalePlaceholder() { #expect(Bool(true)) }
