import Foundation
import HaraldSimulator

/// Prints lines prefixed with the virtual time.
struct DemoPrinter: Sendable {
    let clock: VirtualClock

    func callAsFunction(_ line: String) {
        let elapsed = clock.now.sinceStart
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        print(String(format: "[t+%6lld.%03lld s] ", milliseconds / 1000, milliseconds % 1000) + line)
    }
}
