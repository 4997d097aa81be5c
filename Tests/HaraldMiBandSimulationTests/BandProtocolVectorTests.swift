import Foundation
import HaraldCodec
@testable import HaraldMiBandSimulation
import HaraldSimulator
import Testing

/// The simulated band's characteristics against the Mi Band 2 facts of protocols.md B.
@Suite("The simulated band against the Mi Band 2 protocol (protocols.md B)")
struct BandProtocolVectorTests {
    static let feeZero = BandUUID.service
    static let feeOne = BandUUID.authService

    @Test func batteryInfoOfGadgetbridgesCommentIsItsTwentyBytes() {
        // B.4: 48 %, not charging, off the charger 2016-11-26 18:35:44, 4 charges, last charge
        // ended 2016-11-26 23:43:59 at 100 %.
        let battery = FitnessBandBattery(
            level: 0x30, lastOff: DateComponents(year: 2016, month: 11, day: 26, hour: 18, minute: 35, second: 44), chargeCount: 4,
            lastCharge: DateComponents(year: 2016, month: 11, day: 26, hour: 23, minute: 43, second: 59), lastChargeLevel: 100)
        #expect(battery.bytes == bytes("0f 30 00 e0 07 0b 1a 12 23 2c 04 e0 07 0b 1a 17 2b 3b 04 64"))
    }

    @Test func aBandThatNeverChargedSendsZeroDates() {
        let bytes = FitnessBandBattery(level: 100, isCharging: true).bytes
        #expect(bytes.count == 20)
        #expect(bytes[2] == 0x01)
        #expect(Array(bytes[3...9]) == Array(repeating: 0, count: 7) && Array(bytes[11...17]) == Array(repeating: 0, count: 7))
    }

    @Test func realtimeStepsAre409Steps253MetresAnd8KilocaloriesAtFirst() async throws {
        // B.3's first vector.
        let steps = try await BandWire.run { try await $0.read(BandUUID.realtimeSteps, in: Self.feeZero) }
        #expect(steps == bytes("0C 99 01 00 00 FD 00 00 00 08 00 00 00"))
    }

    @Test func theAuthHandshakeTakesTheDefaultKeysAnswer() async throws {
        let (challenge, accepted, refused) = try await BandWire.run { wire in
            let challenge = try await wire.exchange(bytes("02 08"), on: BandUUID.auth, in: Self.feeOne) ?? []
            let cipher = try #require(AES128(key: FitnessBandState.defaultKey))
            let answer = cipher.encrypt(block: Array(challenge.dropFirst(3))) ?? []
            let accepted = try await wire.exchange([0x03, 0x08] + answer, on: BandUUID.auth, in: Self.feeOne)
            _ = try await wire.exchange(bytes("02 08"), on: BandUUID.auth, in: Self.feeOne)
            let refused = try await wire.exchange([0x03, 0x08] + answer, on: BandUUID.auth, in: Self.feeOne)
            return (challenge, accepted, refused)
        }
        #expect(challenge.count == 19 && Array(challenge.prefix(3)) == bytes("10 02 01"))
        #expect(accepted == bytes("10 03 01"))
        // A new challenge: the old answer no longer fits.
        #expect(refused == bytes("10 03 04"))
    }

    @Test func aBandWithoutAKeyRefusesTheChallengeUntilOneIsInstalled() async throws {
        let replies = try await BandWire.run(.fitnessBand(key: nil)) { wire in
            [
                try await wire.exchange(bytes("02 08"), on: BandUUID.auth, in: Self.feeOne),
                try await wire.exchange([0x01, 0x08] + FitnessBandState.defaultKey, on: BandUUID.auth, in: Self.feeOne),
                try await wire.exchange(bytes("02 08"), on: BandUUID.auth, in: Self.feeOne).map { Array($0.prefix(3)) },
            ]
        }
        #expect(replies == [bytes("10 02 04"), bytes("10 01 01"), bytes("10 02 01")])
    }

    @Test func anActivityFetchAnnouncesSendsAndEnds() async throws {
        // B.5's start command: 2026-11-21 13:50 at UTC+2 (offset 8 quarter hours), which is
        // 11:50 UTC, ten minutes before the history ends.
        let start = bytes("01 01 EA 07 0B 15 0D 32 00 08")
        let (announcement, packets, end) = try await BandWire.run { wire in
            let announcement = try await wire.exchange(start, on: BandUUID.activityControl, in: Self.feeZero)
            let control = try await wire.subscribe(BandUUID.activityControl, in: Self.feeZero)
            let data = try await wire.subscribe(BandUUID.activityData, in: Self.feeZero)
            try await wire.write([0x02], to: BandUUID.activityControl, in: Self.feeZero)
            var packets: [[UInt8]] = []
            for try await packet in data {
                packets.append(packet)
                if packets.count == 3 { break }
            }
            var replies = control.makeAsyncIterator()
            return (announcement, packets, try await replies.next())
        }
        // `10 01 01`, 10 minutes (u32 LE), from 2026-11-21 11:50:00 UTC (offset 0).
        #expect(announcement == bytes("10 01 01 0A 00 00 00 EA 07 0B 15 0B 32 00 00"))
        #expect(packets.map(\.first) == [0, 1, 2])
        #expect(packets.map(\.count) == [17, 17, 9])
        #expect(
            Array(packets.joined().enumerated().filter { $0.offset % 17 != 0 }.map(\.element)) == (350..<360).flatMap { FitnessBandSample.minute($0).bytes })
        #expect(end == bytes("10 02 01"))
    }

    @Test func aFetchWithoutAStartEndsInFailure() async throws {
        let reply = try await BandWire.run { wire in try await wire.exchange([0x02], on: BandUUID.activityControl, in: Self.feeZero) }
        #expect(reply == bytes("10 02 04"))
    }

    @Test func aSingleHeartRateMeasurementComesTwoSecondsLaterAsFlagsZeroAndBPM() async throws {
        let (measurement, waited) = try await BandWire.run { wire in
            let measurements = try await wire.subscribe(BandUUID.heartRateMeasurement, in: BandUUID.heartRateService)
            let start = wire.clock.now
            try await wire.write(bytes("15 02 01"), to: BandUUID.heartRateControlPoint, in: BandUUID.heartRateService)
            var iterator = measurements.makeAsyncIterator()
            let measurement = try await iterator.next()
            return (measurement, start.duration(to: wire.clock.now))
        }
        #expect(measurement?.count == 2 && measurement?.first == 0x00)
        #expect(waited >= .seconds(2) && waited < .seconds(3))
    }

    @Test func anUnknownControlPointCommandIsRefused() async throws {
        let refused = try await BandWire.run { wire in
            do {
                try await wire.write(bytes("15 07 01"), to: BandUUID.heartRateControlPoint, in: BandUUID.heartRateService)
                return false
            } catch {
                return true
            }
        }
        #expect(refused)
    }

    @Test func timestampsAreReadInTheirOwnOffset() throws {
        let date = try #require(BandTime.date(fromTimestamp: bytes("01 01 EA 07 0B 15 0D 32 00 08")[2...]))
        #expect(date == FitnessBandState.defaultHistoryEnd.addingTimeInterval(-10 * 60))
        #expect(BandTime.timestampBytes(date) == bytes("EA 07 0B 15 0B 32 00 00"))
        #expect(BandTime.date(fromTimestamp: bytes("EA 07 0D 15 0B 32 00 00")[...]) == nil)
    }
}
