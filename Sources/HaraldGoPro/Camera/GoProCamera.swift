import Harald
import HaraldCore
import HaraldCodec

/// An Open GoPro camera over a `PeripheralConnection`: command, setting and query requests with
/// their responses, and the camera's pushes.
///
/// Requests are split into packets (``GoProFragmenter``) and written to GP-0072 (commands),
/// GP-0074 (settings, keep-alive) or GP-0076 (queries); the answers are reassembled from the
/// notifications of GP-0073, GP-0075 and GP-0077, one ``GoProMessageAssembler`` per response
/// characteristic. Each channel carries one request at a time: a second request on the same
/// channel waits for the first to finish (requests on different channels run side by side); a
/// request's timeout counts from its turn. A request fails with a ``GoProError``: `rejected` (the camera's status was error or invalid
/// parameter), `malformedResponse`, `timeout` (``requestTimeout`` unless given) or
/// `disconnected`.
///
/// The camera's notification readers are tasks started with the connection's
/// `PeripheralConnection/taskStarter` (so on the simulator they run in the simulation).
///
/// Query responses whose ID is 0x92, 0x93 or 0xA2 are pushes, delivered to every stream from
/// ``pushes(buffering:)``.
///
/// A damaged answer never spills over onto the next request. A packet that breaks the message
/// under way on a response characteristic (a continuation packet with no start, a start header
/// that is reserved, cut short or arrives mid-message, more bytes than announced) fails the
/// request waiting there with `malformedResponse` and counts in ``Statistics/malformedPackets``;
/// the characteristic then drops continuation packets, the rest of the broken message, until the
/// next start packet, counting them in ``Statistics/discardedPackets``. A timed-out request leaves
/// its characteristic in the same state, so the late rest of its answer is dropped too. A stray
/// continuation packet arriving while nothing is being received and no request waits fails
/// nothing (it starts the dropping). A complete message no request waits for, or whose ID is not
/// the waiting request's, counts in ``Statistics/unexpectedMessages`` and is otherwise ignored; an
/// empty notification counts as malformed and changes nothing.
///
/// ```swift
/// let connection = try await central.connect(to: peripheral)
/// let camera = GoProCamera(connection: connection)
/// let info = try await camera.waitUntilReady()
/// let battery = try await camera.statuses([.internalBatteryPercentage]).integer(.internalBatteryPercentage)
/// try await camera.startRecording()
/// ```
public actor GoProCamera {
    /// Response packets a subscription holds while the camera's reader is busy: a whole message of
    /// more than 4 KB. Later packets are dropped.
    static let responseBufferPackets = 256

    /// The connection to the camera (the caller owns it and disconnects it).
    public nonisolated let connection: PeripheralConnection
    /// The camera runs on its connection's executor, the link's serial domain (over HCI, the
    /// transport's thread): its requests and the reassembly of the camera's answers take no hop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { connection.unownedExecutor }
    /// The clock timeouts and polls are measured on: the connection's, so a camera on a
    /// simulator connection runs in virtual time.
    public nonisolated var clock: any Clock<Duration> { connection.clock }
    /// How long a request waits for its complete answer when it is not given a timeout.
    public private(set) var requestTimeout: Duration
    /// The size of the packets requests are cut into (20 bytes by default: what every camera
    /// accepts; see ``sizedToMTU(connection:requestTimeout:)`` for ATT_MTU − 3).
    public nonisolated let packetSize: Int

    private var discovered: [GoProCharacteristic: DiscoveredCharacteristic] = [:]
    private var readers: [Task<Void, Never>] = []
    private var assemblers = GoProMessageAssemblers<GoProCharacteristic>()
    /// Response characteristics whose last message broke or was abandoned: their continuation
    /// packets are dropped until the next start packet.
    private var resynchronizing: Set<GoProCharacteristic> = []
    /// The request waiting for an answer, by response characteristic.
    private var inFlight: [GoProCharacteristic: PendingRequest] = [:]
    /// Request characteristics with a request under way, and the requests queued behind it.
    private var busy: Set<GoProCharacteristic> = []
    private var queued: [GoProCharacteristic: [CheckedContinuation<Void, Never>]] = [:]
    private var pushSinks: [Int: AsyncStream<GoProPush>.Continuation] = [:]
    private var nextToken = 0
    private var subscribedToAll = false
    private var isStarted = false
    private var isStarting = false
    private var startWaiters: [CheckedContinuation<Void, Never>] = []
    /// Set when the connection ended; every later request fails with it.
    private var ended: GoProError?
    /// What arrived so far.
    public private(set) var statistics = Statistics()

    /// Counts of what the camera sent.
    public struct Statistics: Hashable, Sendable {
        /// Complete messages reassembled on the three response characteristics.
        public var messages = 0
        /// Pushes (0x92, 0x93, 0xA2) delivered.
        public var pushes = 0
        /// Packets the assemblers rejected (the message under way dropped, unless the packet was
        /// empty).
        public var malformedPackets = 0
        /// Pushes whose values did not decode (dropped).
        public var malformedPushes = 0
        /// Complete messages no request was waiting for (late answers to timed-out requests).
        public var unexpectedMessages = 0
        /// Continuation packets dropped because they belonged to no message: the rest of an
        /// answer that broke (or was abandoned by a timeout), up to the next start packet.
        public var discardedPackets = 0
    }

    /// A camera on `connection`. Nothing is sent until the first request (or ``start(timeout:)``).
    public init(
        connection: PeripheralConnection, requestTimeout: Duration = .seconds(5),
        packetSize: Int = GoProFragmenter.defaultPacketSize
    ) {
        self.connection = connection
        self.requestTimeout = requestTimeout
        self.packetSize = packetSize
    }

    /// A camera on `connection` whose requests are cut into packets as large as the connection's
    /// ATT_MTU allows now (ATT_MTU − 3, see ``GoProFragmenter/packetSize(attMTU:)``) instead of
    /// the 20 bytes every camera accepts. Long requests then take fewer writes; use it only with
    /// cameras known to accept packets above 20 bytes (the Open GoPro docs and SDK keep to 20
    /// whatever the MTU). The size is read once: negotiate the MTU before.
    public static func sizedToMTU(
        connection: PeripheralConnection, requestTimeout: Duration = .seconds(5)
    ) async -> GoProCamera {
        let packetSize = GoProFragmenter.packetSize(attMTU: await connection.mtu())
        return GoProCamera(connection: connection, requestTimeout: requestTimeout, packetSize: packetSize)
    }

    deinit {
        for reader in readers { reader.cancel() }
    }

    /// Changes the timeout of requests that are not given one.
    public func setRequestTimeout(_ timeout: Duration) { requestTimeout = timeout }

    /// Finds the camera's six characteristics and subscribes to the three response
    /// characteristics (done on first use; calling it again does nothing).
    public func start(timeout: Duration? = nil) async throws(GoProError) {
        // Callers arriving while another one starts wait for it, then look again.
        while isStarting {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in startWaiters.append(continuation) }
        }
        if let ended { throw ended }
        guard !isStarted else { return }
        isStarting = true
        defer {
            isStarting = false
            let waiters = startWaiters
            startWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        var started: [Task<Void, Never>] = []
        do {
            var found: [GoProCharacteristic: DiscoveredCharacteristic] = [:]
            for characteristic in [GoProCharacteristic.command, .commandResponse, .settings, .settingsResponse, .query, .queryResponse] {
                found[characteristic] = try await connection.characteristic(
                    characteristic.uuid, service: GoProCharacteristic.controlAndQueryService, timeout: timeout)
            }
            for characteristic in [GoProCharacteristic.commandResponse, .settingsResponse, .queryResponse] {
                guard let target = found[characteristic] else { continue }
                // 256 packets: a whole message of more than 4 KB waits while the app is busy.
                let packets = try await connection.subscribe(target, as: [UInt8].self, buffering: .oldest(Self.responseBufferPackets), timeout: timeout)
                started.append(
                    connection.taskStarter.start { [weak self] in
                        do {
                            for try await packet in packets { await self?.receive(packet, on: characteristic) }
                            await self?.end(.disconnected(.localRequest))
                        } catch {
                            await self?.end(GoProError.from(error))
                        }
                    })
            }
            discovered = found
            readers += started
            isStarted = true
        } catch {
            for reader in started { reader.cancel() }
            throw GoProError.from(error)
        }
    }

    /// Stops listening: pending requests fail with `disconnected(.localRequest)`, push streams end,
    /// notifications are turned off. The connection stays open.
    public func stop() {
        for reader in readers { reader.cancel() }
        end(.disconnected(.localRequest))
    }

    // MARK: Pushes

    /// The camera's pushes (0x92 setting values, 0x93 status values, 0xA2 setting capabilities)
    /// from now on, for the IDs registered with the Register queries. Ends when the connection
    /// ends; `buffering` bounds what waits while the app is busy (the newest are kept).
    public func pushes(buffering: Int = 64) -> AsyncStream<GoProPush> {
        let (stream, sink) = AsyncStream<GoProPush>.makeStream(bufferingPolicy: .bufferingNewest(max(1, buffering)))
        guard ended == nil else {
            sink.finish()
            return stream
        }
        nextToken += 1
        let token = nextToken
        pushSinks[token] = sink
        return stream
    }

    // MARK: Requests

    /// Sends `message` on the request characteristic `channel` and returns the complete message
    /// that answers it (same ID) on the matching response characteristic.
    func exchange(_ message: [UInt8], on channel: GoProCharacteristic, name: String, timeout: Duration?) async throws(GoProError) -> [UInt8] {
        try await start()
        guard let answerCharacteristic = Self.responseCharacteristic(of: channel), let target = discovered[channel],
            let id = message.first
        else {
            throw .bluetooth(.notFound("\(channel) is not a request characteristic"))
        }
        let packets: [[UInt8]]
        do { packets = try GoProFragmenter.fragment(message, packetSize: packetSize) } catch {
            throw .bluetooth(.encoding(ByteEncodingError(field: name, detail: error.description)))
        }
        await acquire(channel)
        defer { release(channel) }
        if let ended { throw ended }
        if Task.isCancelled { throw .cancelled }
        let (replies, sink) = AsyncStream<Reply>.makeStream(bufferingPolicy: .bufferingNewest(1))
        nextToken += 1
        let token = nextToken
        inFlight[answerCharacteristic] = PendingRequest(id: id, token: token, sink: sink)
        defer {
            if inFlight[answerCharacteristic]?.token == token { inFlight[answerCharacteristic] = nil }
        }
        let limit = timeout ?? requestTimeout
        let reply: Reply?
        do {
            reply = try await withDeadline(limit, clock: clock) { [connection] in
                for packet in packets { try await connection.writeRaw(packet, to: target, kind: .withResponse, timeout: limit) }
                for await reply in replies { return reply }
                return .ended(.cancelled)
            }
        } catch {
            throw GoProError.from(error)
        }
        switch reply {
        case nil:
            // The rest of a half-received (or not yet begun) answer belongs to this abandoned
            // request: drop it, and its continuation packets still to come, so the next answer's
            // start packet begins a message instead of meeting a partial one.
            assemblers[answerCharacteristic].reset()
            resynchronizing.insert(answerCharacteristic)
            throw .timeout(request: name, after: limit)
        case let .message(answer)?: return answer
        case let .malformed(detail)?: throw .malformedResponse(request: name, detail: detail)
        case let .ended(error)?: throw error
        }
    }

    static func responseCharacteristic(of request: GoProCharacteristic) -> GoProCharacteristic? {
        switch request {
        case .command: .commandResponse
        case .settings: .settingsResponse
        case .query: .queryResponse
        default: nil
        }
    }

    /// Waits until no request is under way on `channel` (first come, first served).
    private func acquire(_ channel: GoProCharacteristic) async {
        guard busy.contains(channel) else {
            busy.insert(channel)
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queued[channel, default: []].append(continuation)
        }
    }

    /// Hands `channel` to the next queued request, or frees it. Every request releases its
    /// channel within its timeout, so a queued request always gets its turn.
    private func release(_ channel: GoProCharacteristic) {
        if var waiting = queued[channel], !waiting.isEmpty {
            let next = waiting.removeFirst()
            queued[channel] = waiting
            next.resume()
        } else {
            busy.remove(channel)
        }
    }

    // MARK: Receiving

    private func receive(_ packet: [UInt8], on characteristic: GoProCharacteristic) {
        if resynchronizing.contains(characteristic), let header = packet.first {
            // The rest of a broken or abandoned message: dropped up to the next start packet.
            guard header & 0x80 == 0 else {
                statistics.discardedPackets += 1
                return
            }
            resynchronizing.remove(characteristic)
        }
        let message: [UInt8]
        do {
            guard let complete = try assemblers.append(packet, from: characteristic) else { return }
            message = complete
        } catch {
            statistics.malformedPackets += 1
            // An empty notification leaves the message in progress intact: nothing is lost.
            guard error != .emptyPacket else { return }
            // Whatever message was under way is gone; its remaining packets must not be read as
            // the start of trouble for the next request.
            resynchronizing.insert(characteristic)
            if let pending = inFlight.removeValue(forKey: characteristic) { pending.sink.yield(.malformed(error.description)) }
            return
        }
        statistics.messages += 1
        if characteristic == .queryResponse, let first = message.first, GoProQueryID(first).isPush {
            do {
                let push = try GoProPush(message: message)
                statistics.pushes += 1
                for (token, sink) in pushSinks {
                    // A stream its consumer dropped is forgotten at the next push.
                    if case .terminated = sink.yield(push) { pushSinks[token] = nil }
                }
            } catch {
                statistics.malformedPushes += 1
            }
            return
        }
        guard let pending = inFlight[characteristic], message.first == pending.id else {
            statistics.unexpectedMessages += 1
            return
        }
        inFlight[characteristic] = nil
        pending.sink.yield(.message(message))
    }

    /// The connection (or listening) ended: pending requests fail, push streams finish.
    private func end(_ error: GoProError) {
        guard ended == nil else { return }
        ended = error
        for pending in inFlight.values { pending.sink.yield(.ended(error)) }
        inFlight = [:]
        for sink in pushSinks.values { sink.finish() }
        pushSinks = [:]
        assemblers.reset()
        resynchronizing = []
    }

    // MARK: Readiness support

    /// Subscribes to every notifiable (or indicating) characteristic of the camera that is not
    /// subscribed yet and keeps those subscriptions on, as the camera expects on every
    /// connection (it does not remember them).
    func subscribeToEveryNotifiableCharacteristic(timeout: Duration?) async throws(GoProError) {
        try await start(timeout: timeout)
        guard !subscribedToAll else { return }
        subscribedToAll = true  // a concurrent call finds it done (or under way) and returns
        do {
            let responses = Set([GoProCharacteristic.commandResponse, .settingsResponse, .queryResponse].map(\.uuid))
            for (_, characteristics) in try await connection.discoverAll(timeout: timeout) {
                for characteristic in characteristics
                where !responses.contains(characteristic.uuid)
                    && (characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate))
                {
                    let values = try await connection.subscribe(characteristic, as: [UInt8].self, buffering: .newest(1), timeout: timeout)
                    readers.append(
                        connection.taskStarter.start {
                            do { for try await _ in values {} } catch {}
                        })
                }
            }
        } catch {
            subscribedToAll = false
            throw GoProError.from(error)
        }
    }
}

/// A request waiting for its answer.
struct PendingRequest: Sendable {
    /// The ID the answer starts with.
    let id: UInt8
    /// Which request this is (a timed-out request must not clear its successor's entry).
    let token: Int
    let sink: AsyncStream<Reply>.Continuation
}

/// How a request ended on the receiving side.
enum Reply: Sendable {
    case message([UInt8])
    case malformed(String)
    case ended(GoProError)
}
