import HaraldCodec
import PropertyBased
import Testing

private let randomBytes = Gen<UInt8>.value().array(of: 0...64)

/// Decodes `bytes` whole and as a prefix; either may throw, neither may trap. When the whole
/// decode succeeds and the type can encode, the encoding must give the input back.
private func exercise<T: ByteDecodable>(_ type: T.Type, _ bytes: [UInt8], reEncodes: Bool = true) {
    _ = try? T.decodePrefix(of: bytes)
    _ = try? T(decoding: NonContiguousBytes(bytes))
    if reEncodes, let value = try? T(decoding: bytes), let encodable = value as? any ByteEncodable {
        #expect((try? encodable.encodedBytes()) == bytes, "\(T.self) did not re-encode \(bytes.hexString)")
    }
}

@Suite("Property: random bytes never trap a decoder")
struct RandomInputProperties {
    @Test func everyStandardDecoder() async {
        await propertyCheck(count: 300, input: randomBytes) { bytes in
            exercise(UInt8.self, bytes)
            exercise(Int8.self, bytes)
            exercise(UInt16.self, bytes)
            exercise(Int16.self, bytes)
            exercise(UInt32.self, bytes)
            exercise(Int32.self, bytes)
            exercise(UInt64.self, bytes)
            exercise(Int64.self, bytes)
            exercise(UInt24.self, bytes)
            exercise(Int24.self, bytes)
            exercise(MedicalFloat16.self, bytes)
            exercise(MedicalFloat32.self, bytes)
            exercise(String.self, bytes)
            exercise([UInt8].self, bytes)
            // A UUID re-encodes in its shortest width, so 4 or 16 input bytes may come back as 2.
            _ = try? BluetoothUUID.decodePrefix(of: bytes)
            if let uuid = try? BluetoothUUID(decoding: bytes) {
                #expect((try? BluetoothUUID(decoding: uuid.encodedBytes())) == uuid)
                #expect([2, 4, 16].contains(bytes.count))
            }
            // The README type writes only the flag bits it knows, so unknown bits do not come back.
            exercise(LEDColor.self, bytes, reEncodes: false)
            exercise(StampedRecord.self, bytes)
            exercise(HeartRateMeasurement.self, bytes)
            // Float and Double: NaN payloads compare unequal, so only check they do not trap.
            _ = try? Float(decoding: bytes)
            _ = try? Double(decoding: bytes)
        }
    }

    @Test(arguments: [
        TLVFormat(typeWidth: 1, lengthWidth: 1), TLVFormat(typeWidth: 1, lengthWidth: 2),
        TLVFormat(typeWidth: 2, lengthWidth: 2, byteOrder: .bigEndian), TLVFormat(typeWidth: 4, lengthWidth: 4),
        TLVFormat(typeWidth: 4, lengthWidth: 4, byteOrder: .bigEndian),
    ])
    func tlvWalker(format: TLVFormat) async {
        await propertyCheck(count: 300, input: randomBytes) { bytes in
            guard let items = try? TLV.items(in: bytes, format: format) else { return }
            // A walk that succeeds covers every byte, so encoding the items gives the input back.
            let encoded = try TLV.encode(items, format: format)
            #expect(encoded == bytes)
        }
    }

    @Test func uuidWidthsFromTheInput() async {
        await propertyCheck(count: 300, input: randomBytes, Gen.int(in: -2...20)) { bytes, width in
            let uuid = try? ByteReader.withReader(bytes) { r throws(ByteDecodingError) in
                try BluetoothUUID.read(from: &r, byteCount: width, field: "uuid")
            }
            // Only the three UUID widths succeed, and only with enough input.
            #expect((uuid != nil) == ([2, 4, 16].contains(width) && bytes.count >= width))
        }
    }

