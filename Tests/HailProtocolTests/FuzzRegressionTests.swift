import Foundation
import HailProtocol
import Testing

/// Inputs the fuzzers in `Fuzz/` found breaking a parser, kept so the fix stays fixed. Each test names
/// the fuzzer and the property it checks; `docs/SECURITY.md` ("Fuzzing") says how a crash becomes one.
@Suite struct FuzzRegressions {
    /// FuzzRoutes: an `X-Hail-Client` value with a tab after the app name named the app with the tab
    /// in it, and the header it wrote back read as another app (the cohort lookup would miss it).
    static let clientHeaderWithTab: [UInt8] = [
        0x47, 0xCF, 0xCF, 0xCF, 0xCF, 0xCF, 0xCF, 0xCF, 0xCF, 0xCF, 0xCF, 0x45, 0x54, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0x09, 0x20, 0x2F, 0x73, 0x68, 0x61, 0x72, 0x65, 0x2F, 0x68, 0x61, 0x69, 0x6C, 0x31, 0x2E, 0x65,
        0x79, 0x4A, 0x39, 0x2E, 0x73, 0x69, 0x67, 0x3F, 0x61, 0x2E, 0x39, 0x39, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x39, 0x5A,
    ]

    @Test func clientHeaderFoundByFuzzerReadsBackTheSame() throws {
        let header = String(decoding: Self.clientHeaderWithTab, as: UTF8.self)
        let client = try #require(ClientInfo(headerValue: header))
        #expect(!client.app.contains("\t"))
        #expect(client.version == nil)
        #expect(ClientInfo(headerValue: client.headerValue) == client)
    }

    @Test(arguments: [
        ("hail-rider\t/1.4.0", "hail-rider", nil as String?),
        ("hail-rider/1.4.0\tbuild-7 (iPhone15,2)", "hail-rider", "1.4.0" as String?),
        ("hail-driver/2.0.1\t\t(Pixel 8)", "hail-driver", "2.0.1"),
    ])
    func tabEndsTheProductLikeASpace(header: String, app: String, version: String?) {
        let client = ClientInfo(headerValue: header)
        #expect(client?.app == app)
        #expect(client?.version == version)
        #expect(client.flatMap { ClientInfo(headerValue: $0.headerValue) } == client)
    }

    /// FuzzRoutes: an `X-Hail-Client` value whose device model began with a combining mark after the space that
    /// follows "(" (U+0489): the space was trimmed, the header written back put the mark right after "(", the two
    /// made one character, and the model read back as none.
    static let clientModelStartingWithACombiningMark: [UInt8] = [
        0x54, 0x20, 0x28, 0x20, 0xD2, 0x89, 0xCE, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0x76, 0x61, 0x63, 0x63, 0x73, 0x5F, 0x3A, 0x6F, 0x2F,
    ]

    @Test func aDeviceModelStartingWithACombiningMarkReadsBackTheSame() throws {
        let header = String(decoding: Self.clientModelStartingWithACombiningMark, as: UTF8.self)
        let client = try #require(ClientInfo(headerValue: header))
        #expect(client.app == "T")
        #expect(client.version == nil)
        #expect(client.deviceModel?.unicodeScalars.first == "\u{0489}")
        #expect(client.headerValue.hasPrefix("T (\u{0489}"))
        #expect(ClientInfo(headerValue: client.headerValue) == client)
    }
}
