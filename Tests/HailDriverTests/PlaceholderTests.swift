import Testing

@Test func driverPlaceholder() { #expect(Bool(true)) }
