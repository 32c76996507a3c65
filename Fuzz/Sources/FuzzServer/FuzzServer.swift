import Foundation
import FuzzSupport
import HailProtocol
import HailServer

private let rotation = ServerRotation(inputsPerServer: 500)
/// `HAIL_FUZZ_VERBOSE=1` prints every step's answer, for checking that a seed does what it means to.
private let verbose = ProcessInfo.processInfo.environment["HAIL_FUZZ_VERBOSE"] != nil

/// libFuzzer's entry point: one `ServerScript` against the in-process server, as a client of its own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServer(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    runBlocking {
        let (server, input) = await rotation.next()
        // Minting costs a few HMACs, so only inputs that name a placeholder pay for it.
        let placeholders = bytes.contains(UInt8(ascii: "$")) ? server.placeholders(forInput: input) : []
        let steps = ServerScript.parse(bytes, placeholders: placeholders)
        for step in steps { await ScriptRunner.perform(step, on: server) }
    }
    return 0
}

/// Plays script steps and checks what a client is promised about bad input.
enum ScriptRunner {
    static func perform(_ step: ServerScript.Step, on server: InProcessServer) async {
        switch step {
        case .request(let request):
            let response = await server.api.handle(request)
            if verbose {
                print(
                    "\(request.method) \(request.target.prefix(60)) -> \(response.status) \(String(decoding: response.body.prefix(160), as: UTF8.self))"
                )
            }
            check(response, for: request)
        case .session(let request, let frames):
            await session(request, frames: frames, on: server)
        case .advance(let seconds):
            server.clock.advance(by: .milliseconds(Int64(seconds * 1000)))
        }
    }

    /// Every answer is below 500 (the memory stores never fail) but the 501 for a method token that is no HTTP
    /// method, every API error is the documented JSON body with the status its code stands for, and every JSON
    /// success is JSON. Pages a person opens (the share page) refuse with an HTML page saying why instead.
    static func check(_ response: APIResponse, for request: APIRequest) {
        let line = "\(request.method) \(request.target)"
        let unknownMethod = !HTTPMethod.standard.contains(HTTPMethod(rawValue: request.method))
        FuzzInvariant.require(
            (200..<500).contains(response.status) || (unknownMethod && response.status == 501),
            "\(line) answered \(response.status)")
        let isPage = response.headers[HailHeader.contentType]?.hasPrefix("text/html") == true
        if response.status >= 400, isPage {
            FuzzInvariant.require(!response.body.isEmpty, "\(line): a \(response.status) page with nothing on it")
        } else if response.status >= 400 {
            let body = try? HailJSON.decode(ErrorBody.self, from: response.body)
            FuzzInvariant.require(body != nil, "\(line): a \(response.status) without an error body")
            FuzzInvariant.require(
                body?.error.httpStatus == response.status,
                "\(line): \(response.status) carries code \(body?.error.code.rawValue ?? "?")")
        } else if response.headers[HailHeader.contentType] == HailMediaType.json {
            FuzzInvariant.require(
                (try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])) != nil,
                "\(line): a \(response.status) whose JSON body does not parse")
        }
    }

    /// A refused upgrade is an `APIError` (its close code); an accepted one runs to the end of the frames.
    /// Every frame the server sends is a JSON object with a `type`, and a close reason fits a close frame.
    static func session(_ request: APIRequest, frames: [LiveInbound], on server: InProcessServer) async {
        let plan: LiveStreams.Plan
        do throws(APIError) {
            plan = try await server.streams.plan(
                method: request.method, target: request.target, headers: request.headers)
        } catch {
            if verbose { print("upgrade \(request.target.prefix(60)) refused: \(error)") }
            FuzzInvariant.require(
                (400..<500).contains(error.httpStatus), "upgrade \(request.target) refused with \(error)")
            return
        }
        let connection = RecordingConnection(frames: frames)
        await server.streams.run(plan, on: connection)
        let record = connection.recorded
        if verbose {
            print(
                "upgrade \(request.target.prefix(60)): sent \(record.sent.map(\.text)), closed \(String(describing: record.closed))"
            )
        }
        for message in record.sent {
            let object = try? JSONSerialization.jsonObject(with: Data(message.text.utf8)) as? [String: Any]
            FuzzInvariant.require(object?["type"] is String, "sent a frame without a type: \(message.text)")
        }
        if let closed = record.closed {
            FuzzInvariant.require(closed.reason.utf8.count <= 123, "close reason of \(closed.reason.utf8.count) bytes")
        }
    }
}
