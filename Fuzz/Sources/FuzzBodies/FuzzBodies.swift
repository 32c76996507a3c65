import Foundation
import FuzzSupport
import HailCore
import HailProtocol

/// libFuzzer's entry point. The first byte picks what the rest is read as (`0`...`9` and `:` in the corpus):
/// the body of each route that has one, the driver's JSON frame, or the binary location batch.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBodies(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let selector = bytes.first else { return 0 }
    let body = Data(bytes.dropFirst())
    // The corpus spells the selector as an ASCII digit.
    switch (selector &- UInt8(ascii: "0")) % 11 {
    case 0: BodyCheck.json(EstimateRequest.self, body)
    case 1: BodyCheck.json(TripRequest.self, body)
    case 2: BodyCheck.json(CancelRequest.self, body)
    case 3: BodyCheck.json(DriverStatusRequest.self, body)
    case 4: BodyCheck.json(LocationBatch.self, body)
    case 5: BodyCheck.json(TripEventRequest.self, body)
    case 6: BodyCheck.json(DriverClientFrame.self, body)
    case 8: BodyCheck.json(DeviceRegistration.self, body)
    case 9: BodyCheck.json(LiveActivityRegistration.self, body)
    case 10: BodyCheck.json(TelemetryBatch.self, body)
    default: BodyCheck.binaryBatch(body)
    }
    return 0
}

/// What every body decoder promises beyond not crashing.
enum BodyCheck {
    /// Bad bytes are a 400 or 413 naming the problem. A body that passes, once written back by the
    /// server's encoder, reads again to a value that writes the same way (one rounding step at most).
    static func json<T: Codable & Hashable & Validatable>(_ type: T.Type, _ body: Data) {
        let value: T
        do throws(APIError) {
            value = try WireDecoder.decodeRequest(type, from: body)
        } catch {
            FuzzInvariant.require([400, 413].contains(error.httpStatus), "\(T.self) body refused with \(error)")
            return
        }
        guard let first = try? HailJSON.encode(value) else { return }
        let again: T
        do throws(APIError) {
            again = try WireDecoder.decodeRequest(type, from: first)
        } catch {
            FuzzInvariant.require(
                false, "\(T.self) \(String(decoding: first, as: UTF8.self)) no longer reads: \(error)")
            return
        }
        let second = try? HailJSON.encode(again)
        FuzzInvariant.require(
            second == first,
            "\(T.self) changed on a second round trip: \(String(decoding: first, as: UTF8.self))")
    }

    /// The codec's documented round trip: every input it accepts encodes back to the same bytes.
    static func binaryBatch(_ body: Data) {
        do throws(APIError) {
            _ = try WireDecoder.decodeLocationBatch(binary: body)
        } catch {
            FuzzInvariant.require(error.httpStatus == 400, "binary batch refused with \(error)")
        }
        guard let batch = try? LocationBatchCodec.decode(body) else { return }
        let encoded = try? LocationBatchCodec.encode(batch)
        FuzzInvariant.require(
            encoded == body, "binary batch \(Array(body)) re-encodes as \(encoded.map(Array.init) ?? [])")
    }
}
