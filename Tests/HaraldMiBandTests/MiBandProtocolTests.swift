import Foundation
import HaraldCodec
import HaraldMiBand
import HaraldProfiles
import PropertyBased
import Testing

@Suite("Mi Band auth messages")
struct MiBandAuthMessageTests {
    @Test func commandsEncodeWithTheMiBand2Flags() throws {
        let key = Array(0..<16).map(UInt8.init)
        #expect(try MiBandAuthCommand.requestChallenge().encodedBytes() == [0x02, 0x08])
        #expect(try MiBandAuthCommand.setKey(key).encodedBytes() == [0x01, 0x08] + key)
        #expect(try MiBandAuthCommand.answer(key).encodedBytes() == [0x03, 0x08] + key)
    }

    @Test func commandsDecodeBack() throws {
        let key = Array(repeating: UInt8(0xAB), count: 16)
        for command in [MiBandAuthCommand.requestChallenge(flags: 0x00), .setKey(key), .answer(key)] {
            #expect(try MiBandAuthCommand(decoding: command.encodedBytes()) == command)
        }
    }

    @Test func aKeyOfTheWrongLengthCannotBeEncoded() {
        #expect(throws: ByteEncodingError.self) { try MiBandAuthCommand.setKey([1, 2, 3]).encodedBytes() }
    }

    @Test func anUnknownCommandOrAShortKeyIsRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandAuthCommand(decoding: [0x07, 0x08]) }
        #expect(throws: ByteDecodingError.self) { try MiBandAuthCommand(decoding: [0x01, 0x08, 0x00]) }
        #expect(throws: ByteDecodingError.self) { try MiBandAuthCommand(decoding: [0x02]) }
    }

    @Test func aChallengeReplyCarriesSixteenRandomBytes() throws {
        let random = Array(100..<116).map(UInt8.init)
        let reply = try MiBandAuthReply(decoding: [0x10, 0x02, 0x01] + random)
        #expect(reply.command == 0x02 && reply.status == .success && reply.challenge == random)
    }

    @Test func newerFirmwaresFlaggedCommandEchoNamesTheSameCommand() throws {
        let reply = try MiBandAuthReply(decoding: [0x10, 0x83, 0x01])
        #expect(reply.command == 0x03 && reply.status == .success)
    }

    @Test func refusalsDecodeAsFailure() throws {
        #expect(try MiBandAuthReply(decoding: [0x10, 0x03, 0x04]).status == .failure)
        #expect(try MiBandAuthReply(decoding: [0x10, 0x02, 0x04]).challenge == nil)
        #expect(try MiBandAuthReply(decoding: [0x10, 0x01, 0x07]).status == .other(0x07))
    }

    @Test func aReplyWithoutTheResponseCodeIsRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandAuthReply(decoding: [0x11, 0x03, 0x01]) }
    }

    @Test func aShortChallengeIsRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandAuthReply(decoding: [0x10, 0x02, 0x01, 0xAA, 0xBB]) }
        #expect(throws: ByteDecodingError.self) { try MiBandAuthReply(decoding: [0x10, 0x02]) }
    }
}

@Suite("Mi Band AES-128 (swift-crypto)")
struct MiBandKeyTests {
    @Test func encryptsTheFIPS197AppendixC1Vector() throws {
        let key = try #require(MiBandKey(hex: "000102030405060708090a0b0c0d0e0f"))
        #expect(try key.encrypt(block: [UInt8](hex: "00112233445566778899aabbccddeeff")) == [UInt8](hex: "69c4e0d86a7b0430d8cdb78070b4c55a"))
    }

    @Test func encryptsTheHandshakeVectorWithTheDefaultKey() throws {
        // protocols.md B.2: the default key and the challenge 00 01 … 0f.
        #expect(try MiBandKey.default.encrypt(block: Array(0...15)) == [UInt8](hex: "f5003494346bffac69990bf7f317e5db"))
    }

    @Test func theDefaultKeyIsTheWellKnownOne() {
        #expect(MiBandKey.default.bytes == Array("0123456789@ABCDE".utf8))
        #expect(MiBandKey(hex: "30313233343536373839404142434445") == .default)
    }

    @Test func keysOfTheWrongLengthAndBadHexAreRejected() {
        #expect(MiBandKey([1, 2, 3]) == nil)
        #expect(MiBandKey(hex: "0011") == nil)
        #expect(MiBandKey(hex: String(repeating: "zz", count: 16)) == nil)
    }

    @Test func aChallengeOfTheWrongLengthIsATypedError() {
        #expect(throws: MiBandError.invalidChallenge(3)) { try MiBandKey.default.encrypt(block: [1, 2, 3]) }
    }

