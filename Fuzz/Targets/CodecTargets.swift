import Foundation
import HaraldCodec

/// The HaraldCodec decoders, one table row each.
let codecTargets: [FuzzTarget] = [
    .roundTripping(UInt8.self),
    .roundTripping(Int8.self),
    .roundTripping(UInt16.self),
    .roundTripping(Int16.self),
    .roundTripping(UInt32.self),
    .roundTripping(Int32.self),
    .roundTripping(UInt64.self),
    .roundTripping(Int64.self),
    .roundTripping(UInt24.self),
    .roundTripping(Int24.self),
    .roundTripping(Float.self),
    .roundTripping(Double.self),
    .roundTripping(String.self),
    .roundTripping([UInt8].self, name: "ByteArray"),
    .roundTripping(MedicalFloat16.self),
    .roundTripping(MedicalFloat32.self),
    FuzzTarget("MedicalFloat16.value", checkMedicalFloat16),
    FuzzTarget("MedicalFloat32.value", checkMedicalFloat32),
    .decoding(BluetoothUUID.self),
    FuzzTarget("BluetoothUUID.read", checkUUIDWireRead),
    FuzzTarget("BluetoothUUID.text", checkUUIDText),
    FuzzTarget("TLV", checkTLV),
    FuzzTarget("Hex.decode", checkHex),
    FuzzTarget("ByteReaderProgram", runReaderProgram),
    FuzzTarget("DataAndSlices", checkOtherInputShapes),
    FuzzTarget("CRC", checkCRC),
]

/// Every finite SFLOAT with a mantissa in ±2047 survives value → encode → value.
@Sendable func checkMedicalFloat16(_ bytes: [UInt8]) {
    touch { () throws(ByteDecodingError) in
        let value = try MedicalFloat16(decoding: bytes)
        blackHole(value.description)
        guard case let .finite(mantissa, _) = value.kind, mantissa.magnitude <= 2047 else { return }
        let again = MedicalFloat16(value.doubleValue)
        require(
            again.doubleValue == value.doubleValue,
            "SFLOAT \(bytes.hexString) = \(value.doubleValue) re-encodes as \(again.bitPattern) = \(again.doubleValue)")
    }
}

/// Every finite FLOAT with a mantissa in ±(2²³−1) survives value → encode → value to within rounding of the Double.
@Sendable func checkMedicalFloat32(_ bytes: [UInt8]) {
    touch { () throws(ByteDecodingError) in
        let value = try MedicalFloat32(decoding: bytes)
        blackHole(value.description)
        // The mantissa −2²³ decodes but the encoder's range stops at ±(2²³−1), as for SFLOAT.
        // (Zero is checked too: `MedicalFloat32(0.0)` once trapped and was fixed.)
        guard case let .finite(mantissa, _) = value.kind, mantissa != -0x80_0000 else { return }
        let again = MedicalFloat32(value.doubleValue)
        let a = value.doubleValue, b = again.doubleValue
        require(
            (a - b).magnitude <= a.magnitude * 1e-12,
            "FLOAT \(bytes.hexString) = \(a) re-encodes as \(again.bitPattern) = \(b)")
    }
}

/// The first byte is the byte count (as a signed value, so negative and odd counts occur too).
@Sendable func checkUUIDWireRead(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let byteCount = Int(Int8(bitPattern: first))
    touch { () throws(ByteDecodingError) in
        try ByteReader.withReader(bytes.dropFirst()) { (reader) throws(ByteDecodingError) in
            let uuid = try BluetoothUUID.read(from: &reader, byteCount: byteCount, field: "uuid")
            require([2, 4, 16].contains(byteCount), "read a UUID from \(byteCount) bytes")
            // The shortest form reads back as the same UUID.
            var writer = ByteWriter()
            do {
                try uuid.write(to: &writer, byteCount: uuid.bitWidth / 8)
            } catch {
                fatalError("UUID \(uuid) cannot be written in its own width: \(error)")
            }
            let again = try ByteReader.withReader(writer.bytes) { (inner) throws(ByteDecodingError) in
                try BluetoothUUID.read(from: &inner, byteCount: uuid.bitWidth / 8, field: "uuid")
            }
            require(again == uuid, "UUID \(uuid) reads back as \(again)")
            blackHole(uuid.canonicalString)
        }
    }
}

/// A parsed UUID prints as text that parses back to it, in both printed forms.
@Sendable func checkUUIDText(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let uuid = BluetoothUUID(text) else { return }
    require(BluetoothUUID(uuid.uuidString) == uuid, "\(text) → \(uuid.uuidString) does not parse back")
    require(BluetoothUUID(uuid.canonicalString) == uuid, "\(text) → \(uuid.canonicalString) does not parse back")
}

/// The first byte chooses the widths and byte order; walking the rest and writing the items back
/// gives the same bytes.
@Sendable func checkTLV(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let widths = [1, 2, 4, 3]  // 3 is not a width; the format treats it as 1
    let format = TLVFormat(
        typeWidth: widths[Int(first & 0b11)], lengthWidth: widths[Int(first >> 2 & 0b11)],
        byteOrder: first & 0x10 == 0 ? .littleEndian : .bigEndian)
    let body = Array(bytes.dropFirst())
    touch { () throws(ByteDecodingError) in
        let items = try TLV.items(in: body, format: format)
        do {
            let encoded = try TLV.encode(items, format: format)
            require(encoded == body, "TLV \(body.hexString) re-encodes as \(encoded.hexString)")
        } catch {
            fatalError("TLV items from \(body.hexString) cannot be encoded: \(error)")
        }
    }
    // Item by item, as a profile decoder would walk them.
    touch { () throws(ByteDecodingError) in
        try ByteReader.withReader(body) { (reader) throws(ByteDecodingError) in
            while let item = try reader.readTLV(format: format, field: "item") {
                require(item.offset < reader.offset, "TLV cursor did not move past \(item.offset)")
            }
        }
    }
}

/// Decoded hex prints as hex that decodes to the same bytes.
@Sendable func checkHex(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let decoded = try? Hex.decode(text) else { return }
    let printed = Hex.encode(decoded, separator: " ", uppercase: true)
    require((try? Hex.decode(printed)) == decoded, "hex \(text) → \(printed) does not decode back")
    require((try? [UInt8](hex: decoded.hexString)) == decoded, "hexString of \(text) does not decode back")
}

/// `Data`, slices and a sequence that is not contiguous read the same as an array.
@Sendable func checkOtherInputShapes(_ bytes: [UInt8]) {
    let expected = try? decodeWords(bytes)
    require((try? decodeWords(Data(bytes))) == expected, "Data reads differently from [UInt8]")
    require((try? decodeWords(bytes[...])) == expected, "ArraySlice reads differently from [UInt8]")
    require((try? decodeWords(bytes.lazy.map { $0 })) == expected, "a lazy sequence reads differently from [UInt8]")
    touch { () throws(ByteDecodingError) in _ = try String(decoding: Data(bytes)) }
}

private func decodeWords(_ bytes: some Sequence<UInt8>) throws(ByteDecodingError) -> [UInt32] {
    try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) in
        var words: [UInt32] = []
        while reader.remainingCount >= 4 { words.append(try reader.read(UInt32.self, byteOrder: .bigEndian, field: "w")) }
        words.append(UInt32(try reader.read(UInt24.self, field: "tail").value))
        return words
    }
}

@Sendable func checkCRC(_ bytes: [UInt8]) {
    blackHole(CRC16.ccittFalse.checksum(bytes))
    blackHole(CRC16.mcrf4xx.checksum(bytes))
    blackHole(CRC32.ieee.checksum(bytes))
}
