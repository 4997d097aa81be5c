import Testing

@testable import HaraldMQTT

/// Each packet's bytes as MQTT 3.1.1 lays them out (section 3), both ways.
@Suite struct MQTTPacketTests {
    private func roundTrip(_ packet: MQTTPacket, _ bytes: [UInt8]) throws {
        #expect(try packet.encode() == bytes)
        #expect(try MQTTPacket.decode(bytes) == packet)
    }

    @Test func connectWithCleanSessionAndKeepAliveIsLaidOutAsSection3_1() throws {
        // "MQTT", level 4, flags 0x02 (clean session), keep-alive 60, client id "gw".
        try roundTrip(
            .connect(MQTTConnect(clientIdentifier: "gw", cleanSession: true, keepAliveSeconds: 60)),
            [0x10, 14, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x02, 0, 60, 0, 2, 0x67, 0x77])
    }

    @Test func connectCarriesWillCredentialsAndTheirFlags() throws {
        let will = MQTTLastWill(topic: "a", payload: [0x30], qos: .atLeastOnce, retain: true)
        let connect = MQTTConnect(clientIdentifier: "c", cleanSession: false, keepAliveSeconds: 10, will: will, username: "u", password: [0x70])
        // Flags: user name 0x80, password 0x40, will retain 0x20, will QoS 1 0x08, will 0x04.
        try roundTrip(
            .connect(connect),
            [0x10, 25, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0xEC, 0, 10, 0, 1, 0x63, 0, 1, 0x61, 0, 1, 0x30, 0, 1, 0x75, 0, 1, 0x70])
    }

    @Test func connectWithAPasswordButNoUserNameIsRefusedWhenEncoding() {
        let connect = MQTTConnect(clientIdentifier: "c", password: [1])
        #expect(throws: MQTTPacketError.invalidConnectFlags(0x42)) { try MQTTPacket.connect(connect).encode() }
    }

    @Test func connAckCarriesSessionPresentAndReturnCode() throws {
        try roundTrip(.connAck(MQTTConnAck(sessionPresent: true, returnCode: .accepted)), [0x20, 2, 1, 0])
        try roundTrip(.connAck(MQTTConnAck(sessionPresent: false, returnCode: .notAuthorized)), [0x20, 2, 0, 5])
    }

    @Test func connAckWithAnUnknownReturnCodeThrows() {
        #expect(throws: MQTTPacketError.invalidConnectReturnCode(6)) { try MQTTPacket.decode([0x20, 2, 0, 6]) }
    }

    @Test func publishAtQoS0HasNoPacketIdentifier() throws {
        try roundTrip(.publish(MQTTPublish(topic: "a/b", payload: [1, 2])), [0x30, 7, 0, 3, 0x61, 0x2F, 0x62, 1, 2])
    }

    @Test func publishAtQoS1CarriesRetainDupAndPacketIdentifier() throws {
        let publish = MQTTPublish(topic: "t", payload: [9], qos: .atLeastOnce, retain: true, duplicate: true, packetIdentifier: 0x0102)
        try roundTrip(.publish(publish), [0x3B, 6, 0, 1, 0x74, 0x01, 0x02, 9])
    }

    @Test func publishAtQoS1WithoutAPacketIdentifierIsRefusedWhenEncoding() {
        #expect(throws: MQTTPacketError.zeroPacketIdentifier) { try MQTTPacket.publish(MQTTPublish(topic: "t", payload: [], qos: .atLeastOnce)).encode() }
    }

    @Test func publishToAWildcardTopicIsRefused() {
        #expect(throws: MQTTPacketError.invalidTopicName) { try MQTTPacket.publish(MQTTPublish(topic: "a/+", payload: [])).encode() }
        #expect(throws: MQTTPacketError.invalidTopicName) { try MQTTPacket.decode([0x30, 3, 0, 1, 0x23]) }
    }

    @Test func pubAckCarriesThePacketIdentifier() throws {
        try roundTrip(.pubAck(packetIdentifier: 7), [0x40, 2, 0, 7])
    }

    @Test func subscribeHasFlags0010AndOneQoSBytePerFilter() throws {
        let subscribe = MQTTSubscribe(packetIdentifier: 10, filters: [MQTTTopicFilter("a/#", qos: .atLeastOnce), MQTTTopicFilter("b")])
        try roundTrip(.subscribe(subscribe), [0x82, 12, 0, 10, 0, 3, 0x61, 0x2F, 0x23, 1, 0, 1, 0x62, 0])
    }

    @Test func subAckCarriesGrantedQoSAndFailure() throws {
        try roundTrip(.subAck(MQTTSubAck(packetIdentifier: 10, returnCodes: [.granted(maximumQoS: 1), .failure])), [0x90, 4, 0, 10, 1, 0x80])
    }

