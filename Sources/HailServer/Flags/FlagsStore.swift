import Foundation
import Synchronization

/// The flags in force, and their reload: the runtime around the pure `Flags`.
///
/// `hail server --flags FILE` reads the file at start (a bad one stops the start with every problem), and again
/// on SIGHUP: a file that passes the same checks replaces the flags at once, for every request and position
/// from then on; a bad one changes nothing, and the reload says why. Each reload is counted on `/metrics`
/// (`hail_flags_reloads_total{result}`, `hail_flags_last_reload_successful`,
/// `hail_flags_last_reload_success_timestamp_seconds`).
public final class FlagsStore: Sendable {
    /// Where the flags come from.
    public let setting: FlagsSetting
    /// The route providers this server has, which a file's `routeProvider` must name.
    public let providers: [String]
    /// The route provider of a file that sets none.
    public let defaultRouteProvider: String
    private let flags: Mutex<Flags>
    private let metrics: ServerMetrics?
    private let now: @Sendable () -> Date

    /// The store for `setting`, read now; when the setting cannot be read the flags are the defaults and the
    /// error says why (`hail server` checks the file before it starts, so it never serves with that).
    public static func load(
        _ setting: FlagsSetting, providers: [String], defaultRouteProvider: String, metrics: ServerMetrics? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> (store: FlagsStore, error: FlagsFileError?) {
        var error: FlagsFileError?
        var flags = Flags(routeProvider: defaultRouteProvider)
        do {
            flags = try read(setting, providers: providers, routeProvider: defaultRouteProvider)
        } catch let problem {
            error = problem
        }
        let store = FlagsStore(
            setting: setting, flags: flags, providers: providers, defaultRouteProvider: defaultRouteProvider,
            metrics: metrics, now: now)
        metrics?.flagsLoaded(successfully: error == nil, cohorts: flags.cohorts.count, at: now())
        return (store, error)
    }

    private init(
        setting: FlagsSetting, flags: Flags, providers: [String], defaultRouteProvider: String,
        metrics: ServerMetrics?, now: @escaping @Sendable () -> Date
    ) {
        self.setting = setting
        self.flags = Mutex(flags)
        self.providers = providers
        self.defaultRouteProvider = defaultRouteProvider
        self.metrics = metrics
        self.now = now
    }

    /// The flags in force now.
    public var current: Flags { flags.withLock { $0 } }

    /// Reads the setting again: new flags replace the ones in force, or a bad file keeps them and is thrown.
    @discardableResult
    public func reload() throws(FlagsFileError) -> Flags {
        guard case .file = setting else {
            throw FlagsFileError(
                path: "",
                problems: [
                    FlagsProblem(
                        line: nil, field: "",
                        message: "there is no flags file to read again (start hail server with --flags FILE)")
                ])
        }
        let fresh: Flags
        do {
            fresh = try Self.read(setting, providers: providers, routeProvider: defaultRouteProvider)
        } catch {
            metrics?.flagsReloaded(successfully: false, cohorts: current.cohorts.count, at: now())
            throw error
        }
        flags.withLock { $0 = fresh }
        metrics?.flagsReloaded(successfully: true, cohorts: fresh.cohorts.count, at: now())
        return fresh
    }

    /// The flags `setting` holds, checked against `providers`.
    public static func read(_ setting: FlagsSetting, providers: [String], routeProvider: String) throws(FlagsFileError)
        -> Flags
    {
        switch setting {
        case .none:
            return Flags(routeProvider: routeProvider)
        case .text(let text):
            return try Flags.parse(Array(text.utf8), path: "(text)", providers: providers, routeProvider: routeProvider)
        case .file(let path):
            func unreadable(_ why: String) -> FlagsFileError {
                FlagsFileError(path: path, problems: [FlagsProblem(line: nil, field: "", message: why)])
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw unreadable("there is no such file")
            }
            guard !isFolder.boolValue else { throw unreadable("is a folder, not a file") }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard size <= Flags.maximumFileBytes else {
                throw unreadable("the file is over \(Flags.maximumFileBytes) bytes")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw unreadable("cannot be read (check its permissions)")
            }
            return try Flags.parse(Array(data), path: path, providers: providers, routeProvider: routeProvider)
        }
    }
}
