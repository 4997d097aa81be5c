// SDUs of a credit-based channel as K-frames (Core spec Vol 3 Part A §3.4.3, §10.1): the first
// K-frame of an SDU carries a 2-octet SDU length, then the payload; each K-frame's information
// payload (SDU length included) is at most the receiver's MPS, and each costs one credit.

/// Splits an SDU into the information payloads of its K-frames (the basic L2CAP header is added
/// by the layer below).
public enum KFrameSegmenter {
    /// The payloads of `sdu`'s K-frames for a receiver taking `mps` bytes per K-frame and `mtu`
    /// bytes per SDU. Throws ``KFrameError/sduTooLong(_:mtu:)`` for an SDU over the MTU.
    public static func segment(_ sdu: [UInt8], mps: Int, mtu: Int) throws(KFrameError) -> [[UInt8]] {
        guard sdu.count <= mtu, sdu.count <= Int(UInt16.max) else { throw .sduTooLong(sdu.count, mtu: mtu) }
        guard mps > 2 else { throw .mpsTooSmall(mps) }
        let length = UInt16(sdu.count)
        let firstRoom = mps - 2
        var frames: [[UInt8]] = [[UInt8(length & 0xFF), UInt8(length >> 8)] + sdu.prefix(firstRoom)]
        var offset = min(firstRoom, sdu.count)
        while offset < sdu.count {
            let end = min(offset + mps, sdu.count)
            frames.append(Array(sdu[offset..<end]))
            offset = end
        }
        return frames
    }
}

/// Puts SDUs back together from K-frames, checking each against the limits this end announced.
/// Every violation is one the spec answers by disconnecting the channel.
public struct KFrameReassembler: Sendable {
    /// The MTU this end announced: the longest SDU it takes.
    public let mtu: Int
    /// The MPS this end announced: the longest K-frame payload it takes.
    public let mps: Int
    fileprivate var expected: Int?
    fileprivate var collected: [UInt8] = []

    /// A reassembler for SDUs of at most `mtu` bytes in K-frames of at most `mps`.
    public init(mtu: Int, mps: Int) {
        self.mtu = mtu
        self.mps = mps
    }

    /// True while an SDU is part-way in.
    public var isMidSDU: Bool { expected != nil }

    /// Takes the information payload of one K-frame; returns the SDU it completes, if it does.
    public mutating func take(_ payload: [UInt8]) throws(KFrameError) -> [UInt8]? {
        guard payload.count <= mps else { throw .frameTooLong(payload.count, mps: mps) }
        guard let expected else {
            guard payload.count >= 2 else { throw .missingSDULength }
            let length = Int(payload[0]) | Int(payload[1]) << 8
            guard length <= mtu else { throw .sduTooLong(length, mtu: mtu) }
            let body = payload.dropFirst(2)
            guard body.count <= length else { throw .sduOverrun(expected: length, received: body.count) }
            if body.count == length { return Array(body) }
            self.expected = length
            collected = Array(body)
            collected.reserveCapacity(length)
            return nil
        }
        guard collected.count + payload.count <= expected else {
            throw .sduOverrun(expected: expected, received: collected.count + payload.count)
        }
        collected += payload
        guard collected.count == expected else { return nil }
        defer {
            self.expected = nil
            collected = []
        }
        return collected
    }
}

/// A K-frame that breaks the channel's rules (the receiver disconnects the channel).
public enum KFrameError: Error, Hashable, Sendable {
    /// An SDU longer than the receiver's MTU (its announced length, or the SDU being sent).
    case sduTooLong(Int, mtu: Int)
    /// A K-frame whose payload is longer than the receiver's MPS.
    case frameTooLong(Int, mps: Int)
    /// The first K-frame of an SDU is shorter than its 2-octet SDU length.
    case missingSDULength
    /// The K-frames of an SDU carry more bytes than its SDU length said.
    case sduOverrun(expected: Int, received: Int)
    /// An MPS too small to carry the SDU length and a byte of payload.
    case mpsTooSmall(Int)
}

extension KFrameReassembler {
    /// Takes larger SDUs and K-frames from now on (an enhanced-mode reconfiguration of ours was
    /// accepted); an SDU part-way in keeps its length.
    mutating func raiseLimits(mtu: Int, mps: Int) {
        let partial = self
        self = KFrameReassembler(mtu: mtu, mps: mps)
        self.expected = partial.expected
        self.collected = partial.collected
    }
}