    @Test func unsubscribeAndUnsubAckCarryFiltersAndIdentifier() throws {
        try roundTrip(.unsubscribe(MQTTUnsubscribe(packetIdentifier: 3, filters: ["x"])), [0xA2, 5, 0, 3, 0, 1, 0x78])
        try roundTrip(.unsubAck(packetIdentifier: 3), [0xB0, 2, 0, 3])
    }

    @Test func pingAndDisconnectAreTwoBytes() throws {
        try roundTrip(.pingRequest, [0xC0, 0])
        try roundTrip(.pingResponse, [0xD0, 0])
        try roundTrip(.disconnect, [0xE0, 0])
    }

    // MARK: Malformed input

    @Test func aTruncatedPacketThrowsTruncated() {
        #expect(throws: MQTTPacketError.truncated) { try MQTTPacket.decode([0x30, 7, 0, 3, 0x61]) }
        #expect(throws: MQTTPacketError.truncated) { try MQTTPacket.decode([0x40, 1, 0]) }
        #expect(throws: MQTTPacketError.truncated) { try MQTTPacket.decode([]) }
    }

    @Test func aStringLongerThanItsPacketThrowsTruncated() {
        #expect(throws: MQTTPacketError.truncated) { try MQTTPacket.decode([0x30, 3, 0, 9, 0x61]) }
    }

    @Test func wrongFixedHeaderFlagsThrow() {
        #expect(throws: MQTTPacketError.invalidFlags(packetType: 8, flags: 0)) { try MQTTPacket.decode([0x80, 6, 0, 1, 0, 1, 0x61, 0]) }
        #expect(throws: MQTTPacketError.invalidFlags(packetType: 12, flags: 1)) { try MQTTPacket.decode([0xC1, 0]) }
    }

    @Test func publishWithQoS3OrDupAtQoS0Throws() {
        #expect(throws: MQTTPacketError.invalidQoS(3)) { try MQTTPacket.decode([0x36, 3, 0, 1, 0x61]) }
        #expect(throws: MQTTPacketError.invalidFlags(packetType: 3, flags: 8)) { try MQTTPacket.decode([0x38, 3, 0, 1, 0x61]) }
    }

    @Test func qos2PacketsAreRefusedAsUnsupported() {
        #expect(throws: MQTTPacketError.unsupportedPacketType(5)) { try MQTTPacket.decode([0x50, 2, 0, 1]) }
        #expect(throws: MQTTPacketError.unsupportedPacketType(3)) { try MQTTPacket.decode([0x34, 5, 0, 1, 0x61, 0, 1]) }
    }

    @Test func reservedPacketTypesThrow() {
        #expect(throws: MQTTPacketError.unknownPacketType(0)) { try MQTTPacket.decode([0x00, 0]) }
        #expect(throws: MQTTPacketError.unknownPacketType(15)) { try MQTTPacket.decode([0xF0, 0]) }
    }

    @Test func aZeroPacketIdentifierThrows() {
        #expect(throws: MQTTPacketError.zeroPacketIdentifier) { try MQTTPacket.decode([0x40, 2, 0, 0]) }
    }

    @Test func bytesPastAFixedLengthPacketThrow() {
        #expect(throws: MQTTPacketError.trailingBytes) { try MQTTPacket.decode([0x40, 3, 0, 1, 9]) }
    }

    @Test func connectForAnotherProtocolLevelThrows() {
        #expect(throws: MQTTPacketError.unsupportedProtocol(name: "MQTT", level: 3)) {
            try MQTTPacket.decode([0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 3, 0x02, 0, 60, 0, 0])
        }
    }

    @Test func connectWithTheReservedFlagSetThrows() {
        #expect(throws: MQTTPacketError.invalidConnectFlags(0x03)) {
            try MQTTPacket.decode([0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x03, 0, 60, 0, 0])
        }
    }

    @Test func invalidUTF8InATopicThrows() {
        #expect(throws: MQTTPacketError.invalidUTF8) { try MQTTPacket.decode([0x30, 3, 0, 1, 0xFF]) }
        #expect(throws: MQTTPacketError.invalidUTF8) { try MQTTPacket.decode([0x30, 3, 0, 1, 0x00]) }
    }

    @Test func aSubscribeWithoutFiltersThrows() {
        #expect(throws: MQTTPacketError.emptyTopicList) { try MQTTPacket.decode([0x82, 2, 0, 1]) }
        #expect(throws: MQTTPacketError.emptyTopicList) { try MQTTPacket.subscribe(MQTTSubscribe(packetIdentifier: 1, filters: [])).encode() }
    }

    @Test func aFieldLongerThan65535BytesIsRefusedWhenEncoding() {
        let will = MQTTLastWill(topic: "t", payload: Array(repeating: 0, count: 65_536))
        #expect(throws: MQTTPacketError.fieldTooLong(65_536)) { try MQTTPacket.connect(MQTTConnect(clientIdentifier: "c", will: will)).encode() }
    }
}
