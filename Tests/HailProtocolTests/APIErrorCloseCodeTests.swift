import HailProtocol
import Testing

/// Which close code a WebSocket gets when the server refuses its upgrade or cannot take one of its frames.
@Suite("An API error as a WebSocket close code")
struct APIErrorCloseCodeTests {
    @Test(arguments: [
        (APIError.Code.unauthorized, UInt16(4001), false),
        (.forbidden, 4003, false),
        (.notFound, 4004, false),
        (.rateLimited, 4029, true),
        (.invalidField, 4008, true),
        (.invalidJSON, 4008, true),
        (.invalidState, 4008, true),
        (.unavailable, 4013, true),
        (.internal, 1011, true),
    ])
    func eachErrorClosesWithItsCode(code: APIError.Code, closeCode: UInt16, reconnects: Bool) {
        let close = APIError(code: code, message: "m").closeCode
        #expect(close.rawValue == closeCode)
        #expect(close.shouldReconnect == reconnects)
    }

    @Test func storageUnavailableSaysToTryAgainLater() {
        #expect(APIError(code: .unavailable, message: "storage").closeCode.description == "4013 try again later")
    }
}
