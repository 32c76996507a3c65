import HailProtocol
import Testing

@Test func apiVersionIsV1() {
    #expect(HailProtocolVersion.api == "v1")
}
