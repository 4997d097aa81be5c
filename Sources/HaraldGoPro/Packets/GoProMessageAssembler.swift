/// Reassembles the Open GoPro messages arriving as notifications on one response characteristic.
///
/// Feed it every notification of that characteristic, in order, with ``append(_:)-([UInt8])``;
/// it returns the message when its last packet arrives and nil while more are expected. Keep one
/// assembler per characteristic (see ``GoProMessageAssemblers``): the camera interleaves messages
/// only across characteristics.
///
/// Memory is bounded by the announced length: the message buffer is allocated once, at the
/// start packet, with the announced capacity (at most 65535 bytes), and a packet that would go
/// past it is rejected. That buffer is the only allocation per message; zero-length messages
/// allocate nothing. Continuation counters are read but not checked (the official SDK and
/// tutorials ignore them too).
///
/// After any error the assembler is idle again: the incomplete message is dropped, and so is the
/// packet that caused the error (a new start packet arriving mid-message is not begun either;
/// the next start packet begins a message normally).
public struct GoProMessageAssembler: Sendable {
    @usableFromInline var buffer: [UInt8] = []
    @usableFromInline var announced = 0
    @usableFromInline var assembling = false

    /// An assembler with no message in progress.
    public init() {}

    /// True while a message has started and not all its bytes have arrived.
    public var isAssembling: Bool { assembling }
    /// The length announced by the current message's start packet; nil when idle.
    public var announcedLength: Int? { assembling ? announced : nil }
    /// How many bytes of the current message have arrived; 0 when idle.
    public var receivedCount: Int { assembling ? buffer.count : 0 }

    /// Drops any incomplete message.
    public mutating func reset() {
        buffer = []
        announced = 0
        assembling = false
    }

    /// Takes one packet; returns the complete message when this packet ends it, nil otherwise.
    @inlinable
    public mutating func append(_ packet: UnsafeRawBufferPointer) throws(GoProPacketError) -> [UInt8]? {
        guard let first = packet.first else {
            // An empty notification is an error but leaves a message in progress alone.
            throw .emptyPacket
        }
        if first & 0x80 != 0 {
            guard assembling else { throw .continuationWithoutStart(counter: first & 0x0F) }
            let data = UnsafeRawBufferPointer(rebasing: packet[1...])
            let total = buffer.count + data.count
            guard total <= announced else {
                let error = GoProPacketError.moreBytesThanAnnounced(announced: announced, received: total)
                reset()
                throw error
            }
            buffer.append(contentsOf: data)
            return total == announced ? finish() : nil
        }
        if assembling {
            let error = GoProPacketError.newStartWhileIncomplete(announced: announced, received: buffer.count)
            reset()
            throw error
        }
        let parsed = try GoProPacketHeader.parse(packet)
        let length = parsed.header.messageLength ?? 0
        let data = UnsafeRawBufferPointer(rebasing: packet[parsed.byteCount...])
        guard data.count <= length else { throw .moreBytesThanAnnounced(announced: length, received: data.count) }
        if data.count == length {
            // The whole message in one packet: one allocation, no intermediate state.
            return length == 0 ? [] : [UInt8](data)
        }
        var storage: [UInt8] = []
        storage.reserveCapacity(length)
        storage.append(contentsOf: data)
        buffer = storage
        announced = length
        assembling = true
        return nil
    }

    /// Takes one packet; returns the complete message when this packet ends it, nil otherwise.
    @inlinable
    public mutating func append(_ packet: [UInt8]) throws(GoProPacketError) -> [UInt8]? {
        let result: Result<[UInt8]?, GoProPacketError> = packet.withUnsafeBytes { raw in
            do throws(GoProPacketError) { return .success(try append(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Takes one packet given as any byte sequence (an `ArraySlice`, `Data`, …).
    public mutating func append<Bytes: Sequence<UInt8>>(contentsOf packet: Bytes) throws(GoProPacketError) -> [UInt8]? {
        if let result: Result<[UInt8]?, GoProPacketError> = packet.withContiguousStorageIfAvailable({ buffer in
            do throws(GoProPacketError) { return .success(try append(UnsafeRawBufferPointer(buffer))) } catch { return .failure(error) }
        }) {
            return try result.get()
        }
        return try append(Array(packet))
    }

    /// Hands over the finished message without copying it and goes idle.
    @usableFromInline
    mutating func finish() -> [UInt8] {
        var message: [UInt8] = []
        swap(&message, &buffer)
        announced = 0
        assembling = false
        return message
    }
}