    @Test func theKeyNeverAppearsInItsDescription() throws {
        let key = try #require(MiBandKey(hex: "a1a2a3a4a5a6a7a8a9aaabacadaeafb0"))
        #expect(!key.description.lowercased().contains("a1a2"))
    }
}

@Suite("Mi Band battery info")
struct MiBandBatteryInfoTests {
    @Test func decodesGadgetbridgesCapture() throws {
        let info = try MiBandBatteryInfo(decoding: [UInt8](hex: "0f 30 00 e0 07 0b 1a 12 23 2c 04 e0 07 0b 1a 17 2b 3b 04 64"))
        #expect(info.level == 48)
        #expect(!info.isCharging)
        #expect(info.lastOff == MiBandDateTime(year: 2016, month: 11, day: 26, hour: 18, minute: 35, second: 44))
        #expect(info.chargeCount == 4)
        #expect(info.lastCharge == MiBandDateTime(year: 2016, month: 11, day: 26, hour: 23, minute: 43, second: 59))
        #expect(info.lastChargeLevel == 100)
    }

    @Test func chargingIsByteTwo() throws {
        var bytes = try [UInt8](hex: "0f 30 01 e0 07 0b 1a 12 23 2c 04 e0 07 0b 1a 17 2b 3b 04 64")
        #expect(try MiBandBatteryInfo(decoding: bytes).chargingState == .charging)
        bytes[2] = 9
        #expect(try MiBandBatteryInfo(decoding: bytes).chargingState == .other(9))
    }

    @Test func aBandThatNeverChargedHasNoDates() throws {
        let info = try MiBandBatteryInfo(decoding: [0x0F, 100, 0] + [UInt8](repeating: 0, count: 7) + [0] + [UInt8](repeating: 0, count: 7) + [0, 0])
        #expect(info.lastOff == nil && info.lastCharge == nil)
        #expect(try info.encodedBytes().count == 20)
    }

    @Test func aShortValueIsRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandBatteryInfo(decoding: [0x0F, 0x30, 0x00]) }
    }

    @Test func aLevelAbove100IsRejected() {
        #expect(throws: ByteDecodingError.self) {
            try MiBandBatteryInfo(decoding: [UInt8](hex: "0f 65 00 e0 07 0b 1a 12 23 2c 04 e0 07 0b 1a 17 2b 3b 04 64"))
        }
    }

    @Test func anImpossibleDateIsRejectedWithItsFieldPath() throws {
        let error = try #require(throws: ByteDecodingError.self) {
            try MiBandBatteryInfo(decoding: [UInt8](hex: "0f 30 00 e0 07 0d 1a 12 23 2c 04 e0 07 0b 1a 17 2b 3b 04 64"))
        }
        #expect(error.field == "lastOff.month")
    }

    @Test func roundTripsEveryValidValue() async {
        await propertyCheck(input: MiBandGen.battery) { info in
            let decoded = try MiBandBatteryInfo(decoding: info.encodedBytes())
            #expect(decoded == info)
        }
    }
}

@Suite("Mi Band realtime steps")
struct MiBandRealtimeStepsTests {
    @Test(arguments: [
        ("0C A3 01 00 00 0D 01 00 00 09 00 00 00", 419, 269, 9), ("0C 0C 00 00 00 00 00 00 00 00 00 00 00", 12, 0, 0),
        ("0c 99 01 00 00 fd 00 00 00 08 00 00 00", 409, 253, 8),
    ])
    func captures(hex: String, steps: UInt32, meters: UInt32, calories: UInt32) throws {
        let value = try MiBandRealtimeSteps(decoding: [UInt8](hex: hex))
        #expect(value.steps == steps)
        #expect(value.meters == meters)
        #expect(value.calories == calories)
    }

    @Test func aShortValueIsRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandRealtimeSteps(decoding: [UInt8](hex: "0C 0C 00 00 00")) }
    }

    @Test func roundTripsEveryValue() async {
        await propertyCheck(input: MiBandGen.steps) { steps in
            let decoded = try MiBandRealtimeSteps(decoding: steps.encodedBytes())
            #expect(decoded == steps)
        }
    }

    /// Not one of the standard SIG values: a registry names and decodes it once the kit's types
    /// are registered (as the CLI's registry does).
    @Test func aRegistryWithTheKitsTypesNamesAndDecodesIt() throws {
        #expect(CharacteristicRegistry.standard.entry(for: MiBandRealtimeSteps.uuid) == nil)
        var registry = CharacteristicRegistry.standard
        for type in CharacteristicRegistry.miBandTypes { registry.register(type) }
        #expect(registry.entry(for: MiBandRealtimeSteps.uuid)?.name == "Mi Band Realtime Steps")
        let decoded = try registry.describe([UInt8](hex: "0c 99 01 00 00 fd 00 00 00 08 00 00 00"), as: MiBandRealtimeSteps.uuid)
        #expect(decoded == .object(["steps": .int(409), "meters": .int(253), "calories": .int(8), "type": .int(12)]))
    }
}

