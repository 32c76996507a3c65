import Foundation
import HailAPNs
import HailProtocol
import HailServer

extension ServerCommand {
    /// The APNs flags, all or none of the four required ones.
    static let apnsOptions = [
        "--apns-key-file", "--apns-key-id", "--apns-team-id", "--apns-topic", "--apns-host", "--apns-ca-file",
    ]

    /// Reads the `--apns-*` flags into `configuration.pushSender`, loading the key now so a missing or unusable
    /// key stops the start-up instead of silently losing every push; returns a line for the start-up message,
    /// or nil when APNs is not configured.
    static func configureAPNs(_ configuration: inout ServerConfiguration, _ args: Arguments) throws(UsageError)
        -> String?
    {
        guard apnsOptions.contains(where: { args[$0] != nil }) else { return nil }
        let required = ["--apns-key-file", "--apns-key-id", "--apns-team-id", "--apns-topic"]
        let missing = required.filter { args[$0]?.isEmpty ?? true }
        guard missing.isEmpty else {
            throw UsageError(
                "APNs needs \(required.joined(separator: ", ")); missing \(missing.joined(separator: ", "))")
        }
        let keyPath = args["--apns-key-file"]!
        let key: APNsSigningKey
        do {
            key = try APNsSigningKey.load(path: keyPath)
        } catch {
            throw UsageError("--apns-key-file: \(error.message)")
        }
        for flag in ["--apns-key-id", "--apns-team-id"] {
            let value = args[flag]!
            guard value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw UsageError("\(flag) takes the ten letters and digits Apple shows for it, not '\(value)'")
            }
        }
        let topic = args["--apns-topic"]!
        do throws(APIError) {
            try PushTokenFormat.checkBundleID(topic, at: "--apns-topic")
        } catch {
            throw UsageError("--apns-topic takes the app's bundle id (com.example.rider), not '\(topic)'")
        }
        let host = args["--apns-host"]
        if let host, host.isEmpty || host.contains("/") {
            throw UsageError("--apns-host takes HOST or HOST:PORT, not '\(host)'")
        }
        let caFile = args["--apns-ca-file"]
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw UsageError("--apns-ca-file: there is no readable file '\(caFile)'")
        }
        configuration.pushSender = APNsPushSender.factory(
            APNsPushSender.Configuration(
                key: key, keyID: args["--apns-key-id"]!, teamID: args["--apns-team-id"]!, topic: topic, host: host,
                caFile: caFile))
        let hosts =
            host
            ?? "\(APNsPushSender.Configuration.productionHost), sandbox tokens to "
            + APNsPushSender.Configuration.sandboxHost
        return
            "Pushing to APNs as team \(args["--apns-team-id"]!), key \(args["--apns-key-id"]!), for \(topic) (\(hosts))."
    }
}
