import HaraldCodec
import PropertyBased
import Testing

@Suite("Property: Bluetooth UUIDs")
struct BluetoothUUIDProperties {
    @Test func random128BitUUIDsSurvivePrintAndParse() async {
        await propertyCheck(count: 300, input: Gen<UInt64>.value(), Gen<UInt64>.value()) { high, low in
            let uuid = BluetoothUUID(high: high, low: low)
            #expect(BluetoothUUID(uuid.uuidString) == uuid)
            #expect(BluetoothUUID(uuid.canonicalString) == uuid)
            #expect(BluetoothUUID(uuid.canonicalString.lowercased()) == uuid)
            #expect(BluetoothUUID(uuid.canonicalString.filter { $0 != "-" }) == uuid)
        }
    }

    @Test func random128BitUUIDsSurviveTheWire() async {
        await propertyCheck(count: 300, input: Gen<UInt64>.value(), Gen<UInt64>.value()) { high, low in
            let uuid = BluetoothUUID(high: high, low: low)
            var writer = ByteWriter()
            try uuid.write(to: &writer, byteCount: 16)
            #expect(writer.bytes == Array(uuid.bigEndianBytes.reversed()))
            #expect(try BluetoothUUID(decoding: writer.bytes) == uuid)
            #expect(try BluetoothUUID(decoding: uuid.encodedBytes()) == uuid)
        }
    }

    @Test func sixteenBitUUIDsSurvivePrintParseAndWire() async {
        await propertyCheck(count: 300, input: Gen<UInt16>.value()) { short in
            let uuid = BluetoothUUID(short)
            #expect(uuid.uuid16 == short)
            #expect(uuid.uuidString.count == 4)
            #expect(uuid.uuidString == uuid.uuidString.uppercased())
            #expect(BluetoothUUID(uuid.uuidString) == uuid)
            #expect(BluetoothUUID("0x" + uuid.uuidString.lowercased()) == uuid)
            #expect(BluetoothUUID(uuid.canonicalString) == uuid)
            let wire = try uuid.encodedBytes()
            #expect(wire == [UInt8(truncatingIfNeeded: short), UInt8(short >> 8)])
            #expect(try BluetoothUUID(decoding: wire) == uuid)
        }
    }

    @Test func thirtyTwoBitUUIDsSurvivePrintParseAndWire() async {
        await propertyCheck(count: 300, input: Gen<UInt32>.value(in: 0x1_0000...UInt32.max)) { value in
            let uuid = BluetoothUUID(uuid32: value)
            #expect(uuid.uuid32 == value)
            #expect(uuid.uuid16 == nil)
            #expect(uuid.uuidString.count == 8)
            #expect(BluetoothUUID(uuid.uuidString) == uuid)
            #expect(BluetoothUUID(uuid.canonicalString) == uuid)
            let wire = try uuid.encodedBytes()
            #expect(wire.count == 4)
            #expect(try BluetoothUUID(decoding: wire) == uuid)
        }
    }

    @Test func shortFormsEqualTheirExpansion() async {
        await propertyCheck(count: 300, input: Gen<UInt32>.value()) { value in
            let expanded = BluetoothUUID(high: UInt64(value) << 32 | 0x1000, low: 0x8000_0080_5F9B_34FB)
            #expect(BluetoothUUID(uuid32: value) == expanded)
            if let short = UInt16(exactly: value) { #expect(BluetoothUUID(short) == expanded) }
        }
    }
}
