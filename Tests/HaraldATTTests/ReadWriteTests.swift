import HaraldATT
import HaraldCodec
import Testing

@Suite("GATT reads and writes")
struct ReadWriteTests {
    @Test("GATT/CL/GAR/BV-01-C: Read Characteristic Value returns the stored value")
    func readReturnsTheStoredValue() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(BluetoothUUID(0x2A00))
        #expect(try await link.client.read(handle: handle) == Array("Harald".utf8))
    }

    @Test func readCutsTheValueToMTUMinusOne() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        #expect(try await link.client.read(handle: handle) == Array(SampleDevice.longValue.prefix(22)))
    }

    /// Read Long = 1 Read + ⌈(len − (MTU − 1)) / (MTU − 1)⌉ Read Blobs (protocols.md D.5).
    @Test(arguments: [23, 50])
    func readLongCostsTheCoreSpecRoundTrips(mtu: Int) async throws {
        let link = try await Link(services: SampleDevice.services, mtu: mtu)
        try await link.client.exchangeMTU()
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        #expect(try await link.client.readLong(handle: handle) == SampleDevice.longValue)
        let counters = await link.client.counters
        #expect(counters.roundTrips[.readRequest] == 1)
        #expect(counters.roundTrips[.readBlobRequest] == ceilDiv(100 - (mtu - 1), mtu - 1))
    }

    @Test func readLongOfAShortValueStopsAfterTheRead() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(BluetoothUUID(0x2A00))
        #expect(try await link.client.readLong(handle: handle) == Array("Harald".utf8))
        let observed1 = await link.client.counters.roundTrips[.readBlobRequest]
        #expect(observed1 == nil)
    }

    @Test func readLongOfExactlyOneFullReadEndsOnAttributeNotLong() async throws {
        let value = (0..<22).map { UInt8($0) }
        let link = try await Link(services: [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180A),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A29), properties: .read, value: value)
                ])
        ])
        let handle = await link.valueHandle(BluetoothUUID(0x2A29))
        #expect(try await link.client.readLong(handle: handle) == value)
        let observed2 = await link.client.counters.roundTrips[.readBlobRequest]
        #expect(observed2 == 1)
    }

    @Test func readBlobPastTheEndIsInvalidOffset() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        await #expect(throws: GATTError.attribute(.invalidOffset, handle: handle, request: .readBlobRequest)) {
            try await link.client.readBlob(handle: handle, offset: 101)
        }
        #expect(try await link.client.readBlob(handle: handle, offset: 100) == [])
    }

    @Test func readBlobOfAShortValueIsAttributeNotLong() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(BluetoothUUID(0x2A00))
        await #expect(throws: GATTError.attribute(.attributeNotLong, handle: handle, request: .readBlobRequest)) {
            try await link.client.readBlob(handle: handle, offset: 1)
        }
    }

    @Test("GATT/CL/GAR/BI-01-C: a read of an unknown handle fails with Invalid Handle")
    func readOfAnUnknownHandleIsInvalidHandle() async throws {
        let link = try await Link(services: SampleDevice.services)
        await #expect(throws: GATTError.attribute(.invalidHandle, handle: 0x0F00, request: .readRequest)) {
            try await link.client.read(handle: 0x0F00)
        }
    }

    @Test func readMultipleConcatenatesValues() async throws {
        let link = try await Link(services: SampleDevice.services)
        let location = await link.valueHandle(BluetoothUUID(0x2A38))
        let battery = await link.valueHandle(BluetoothUUID(0x2A19))
        #expect(try await link.client.readMultiple(handles: [location, battery]) == [0x01, 85])
    }

    @Test func readMultipleVariablePrefixesEachLength() async throws {
        let link = try await Link(services: SampleDevice.services)
        let name = await link.valueHandle(BluetoothUUID(0x2A00))
        let battery = await link.valueHandle(BluetoothUUID(0x2A19))
        let long = await link.valueHandle(SampleDevice.vendorLong)
        let entries = try await link.client.readMultipleVariable(handles: [name, battery, long])
        #expect(entries.map { $0.value } == [Array("Harald".utf8), [85], Array(SampleDevice.longValue.prefix(22 - 8 - 3 - 2))])
        #expect(entries.map { $0.length } == [6, 1, 100])
        #expect(entries.map { $0.isTruncated } == [false, false, true])
    }

    @Test func readUsingCharacteristicUUIDReturnsHandleValuePairs() async throws {
        let link = try await Link(services: SampleDevice.services)
        let entries = try await link.client.read(type: BluetoothUUID(0x2A19))
        let handle = await link.valueHandle(BluetoothUUID(0x2A19))
        #expect(entries == [ATTHandleValue(handle: handle, value: [85])])
    }

    @Test("GATT/CL/GAW/BV-03-C, GATT/SR/GAW/BV-03-C: Write Characteristic Value stores the value")
    func writeRequestStoresTheValue() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(BluetoothUUID(0x2A39))
        try await link.client.write(handle: handle, value: [0x01])
        let observed3 = await link.server.value(handle: handle)
        #expect(observed3 == [0x01])
    }

    @Test func writeLongerThanMTUMinusThreeIsRejectedBeforeSending() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        await #expect(throws: GATTError.self) { try await link.client.write(handle: handle, value: Array(repeating: 1, count: 21)) }
        let observed4 = await link.client.counters.totalPDUsSent
        #expect(observed4 == 0)
    }

    @Test("GATT/CL/GAW/BV-01-C: Write Without Response reaches the server")
    func writeWithoutResponseReachesTheServer() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        try await link.client.writeWithoutResponse(handle: handle, value: [9, 9])
        // A request after the command is answered only after the command was handled.
        _ = try await link.client.read(handle: handle)
        let observed5 = await link.server.value(handle: handle)
        #expect(observed5 == [9, 9])
        let observed6 = await link.client.counters.pdusSent[.writeCommand]
        #expect(observed6 == 1)
    }

    /// Write Long = one Prepare Write per (MTU − 5) bytes + one Execute Write (D.5).
    @Test("GATT/CL/GAW/BV-05-C: Write Long Characteristic Values costs the Core spec round trips (plain and reliable)", arguments: [false, true])
    func writeLongCostsTheCoreSpecRoundTrips(reliable: Bool) async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        let value = (0..<70).map { UInt8(255 - $0) }
        try await link.client.writeLong(handle: handle, value: value, reliable: reliable)
        let observed7 = await link.server.value(handle: handle)
        #expect(observed7 == value)
        let counters = await link.client.counters
        #expect(counters.roundTrips[.prepareWriteRequest] == ceilDiv(70, 23 - 5))
        #expect(counters.roundTrips[.executeWriteRequest] == 1)
    }

    @Test func writeLongAtAnOffsetPatchesTheStoredValue() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        try await link.client.writeLong(handle: handle, value: [0xAA, 0xBB], offset: 10)
        var expected = SampleDevice.longValue
        expected[10] = 0xAA
        expected[11] = 0xBB
        let observed8 = await link.server.value(handle: handle)
        #expect(observed8 == expected)
    }

    @Test func fullPrepareQueueFailsTheWriteAndCancelsTheQueue() async throws {
        let link = try await Link(services: SampleDevice.services, serverConfiguration: .exactLayout(maximumPreparedWrites: 2))
        let handle = await link.valueHandle(SampleDevice.vendorLong)
        await #expect(throws: GATTError.attribute(.prepareQueueFull, handle: handle, request: .prepareWriteRequest)) {
            try await link.client.writeLong(handle: handle, value: Array(repeating: 7, count: 50))
        }
        let observed9 = await link.server.preparedWriteCount(for: link.connection)
        #expect(observed9 == 0)
        let observed10 = await link.server.value(handle: handle)
        #expect(observed10 == SampleDevice.longValue)
        let observed11 = await link.client.counters.roundTrips[.executeWriteRequest]
        #expect(observed11 == 1)
    }

    @Test func executeWithAGapInOffsetsIsInvalidOffsetAndWritesNothing() async throws {
        let real = try await Link(services: SampleDevice.services)
        let handle = await real.valueHandle(BluetoothUUID(0x2A39))
        await #expect(throws: GATTError.attribute(.invalidOffset, handle: handle, request: .executeWriteRequest)) {
            try await real.client.writeLong(handle: handle, value: [1, 2], offset: 5)
        }
        let observed12 = await real.server.value(handle: handle)
        #expect(observed12 == [])
    }
}
