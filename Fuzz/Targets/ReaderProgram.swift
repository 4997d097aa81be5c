import HaraldCodec

/// Named bits for the flags operations, including positions outside every field width and a
/// negative one, which must read as unset rather than trap.
enum ProgramFlag: Int, FlagBit {
    case bit0 = 0, bit3 = 3, bit7 = 7, bit15 = 15, bit23 = 23, bit31 = 31, bit63 = 63
    case beyondEveryWidth = 70
    case negative = -1
}

/// Treats the input as a little program for a ``ByteReader``: each step reads an opcode byte and
/// then performs one reader operation on the bytes that follow (counts come from the input too,
/// as signed bytes, so negative and oversized counts occur). Runs until the input ends or a read
/// throws, checking after every step that the cursor stayed inside the input and only moved on.
@Sendable func runReaderProgram(_ bytes: [UInt8]) {
    do {
        try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) in
            try runSteps(&reader, inputCount: bytes.count, depth: 0)
        }
    } catch {
        require(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input: \(error)")
        blackHole(error.description)
    }
}

private func runSteps(_ reader: inout ByteReader, inputCount: Int, depth: Int) throws(ByteDecodingError) {
    while let opcode = reader.peekByte() {
        let before = reader.offset
        try reader.skip(1, field: "opcode")
        try step(opcode, &reader, inputCount: inputCount, depth: depth)
        require(reader.offset >= before + 1, "cursor moved back from \(before) to \(reader.offset)")
        require(reader.offset <= inputCount, "cursor \(reader.offset) past the input's \(inputCount) bytes")
        require(reader.remainingCount >= 0 && reader.remainingCount <= reader.count, "remaining count \(reader.remainingCount) of \(reader.count)")
        require(reader.isAtEnd == (reader.remainingCount == 0), "isAtEnd disagrees with remainingCount")
    }
}

/// A count operand: the next byte as a signed value.
private func count(_ reader: inout ByteReader) throws(ByteDecodingError) -> Int {
    Int(try reader.read(Int8.self, field: "count"))
}

private func step(_ opcode: UInt8, _ reader: inout ByteReader, inputCount: Int, depth: Int) throws(ByteDecodingError) {
    let order: ByteOrder = opcode & 0x80 == 0 ? .littleEndian : .bigEndian
    switch opcode & 0x1F {
    case 0: blackHole(try reader.read(UInt8.self, byteOrder: order, field: "u8"))
    case 1: blackHole(try reader.read(UInt16.self, byteOrder: order, field: "u16"))
    case 2: blackHole(try reader.read(Int16.self, byteOrder: order, field: "i16"))
    case 3: blackHole(try reader.read(UInt32.self, byteOrder: order, field: "u32"))
    case 4: blackHole(try reader.read(Int64.self, byteOrder: order, field: "i64"))
    case 5:
        let value = try reader.read(UInt24.self, byteOrder: order, field: "u24")
        require(value.value <= 0xFF_FFFF, "UInt24 holds \(value.value)")
    case 6:
        let value = try reader.read(Int24.self, byteOrder: order, field: "i24")
        require((-0x80_0000...0x7F_FFFF).contains(value.value), "Int24 holds \(value.value)")
        require(Int24(bitPattern: value.bitPattern) == value, "Int24 bit pattern does not round-trip")
    case 7: blackHole(reader.peekByte())
    case 8: try reader.skip(try count(&reader), field: "skip")
    case 9:
        let n = try count(&reader)
        let run = try reader.readBytes(count: n, field: "run")
        require(run.count == n, "asked for \(n) bytes, got \(run.count)")
    case 10:
        let n = try count(&reader)
        blackHole(try reader.readUTF8(count: n, field: "text", trimmingNulls: opcode & 0x80 != 0))
    case 11:
        guard depth < 4 else { return }
        let n = try count(&reader)
        var sub = try reader.subReader(count: n, field: "sub")
        require(sub.count == n && sub.offset == reader.offset - n, "sub-reader covers the wrong bytes")
        do {
            try runSteps(&sub, inputCount: inputCount, depth: depth + 1)
        } catch {
            // Errors inside the sub-reader report offsets inside the claimed run.
            require(error.offset >= reader.offset - n && error.offset <= reader.offset, "sub-reader error at \(error.offset)")
        }
    case 12:
        let n = try count(&reader)
        let sum = try reader.withBytes(count: n, field: "window") { window in window.reduce(0 as UInt8, &+) }
        blackHole(sum)
    case 13: blackHole(reader.readRemainingBytes())
    case 14: try reader.expectEnd()
    case 15:
        let flags = try reader.readFlags(ProgramFlag.self, as: UInt8.self)
        exercise(flags, positions: try count(&reader))
    case 16:
        let flags = try reader.readFlags(ProgramFlag.self, as: UInt16.self)
        exercise(flags, positions: try count(&reader))
    case 17:
        let flags = try reader.readFlags(ProgramFlag.self, as: UInt64.self)
        exercise(flags, positions: try count(&reader))
    case 18:
        let flags = try reader.readFlags24(ProgramFlag.self)
        require(flags.rawValue <= 0xFF_FFFF, "24-bit flags hold \(flags.rawValue)")
        exercise(flags, positions: try count(&reader))
    case 19: blackHole(try reader.decode(MedicalFloat16.self, field: "sfloat").doubleValue)
    case 20: blackHole(try reader.decode(MedicalFloat32.self, field: "float").doubleValue)
    case 21: blackHole(try reader.decode(String.self, byteCount: try count(&reader), field: "name"))
    case 22: blackHole(try reader.decode(BluetoothUUID.self, byteCount: try count(&reader), field: "uuid"))
    case 23: blackHole(try reader.readRemainingUTF8(field: "rest", trimmingNulls: opcode & 0x80 != 0))
    case 24: blackHole(reader.invalidValue("fuzz", field: "value").description)
    case 25:
        guard let item = try reader.readTLV(field: "tlv") else { return }
        require(item.value.count <= inputCount, "TLV value longer than the input")
    default: blackHole(try reader.read(UInt32.self, byteOrder: order, field: "u32"))
    }
}

/// Tests, sets and clears every named bit and a sub-field chosen by the input.
private func exercise<Raw>(_ flags: Flags<ProgramFlag, Raw>, positions: Int) {
    var copy = flags
    for bit in ProgramFlag.allCases {
        let had = copy.contains(bit)
        copy.insert(bit)
        copy.remove(bit)
        copy[bit] = had
    }
    require(copy == flags, "setting bits back changed \(flags.rawValue) to \(copy.rawValue)")
    require(!flags.contains(.negative) && !flags.contains(.beyondEveryWidth), "a bit outside the field reads as set")
    let low = positions & 0x3F, high = low + (positions >> 6 & 0x3) * 20
    let field = flags.field(bits: low...high)
    copy.setField(bits: low...high, to: field)
    require(copy == flags, "writing back field \(low)...\(high) changed the flags")
    blackHole(flags.unknownBits)
    blackHole(flags.description)
}
