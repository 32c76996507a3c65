import Foundation
import HailProtocol
import Testing

/// The operator's fleet view reads an optional centre from its query: a value that is there must be a number on
/// Earth, and the refusal names the field that is wrong.
@Suite("Fleet query over loopback", .serialized)
struct FleetQueryTests {
    @Test func aCentreThatIsNotANumberIsRefusedNamingItsField() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.stop() } }
        let token = server.token(.operator, "ops-1")
        let cases: [(query: String, status: Int, field: String?)] = [
            ("", 200, nil),
            ("lat=0.0", 200, nil),
            ("lat=0.0&lng=null", 400, "lng"),
            ("lat=abc&lng=7.4", 400, "lat"),
            ("lng=abc", 400, "lng"),
            ("lat=91&lng=7.4", 400, "lat"),
        ]
        for (query, status, field) in cases {
            let answer = try await server.http("GET", "/v1/fleet?\(query)", token: token)
            #expect(answer.status == status, "\(query)")
            if let field {
                let body = try HailJSON.decode(ErrorBody.self, from: answer.body)
                #expect(body.error.field == field, "\(query)")
            }
        }
    }
}
