import HaraldCore
import HaraldTestSupport
import Testing

@testable import HaraldSMP

/// The limits RELIABILITY.md lists for pairing, each at the default a user gets without
/// configuring anything (scripts/check-limits ties the figures here to the document).
@Suite("SMP: documented limits at their defaults")
struct SMPDefaultLimitTests {
    @Test func aPairingKeepsTheOldest16PDUsWaiting() {
        // SMPInboxBoundTests floods past this default.
        #expect(SMPPendingPDUs.capacity == 16)
    }

    @Test func aResponderInProgressHoldsTheNewest16PDUs() {
        #expect(SMPResponderService.followingPDUBufferLimit == 16)
    }

    @Test func theDefaultLimiterRemembers64AddressesDroppingTheWaitThatEndsSoonest() async {
        #expect(PairingAttemptLimiter.Policy().capacity == 64)
        let clock = ManualClock()
        // The default table (capacity 64) without the global limit, whose wait would answer for
        // every address, the dropped one too.
        var policy = PairingAttemptLimiter.Policy()
        policy.globalAllowance = nil
        #expect(policy.capacity == 64)
        let limiter = PairingAttemptLimiter(policy: policy, clock: clock)
        let stubborn = BluetoothAddress("C0:00:00:00:00:FF", kind: .random)!
        for _ in 0..<5 { await limiter.recordFailure(of: stubborn) }  // waits 32 s
        for index in 0..<64 {
            await limiter.recordFailure(of: BluetoothAddress(value: 0xC0_00_00_00_10_00 + UInt64(index), kind: .random)!)
        }
        #expect(await limiter.rememberedCount == 64)
        #expect(await limiter.remainingWait(for: stubborn) == .seconds(32))
        // The 65 addresses did not fit: one whose 2 s wait ends soonest went.
        var waits = 0
        for index in 0..<64 {
            if await limiter.remainingWait(for: BluetoothAddress(value: 0xC0_00_00_00_10_00 + UInt64(index), kind: .random)!) != nil { waits += 1 }
        }
        #expect(waits == 63)
    }

    @Test func theWarningLedgerRemembers256WeakenedConfigurationsThenStartsOver() {
        let records = LogRecords()
        let warnings = PairingWarnings(logger: records.logger)
        #expect(PairingWarnings.capacity == 256)
        // 256 distinct weakened configurations (7-octet minimum, every AuthReq octet).
        let weakened = (0...255).map { PairingConfiguration(authReq: AuthReq(rawValue: UInt8($0)), minEncryptionKeySize: 7) }
        for configuration in weakened { #expect(warnings.noteUse(of: configuration, role: "initiator")) }
        #expect(warnings.rememberedCount == 256)
        #expect(!warnings.noteUse(of: weakened[0], role: "initiator"), "all 256 fit: the first is still remembered")
        // The 257th starts the ledger over: memory stays bounded, a warning may repeat, none is lost.
        #expect(warnings.noteUse(of: PairingConfiguration(ioCapability: .displayOnly, minEncryptionKeySize: 7), role: "initiator"))
        #expect(warnings.rememberedCount == 1)
        #expect(warnings.noteUse(of: weakened[0], role: "initiator"))
        #expect(records.count(level: .warning) == 258)
    }

    @Test func theDefaultResolvingListCaches256AnswersDroppingTheOldest() {
        var list = AddressResolvingList([.init(identity: AddressResolvingListTests.sampleIdentity, key: AddressResolvingListTests.sampleIRK)])
        #expect(list.capacity == 256)
        _ = list.identity(of: AddressResolvingListTests.sampleRPA)
        for index in 0..<255 { _ = list.identity(of: BluetoothAddress(value: 0x4F_00_00_00_00_00 + UInt64(index), kind: .random)!) }
        #expect(list.cachedCount == 256)
        #expect(list.identity(of: AddressResolvingListTests.sampleRPA) == AddressResolvingListTests.sampleIdentity)
        #expect(list.computations == 256, "256 answers fit: the sample's was still cached")
        _ = list.identity(of: BluetoothAddress(value: 0x4F_00_00_00_01_00, kind: .random)!)
        #expect(list.cachedCount == 256)
        #expect(list.identity(of: AddressResolvingListTests.sampleRPA) == AddressResolvingListTests.sampleIdentity)
        #expect(list.computations == 258, "the 257th answer pushed out the oldest, the sample's")
    }
}
