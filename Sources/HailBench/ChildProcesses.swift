import Foundation
import Synchronization

/// The `hail server` children a benchmark started, so an interrupted benchmark (Ctrl-C, SIGTERM) takes
/// them down with it instead of leaving servers holding thousands of sockets.
enum ChildProcesses {
    private static let running = Mutex(Set<Int32>())
    private static let sources = Mutex([any DispatchSourceSignal]())

    /// Remembers a started child.
    static func started(_ pid: Int32) { _ = running.withLock { $0.insert(pid) } }

    /// Forgets a stopped child.
    static func stopped(_ pid: Int32) { _ = running.withLock { $0.remove(pid) } }

    /// On SIGINT or SIGTERM: kill every remembered child, then exit with 128 + the signal.
    static func stopOnInterrupt() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    for pid in running.withLock({ $0 }) { kill(pid, SIGKILL) }
                    exit(128 + number)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
