import Testing

@Test func riderPlaceholder() { #expect(Bool(true)) }
