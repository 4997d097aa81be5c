#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The Bumble scenario peer's control socket (scripts/bumble/scenario_peer.py): JSON objects, one
/// per line, each request answered by one line. The blocking socket calls run on a private
/// serial queue, never on the concurrency pool's threads.
final class ScenarioControlChannel: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` and `buffer` are only touched on `queue`, which runs one
    // request at a time.
    private let queue = DispatchQueue(label: "harald.scenario-control")
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []
    private let port: UInt16

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A channel to 127.0.0.1:`port` (connected on first use).
    init(port: UInt16) { self.port = port }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Sends `request` and returns the peer's answer; throws when the answer has `"ok": false`.
    func send(_ request: [String: Any]) async throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: request) + Data([0x0A])
        let answer: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do { continuation.resume(returning: try self.exchange(Array(line))) } catch { continuation.resume(throwing: error) }
            }
        }
        guard let object = try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any] else {
            throw Failure(description: "unreadable answer \(String(decoding: answer, as: UTF8.self))")
        }
        guard object["ok"] as? Bool == true else { throw Failure(description: "peer refused \(request): \(object["error"] ?? "?")") }
        return object
    }

    /// On `queue`: writes one line and reads one line back.
    private func exchange(_ line: [UInt8]) throws -> [UInt8] {
        if descriptor < 0 { try open() }
        var sent = 0
        while sent < line.count {
            let count = line[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "control socket write failed (errno \(errno))") }
            sent += count
        }
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let answer = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                return answer
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "control socket closed (errno \(errno))") }
            buffer += chunk[..<count]
        }
    }

    private func open() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed (errno \(errno))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            throw Failure(description: "cannot reach the scenario peer's control port \(port) (errno \(errno))")
        }
        descriptor = fd
    }
}