    @Test func readerOperationsDrivenByTheInput() async {
        // Each byte picks an operation; the next byte, read as signed, is its count.
        await propertyCheck(count: 300, input: randomBytes) { bytes in
            let program = bytes
            _ = try? ByteReader.withReader(bytes) { r throws(ByteDecodingError) in
                var step = 0
                while step + 1 < program.count {
                    let count = Int(Int8(bitPattern: program[step + 1]))
                    switch program[step] % 12 {
                    case 0: _ = try? r.readBytes(count: count, field: "f")
                    case 1: _ = try? r.skip(count, field: "f")
                    case 2: _ = try? r.readUTF8(count: count, field: "f", trimmingNulls: count & 1 == 0)
                    case 3: _ = try? r.subReader(count: count, field: "f")
                    case 4: _ = try? r.decode(StampedRecord.self, byteCount: count, field: "f")
                    case 5: _ = try? r.read(UInt24.self, byteOrder: count < 0 ? .bigEndian : .littleEndian, field: "f")
                    case 6: _ = try? r.read(Int64.self, byteOrder: .bigEndian, field: "f")
                    case 7: _ = try? r.readFlags24(StatusBitForFuzz.self)
                    case 8: _ = try? r.withBytes(count: count, field: "f") { (raw) throws(ByteDecodingError) in raw.first }
                    case 9: _ = try? r.readTLV(format: TLVFormat(typeWidth: 2, lengthWidth: 2))
                    case 10: _ = r.peekByte(); _ = try? r.expectEnd()
                    default: _ = try? r.decode(MedicalFloat32.self, field: "f")
                    }
                    #expect(r.offset >= 0 && r.offset <= r.count)
                    step += 2
                }
                return r.readRemainingBytes()
            }
        }
    }

    @Test func textParsersNeverTrap() async {
        let alphabet = Array("0123456789abcdefABCDEFxX-: ,_gZ\u{301}é\t")
        let characters = Gen.int(in: 0...(alphabet.count - 1)).map { alphabet[$0] }
        await propertyCheck(count: 500, input: characters.array(of: 0...40)) { chars in
            let text = String(chars)
            if let bytes = try? Hex.decode(text) {
                let again = try Hex.decode(bytes.hexString)
                #expect(again == bytes)
            }
            if let uuid = BluetoothUUID(text) {
                #expect(BluetoothUUID(uuid.uuidString) == uuid)
            }
        }
    }
}

enum StatusBitForFuzz: Int, FlagBit {
    case low = 0
    case high = 23
    case outside = 40
}

@Suite("Property: TLV encode then walk")
struct TLVRoundTripProperties {
    @Test(arguments: [
        TLVFormat(typeWidth: 1, lengthWidth: 1), TLVFormat(typeWidth: 2, lengthWidth: 1, byteOrder: .bigEndian),
        TLVFormat(typeWidth: 1, lengthWidth: 2), TLVFormat(typeWidth: 4, lengthWidth: 2, byteOrder: .bigEndian),
    ])
    func walkingEncodedItemsGivesThemBackWithOffsets(format: TLVFormat) async {
        let maxType: UInt32 = format.typeWidth == 1 ? 0xFF : (format.typeWidth == 2 ? 0xFFFF : .max)
        let item = zip(Gen<UInt32>.value(in: 0...maxType), Gen<UInt8>.value().array(of: 0...20))
        await propertyCheck(count: 200, input: item.array(of: 0...8)) { pairs in
            let items = pairs.map { TLVItem(type: $0.0, value: $0.1) }
            let bytes = try TLV.encode(items, format: format)
            let walked = try TLV.items(in: bytes, format: format)
            try #require(walked.count == items.count)
            #expect(walked.map(\.type) == items.map(\.type))
            #expect(walked.map(\.value) == items.map(\.value))
            // Each item starts where the previous one's header and value ended.
            var offset = 0
            for (index, original) in items.enumerated() {
                #expect(walked[index].offset == offset)
                offset += format.typeWidth + format.lengthWidth + original.value.count
            }
            #expect(offset == bytes.count)
        }
    }
}
