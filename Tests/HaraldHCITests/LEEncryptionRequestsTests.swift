import HaraldCore
import HaraldHCI
import Testing

/// A central's LE Enable Encryption requests as a value: one per link, and what the controller's
/// events mean for them. Waiters are names and timers numbers here.
@Suite("LE encryption requests: one per link, and their outcomes")
struct LEEncryptionRequestsTests {
    typealias Requests = LEEncryptionRequests<String, Int>

    @Test func aSecondRequestOnTheSameLinkIsRefusedButAnotherLinkMayEncrypt() {
        var requests = Requests()
        let first = requests.begin(handle: 0x40, id: 1, waiter: "first")
        let again = requests.begin(handle: 0x40, id: 2, waiter: "again")
        let other = requests.begin(handle: 0x41, id: 3, waiter: "other link")
        #expect(first && !again && other)
        #expect(requests.requests[0x40]?.waiter == "first")
    }

    @Test func aTimerIsKeptOnlyForTheRequestItWasArmedFor() {
        var requests = Requests()
        _ = requests.begin(handle: 0x40, id: 1, waiter: "first")
        let armed = requests.arm(10, handle: 0x40, id: 1)
        let stale = requests.arm(11, handle: 0x40, id: 9)
        #expect(armed && !stale)
        #expect(requests.requests[0x40]?.timer == 10)
    }

    @Test func endingHandsBackTheRequestOnceAndOnlyForItsOwnID() {
        var requests = Requests()
        _ = requests.begin(handle: 0x40, id: 1, waiter: "first")
        _ = requests.arm(10, handle: 0x40, id: 1)
        #expect(requests.end(handle: 0x40, id: 2) == nil, "a timeout of an earlier request ends nothing")
        let ended = requests.end(handle: 0x40)
        #expect(ended?.waiter == "first" && ended?.timer == 10)
        #expect(requests.end(handle: 0x40) == nil)
        let next = requests.begin(handle: 0x40, id: 2, waiter: "next")
        #expect(next)
    }

    @Test func anEncryptionChangeThatEncryptsGivesTheReportedKeySize() throws {
        let outcome = Requests.outcome(of: EncryptionChange(status: .success, handle: 0x40, isEncrypted: true, keySize: 16))
        #expect(try outcome.get() == LinkEncryption(isEncrypted: true, keySize: 16))
    }

    @Test func aRefusedEncryptionChangeFailsWithItsStatus() {
        let outcome = Requests.outcome(of: EncryptionChange(status: .pinOrKeyMissing, handle: 0x40, isEncrypted: false))
        #expect(outcome == .failure(.encryptionFailed(.pinOrKeyMissing)))
    }

    @Test func aSuccessfulEncryptionChangeThatLeavesTheLinkInClearIsAFailure() {
        let outcome = Requests.outcome(of: EncryptionChange(status: .success, handle: 0x40, isEncrypted: false))
        #expect(outcome == .failure(.encryptionFailed(.unspecifiedError)))
    }

    @Test func aKeyRefreshKeepsTheKeySizeTheLinkHad() throws {
        let outcome = Requests.outcome(of: EncryptionKeyRefreshComplete(status: .success, handle: 0x40), keySize: 7)
        #expect(try outcome.get() == LinkEncryption(isEncrypted: true, keySize: 7))
        let refused = Requests.outcome(of: EncryptionKeyRefreshComplete(status: .connectionTerminatedDueToMICFailure, handle: 0x40), keySize: 7)
        #expect(refused == .failure(.encryptionFailed(.connectionTerminatedDueToMICFailure)))
    }
}
