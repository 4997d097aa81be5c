#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HaraldCodec
import HaraldTestSupport
import Testing

@testable import HaraldHCI

/// A one-client TCP server on 127.0.0.1 (an ephemeral port) for transport tests.
final class LoopbackServer: @unchecked Sendable {
    // Safety: `listener` and `port` are set in init and never change; `client` is written once by
    // `accept()` before any other method uses it, and tests call these methods sequentially.
    let listener: Int32
    let port: UInt16
    var client: Int32 = -1

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { throw HCITransportError.io(operation: "listen", errno: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    func accept() {
        client = Glibc.accept(listener, nil, nil)
    }

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func read(count: Int) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while result.count < count {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, count - result.count, 0) }
            if n <= 0 { break }
            result += buffer[0..<n]
        }
        return result
    }

    /// Closes the accepted socket once (a second close could hit a descriptor reused by a
    /// concurrently running test).
    func closeClient() {
        if client >= 0 { _ = Glibc.close(client) }
        client = -1
    }

    deinit {
        _ = Glibc.close(listener)
        if client >= 0 { _ = Glibc.close(client) }
    }
}

@Suite("TCP transport over loopback")
struct TCPTransportTests {
    @Test func packetsSplitAcrossWritesArriveWholeAndSendsArriveFramed() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port)
        server.accept()
        try await transport.send(HCIPacket(type: .command, payload: [0x03, 0x0C, 0x00]))
        #expect(server.read(count: 4) == [0x01, 0x03, 0x0C, 0x00])
        server.write([0x04, 0x0E, 0x04])
        server.write([0x01, 0x03, 0x0C, 0x00, 0x04, 0x13])
        server.write([0x05, 0x01, 0x01, 0x00, 0x01, 0x00])
        var iterator = transport.packets.makeAsyncIterator()
        #expect(try await iterator.next() == HCIPacket(type: .event, payload: bytes("0e0401030c00")))
        #expect(try await iterator.next() == HCIPacket(type: .event, payload: bytes("13050101000100")))
        await transport.close()
        #expect(try await iterator.next() == nil)
    }

    @Test func controllerGoingAwayEndsTheStreamWithClosed() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port)
        server.accept()
        server.closeClient()
        await #expect(throws: HCITransportError.closed) {
            for try await _ in transport.packets {}
        }
    }

    @Test func garbageFromTheControllerEndsTheStreamWithATypedError() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port)
        server.accept()
        server.write([0x09, 0x00])
        await #expect(throws: HCITransportError.invalidPacketIndicator(0x09, offset: 0)) {
            for try await _ in transport.packets {}
        }
    }

    @Test func sendAfterCloseThrowsClosedAndCloseTwiceIsHarmless() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port)
        server.accept()
        await transport.close()
        await transport.close()
        await #expect(throws: HCITransportError.closed) {
            try await transport.send(HCIPacket(type: .command, payload: [0x03, 0x0C, 0x00]))
        }
    }
}

@Suite("TCP transport: the backlog of packets waiting for the host is bounded")
struct TCPTransportBacklogTests {
    @Test func aControllerFasterThanTheHostFillsTheBacklogToItsCapacityAndNoFurther() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port, backlogCapacity: 8)
        server.accept()
        // 100 Number Of Completed Packets events, numbered by their count, nobody reading yet.
        let events = (0..<100).map { n in [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, UInt8(n), 0x00] as [UInt8] }
        server.write(events.flatMap { $0 })
        #expect(await eventually(1_000_000) { transport.waitingPackets == 8 })
        #expect(transport.waitingPackets == 8)
        await transport.close()
    }

    @Test func packetsHeldBackByAFullBacklogArriveLaterInOrderNoneDropped() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port, backlogCapacity: 8)
        server.accept()
        let events = (0..<100).map { n in [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, UInt8(n), 0x00] as [UInt8] }
        server.write(events.flatMap { $0 })
        #expect(await eventually(1_000_000) { transport.waitingPackets == 8 })
        var iterator = transport.packets.makeAsyncIterator()
        for n in 0..<100 {
            #expect(try await iterator.next() == HCIPacket(type: .event, payload: [0x13, 0x05, 0x01, 0x40, 0x00, UInt8(n), 0x00]))
        }
        await transport.close()
        #expect(try await iterator.next() == nil)
    }

    @Test func closingWhileTheBacklogIsFullEndsTheStream() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port, backlogCapacity: 2)
        server.accept()
        server.write((0..<10).flatMap { n in [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, UInt8(n), 0x00] as [UInt8] })
        #expect(await eventually(1_000_000) { transport.waitingPackets == 2 })
        await transport.close()
        var received = 0
        for try await _ in transport.packets { received += 1 }
        #expect(received <= 2)
    }
}