@Suite("Mi Band heart-rate control point commands")
struct MiBandHeartRateCommandTests {
    @Test func encodesTheKnownCommands() throws {
        #expect(try MiBandHeartRateCommand.setMode(.single, enabled: true).encodedBytes() == [0x15, 0x02, 0x01])
        #expect(try MiBandHeartRateCommand.setMode(.continuous, enabled: true).encodedBytes() == [0x15, 0x01, 0x01])
        #expect(try MiBandHeartRateCommand.setMode(.continuous, enabled: false).encodedBytes() == [0x15, 0x01, 0x00])
        #expect(try MiBandHeartRateCommand.setMode(.sleep, enabled: true).encodedBytes() == [0x15, 0x00, 0x01])
        #expect(try MiBandHeartRateCommand.measurementInterval(minutes: 10).encodedBytes() == [0x14, 0x0A])
        #expect(try MiBandHeartRateCommand.keepAlive.encodedBytes() == [0x16])
    }

    @Test func decodesWhatItEncodes() throws {
        var commands: [MiBandHeartRateCommand] = [.keepAlive, .measurementInterval(minutes: 0)]
        for mode in MiBandHeartRateCommand.Mode.allCases { commands += [.setMode(mode, enabled: true), .setMode(mode, enabled: false)] }
        for command in commands { #expect(try MiBandHeartRateCommand(decoding: command.encodedBytes()) == command) }
    }

    @Test func unknownCodesModesAndSwitchesAreRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandHeartRateCommand(decoding: [0x17]) }
        #expect(throws: ByteDecodingError.self) { try MiBandHeartRateCommand(decoding: [0x15, 0x05, 0x01]) }
        #expect(throws: ByteDecodingError.self) { try MiBandHeartRateCommand(decoding: [0x15, 0x01, 0x02]) }
        #expect(throws: ByteDecodingError.self) { try MiBandHeartRateCommand(decoding: [0x15, 0x01]) }
        #expect(throws: ByteDecodingError.self) { try MiBandHeartRateCommand(decoding: []) }
    }
}

@Suite("Mi Band activity fetch messages")
struct MiBandActivityFetchMessageTests {
    static let since = MiBandTimestamp(MiBandDateTime(year: 2026, month: 11, day: 21, hour: 9, minute: 30), timeZoneQuarterHours: 8)

    @Test func theStartCommandCarriesTypeAndTimestamp() throws {
        let bytes = try MiBandActivityFetchCommand.start(since: Self.since).encodedBytes()
        #expect(bytes == [0x01, 0x01, 0xEA, 0x07, 11, 21, 9, 30, 0, 8])
        #expect(try MiBandActivityFetchCommand(decoding: bytes) == .start(since: Self.since))
        #expect(try MiBandActivityFetchCommand.fetch.encodedBytes() == [0x02])
    }

    @Test func theTimestampsOffsetIsAppliedToTheInstant() {
        // 09:30 at UTC+2 is 07:30 UTC.
        #expect(Self.since.date == MiBandDateTime(year: 2026, month: 11, day: 21, hour: 7, minute: 30).date())
    }

    @Test func aStartedReplyAnnouncesCountAndFirstMinute() throws {
        let bytes: [UInt8] = [0x10, 0x01, 0x01, 0xB4, 0x00, 0x00, 0x00, 0xEA, 0x07, 11, 21, 9, 30, 0, 8]
        #expect(try MiBandActivityFetchReply(decoding: bytes) == .started(count: 180, from: Self.since))
        #expect(try MiBandActivityFetchReply.started(count: 180, from: Self.since).encodedBytes() == bytes)
    }

    @Test func refusalsAndEndsDecode() throws {
        #expect(try MiBandActivityFetchReply(decoding: [0x10, 0x01, 0x04]) == .refused(.failure))
        #expect(try MiBandActivityFetchReply(decoding: [0x10, 0x02, 0x01]) == .finished(.success))
        #expect(try MiBandActivityFetchReply(decoding: [0x10, 0x02, 0x04]) == .finished(.failure))
    }

