import HaraldCodec

/// The camera's ID-length-value tables (protocols.md A.3): a query answer or push carries
/// `[id][length][value…]` triplets, multi-byte values big-endian.
enum CameraValueTable {
    /// The triplets of `entries`, in order.
    static func encode(_ entries: [(id: UInt8, value: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (id, value) in entries { bytes += [id, UInt8(value.count)] + value }
        return bytes
    }

    /// The entries of a triplet table; a last entry cut short keeps what is there.
    static func decode(_ bytes: [UInt8]) -> [UInt8: [UInt8]] {
        var table: [UInt8: [UInt8]] = [:]
        var index = 0
        while index + 2 <= bytes.count {
            let length = Int(bytes[index + 1])
            table[bytes[index]] = Array(bytes[(index + 2)..<min(bytes.count, index + 2 + length)])
            index += 2 + length
        }
        return table
    }

    /// A 4-byte big-endian value.
    static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// The big-endian value of up to the last 4 bytes (0 when there are none).
    static func readUInt32(_ bytes: [UInt8]?) -> UInt32 {
        (bytes ?? []).suffix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The statuses of a real camera, from the Open GoPro SDK's "get all statuses" capture
    /// (protocols.md A.7, the 370-byte message without its `13 00` prefix): 88 entries.
    static let capturedStatuses: [UInt8: [UInt8]] = {
        let hex =
            "0101010201040301000401ff0601000801000901000a01000b01000d04000000000e0400000000110101130103140101"
            + "150400003ea41601001701001801001a01001b01001c01521d001e0a475032343530303435361f010020010121010022"
            + "0400000873230400000fd624040000004025040000003526040000004027040000003528122531422530342530362530"
            + "372533312530442901002a01002d0100310400000000360800000000019582603701013801013904006e2f813a01003b"
            + "04000000003c04000001f43d01023e04000000003f01004004000004394101004201644301644401004501014601354a"
            + "01004b01004c01014d01014e01004f010051010152010153010155010056010058010059010c5a01015b01005d040000"
            + "00025e04000100005f04000200006004000003e861040000000262040100000263040000054764040000000065010066"
            + "01006701006801016901006a01006b04ffffffff6c01006d01006e0100710100"
        return decode((try? Hex.decode(hex)) ?? [])
    }()
}