/// Whether code not isolated to any actor, once it has suspended, runs on `transport`'s reading
/// thread. (Before its first suspension a task goes on running where it was; it is enqueued on its
/// preferred executor when it resumes.)
@concurrent
private func runsOnReadingThread(of transport: TCPTransport) async -> Bool {
    await Task.yield()
    return transport.isReadingThread
}

/// The thread code not isolated to any actor runs on once it has suspended.
@concurrent
private func threadAfterSuspending() async -> pthread_t {
    await Task.yield()
    return pthread_self()
}

@Suite("TCP transport: its reading thread as a task executor")
struct TCPTransportTaskExecutorTests {
    /// Connects `transport` to a new loopback server, which it returns (the only other
    /// reference to the transport is the caller's variable, so the caller can let it go).
    private func connect(_ transport: inout TCPTransport?) throws -> LoopbackServer {
        let server = try LoopbackServer()
        transport = try TCPTransport(host: "127.0.0.1", port: server.port)
        server.accept()
        return server
    }

    @Test func aTaskThatPrefersTheTransportsTaskExecutorRunsOnTheThreadThatReadsTheSocket() async throws {
        var opened: TCPTransport?
        let server = try connect(&opened)
        defer { withExtendedLifetime(server) {} }
        let transport = try #require(opened)
        let executor = try #require(transport.taskExecutor)
        #expect(await withTaskExecutorPreference(executor) { await runsOnReadingThread(of: transport) })
        #expect(await runsOnReadingThread(of: transport) == false, "without the preference the code runs elsewhere")
        await transport.close()
    }

    @Test func anActorOnTheTransportsExecutorKeepsItsIsolationForTasksThatPreferTheThread() async throws {
        var opened: TCPTransport?
        let server = try connect(&opened)
        defer { withExtendedLifetime(server) {} }
        let transport = try #require(opened)
        let inbox = ThreadBoundInbox(executor: try #require(transport.executor))
        let executor = try #require(transport.taskExecutor)
        let count = 2000
        // A reader and a writer of the inbox, both preferring the transport's thread: every
        // value must come out in order, and no delivery may land inside a wait (between its
        // check of the queue and its registration), which only isolation prevents.
        let reader = Task(executorPreference: executor) { () -> [Int] in
            var taken: [Int] = []
            for _ in 0..<count { taken.append(await inbox.next()) }
            return taken
        }
        let writer = Task(executorPreference: executor) {
            for value in 0..<count {
                await inbox.deliver(value)
                if value % 3 == 0 { await Task.yield() }
            }
        }
        await writer.value
        let taken = try await withHangGuard(seconds: 30) { await reader.value }
        #expect(taken == Array(0..<count))
        #expect(await inbox.deliveriesInsideAWait == 0)
        await transport.close()
    }

    @Test func aKeptTaskExecutorStillRunsJobsOnItsThreadAfterItsTransportIsGone() async throws {
        var transport: TCPTransport?
        let server = try connect(&transport)
        defer { withExtendedLifetime(server) {} }
        let executor = try #require(transport?.taskExecutor)
        let before = await withTaskExecutorPreference(executor) { await threadAfterSuspending() }
        await transport?.close()
        transport = nil
        // The thread lives while the executor does, so the job runs (a stopped thread would
        // leave this call waiting for ever) and on the same thread.
        let after = try await withHangGuard(seconds: 10) {
            await withTaskExecutorPreference(executor) { await threadAfterSuspending() }
        }
        #expect(pthread_equal(before, after) != 0)
    }
}

/// A one-reader inbox on a given serial executor that counts the deliveries that came while a
/// wait was between its look at the queue and its registration.
private actor ThreadBoundInbox {
    private let executor: any SerialExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private var waiter: CheckedContinuation<Int, Never>?
    private var queued: [Int] = []
    private var waiting = false
    private(set) var deliveriesInsideAWait = 0

    init(executor: any SerialExecutor) { self.executor = executor }

    func next() async -> Int {
        if !queued.isEmpty { return queued.removeFirst() }
        waiting = true
        return await withCheckedContinuation { continuation in
            waiting = false
            waiter = continuation
        }
    }

    func deliver(_ value: Int) {
        if waiting { deliveriesInsideAWait += 1 }
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: value)
        } else {
            queued.append(value)
        }
    }
}