    @Test func malformedRepliesAreRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandActivityFetchReply(decoding: [0x10, 0x01, 0x01, 0xB4]) }
        #expect(throws: ByteDecodingError.self) { try MiBandActivityFetchReply(decoding: [0x10, 0x05, 0x01]) }
        #expect(throws: ByteDecodingError.self) { try MiBandActivityFetchReply(decoding: [0x20, 0x02, 0x01]) }
        #expect(throws: ByteDecodingError.self) { try MiBandActivityFetchReply(decoding: [0x10, 0x02, 0x01, 0x00]) }
    }

    @Test func aPacketIsACounterAndWholeSamples() throws {
        let packet = try MiBandActivityPacket(decoding: [0x05, 0x01, 0x10, 0x20, 0x50, 0x11, 0x30, 0x40, 0xFF])
        #expect(packet.counter == 5)
        #expect(
            packet.samples == [
                MiBandActivitySample(category: 0x01, intensity: 0x10, steps: 0x20, rawHeartRate: 0x50),
                MiBandActivitySample(category: 0x11, intensity: 0x30, steps: 0x40, rawHeartRate: 0xFF),
            ])
        #expect(packet.samples.map(\.heartRate) == [80, nil])
    }

    @Test func aPacketWithAPartialSampleIsRejected() {
        #expect(throws: ByteDecodingError.self) { try MiBandActivityPacket(decoding: [0x00, 0x01, 0x02]) }
        #expect(throws: ByteDecodingError.self) { try MiBandActivityPacket(decoding: []) }
    }

    @Test func packetsRoundTrip() async {
        await propertyCheck(input: MiBandGen.packet) { packet in
            let decoded = try MiBandActivityPacket(decoding: packet.encodedBytes())
            #expect(decoded == packet)
        }
    }
}

/// Generators of valid Mi Band values.
enum MiBandGen {
    static let steps = zip(Gen.uint8(), Gen.uint32(), Gen.uint32(), Gen.uint32()).map {
        MiBandRealtimeSteps(type: $0, steps: $1, meters: $2, calories: $3)
    }
    static let dateTime = zip(
        Gen.uint16(), Gen.uint8(in: 1...12), Gen.uint8(in: 1...31), Gen.uint8(in: 0...23), Gen.uint8(in: 0...59), Gen.uint8(in: 0...59)
    ).map { MiBandDateTime(year: $0.0 == 0 ? 1 : $0.0, month: $0.1, day: $0.2, hour: $0.3, minute: $0.4, second: $0.5) }

    static let battery = zip(
        Gen.uint8(in: 0...100), Gen.uint8(in: 0...3), dateTime.optional, Gen.uint8(), dateTime.optional, Gen.uint8(), Gen.uint8()
    ).map { level, state, off, count, charge, reserved, last in
        MiBandBatteryInfo(
            level: level, chargingState: .init(rawValue: state), lastOff: off, chargeCount: count, lastCharge: charge, reserved: reserved,
            lastChargeLevel: last)
    }

    static let sample = zip(Gen.uint8(), Gen.uint8(), Gen.uint8(), Gen.uint8())
        .map { MiBandActivitySample(category: $0.0, intensity: $0.1, steps: $0.2, rawHeartRate: $0.3) }

    static let packet = zip(Gen.uint8(), sample.array(of: 0...4)).map { MiBandActivityPacket(counter: $0.0, samples: $0.1) }
}

@Suite("Mi Band messages from arbitrary bytes")
struct MiBandArbitraryBytesTests {
    /// Decodes `T` from `bytes`; when that works, the value must encode back to exactly `bytes`
    /// (every message but the auth reply has a single wire form). Failures must be typed.
    static func expectSingleWireForm<T: ByteCodable>(_: T.Type, _ bytes: [UInt8]) {
        guard let value = try? T(decoding: bytes) else { return }
        #expect((try? value.encodedBytes()) == bytes, "\(T.self) from \(bytes.hexString)")
    }

    static let bytes = Gen.uint8().array(of: 0...24)

    @Test func decodedMessagesReEncodeToTheirInput() async {
        await propertyCheck(input: Self.bytes) { bytes in
            Self.expectSingleWireForm(MiBandAuthCommand.self, bytes)
            Self.expectSingleWireForm(MiBandHeartRateCommand.self, bytes)
            Self.expectSingleWireForm(MiBandActivityFetchCommand.self, bytes)
            Self.expectSingleWireForm(MiBandActivityFetchReply.self, bytes)
            Self.expectSingleWireForm(MiBandActivityPacket.self, bytes)
            Self.expectSingleWireForm(MiBandBatteryInfo.self, bytes)
        }
    }

}
