import Testing

@Test func simPlaceholder() { #expect(Bool(true)) }
