import HaraldCore
import HaraldHCI
import Testing

/// The central's connection attempt as a value: its steps and what each tells the host to do.
/// Waiters are names and timers numbers here; the host uses continuations and its deadlines.
@Suite("LE central connector: one attempt, its cancel and its outcome")
struct LECentralConnectorTests {
    typealias Connector = LECentralConnector<String, Int>
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!

    static func started(id: UInt64 = 1) -> Connector {
        var connector = Connector()
        _ = connector.begin(id: id, peer: peer, waiter: "caller \(id)")
        return connector
    }

    @Test func aSecondAttemptIsRefusedWhileOneIsUnderWay() {
        var connector = Self.started()
        #expect(connector.isBusy)
        let begun = connector.begin(id: 2, peer: Self.peer, waiter: "caller 2")
        #expect(begun == false)
        #expect(connector.attempt?.id == 1)
    }

    @Test func anAcceptedAttemptWaitsForTheController() {
        var connector = Self.started()
        let afterAcceptance = connector.accepted(id: 1)
        #expect(afterAcceptance == .wait)
        let armed = connector.arm(10, id: 1)
        #expect(armed)
        #expect(connector.attempt?.timer == 10)
    }

    @Test func stepsForAnAttemptThatEndedDoNothing() {
        var connector = Self.started()
        let afterAcceptance = connector.accepted(id: 7)
        #expect(afterAcceptance == .nothing)
        let armed = connector.arm(10, id: 7)
        #expect(armed == false)
        let ended = connector.end(id: 7)
        #expect(ended == nil)
        guard case .nothing = connector.startCancelling(id: 7, error: .cancelled) else {
            Issue.record("cancelling another attempt must do nothing")
            return
        }
        #expect(connector.attempt?.id == 1 && connector.attempt?.cancelError == nil)
    }

    @Test func cancellingHandsBackTheTimeoutToStopAndSendsOneCancel() {
        var connector = Self.started()
        _ = connector.accepted(id: 1)
        _ = connector.arm(10, id: 1)
        guard case .sendCancel(let previous) = connector.startCancelling(id: 1, error: .connectionTimedOut(Self.peer)) else {
            Issue.record("the first cancel must be sent")
            return
        }
        #expect(previous == 10)
        #expect(connector.attempt?.timer == nil)
        #expect(connector.cancelError(of: 1) == .connectionTimedOut(Self.peer))
        guard case .nothing = connector.startCancelling(id: 1, error: .cancelled) else {
            Issue.record("an attempt being cancelled is not cancelled twice")
            return
        }
        #expect(connector.cancelError(of: 1) == .connectionTimedOut(Self.peer), "the first cancel's error stands")
    }

    @Test func anAttemptCancelledBeforeTheControllerHadItIsCancelledAgainOnceAccepted() {
        var connector = Self.started()
        _ = connector.startCancelling(id: 1, error: .cancelled)
        let afterAcceptance = connector.accepted(id: 1)
        #expect(afterAcceptance == .cancel(.cancelled))
        #expect(connector.cancelError(of: 1) == nil)
        guard case .sendCancel = connector.startCancelling(id: 1, error: .cancelled) else {
            Issue.record("the cancel must go out again once the controller has the attempt")
            return
        }
    }

    @Test func aFailedCompletionReportsConnectionFailedWithTheControllersStatus() {
        var connector = Self.started()
        _ = connector.arm(10, id: 1)
        guard case .failed(let waiter, let timer, let error) = connector.completed(status: .connectionFailedToBeEstablished) else {
            Issue.record("a failed completion fails the attempt")
            return
        }
        #expect(waiter == "caller 1" && timer == 10)
        #expect(error == .connectionFailed(Self.peer, .connectionFailedToBeEstablished))
        #expect(connector.isBusy == false)
    }

    @Test func aFailedCompletionOfACancelledAttemptReportsTheCancelsError() {
        var connector = Self.started()
        _ = connector.accepted(id: 1)
        _ = connector.startCancelling(id: 1, error: .connectionTimedOut(Self.peer))
        guard case .failed(_, _, let error) = connector.completed(status: .unknownConnectionIdentifier) else {
            Issue.record("a failed completion fails the attempt")
            return
        }
        #expect(error == .connectionTimedOut(Self.peer))
    }

    @Test func aLinkMadeWhileTheAttemptWasBeingCancelledIsHandedOver() {
        var connector = Self.started()
        _ = connector.accepted(id: 1)
        _ = connector.startCancelling(id: 1, error: .cancelled)
        _ = connector.arm(20, id: 1)
        guard case .connected(let waiter, let timer) = connector.completed(status: .success) else {
            Issue.record("the link exists: it goes to the caller")
            return
        }
        #expect(waiter == "caller 1" && timer == 20)
        #expect(connector.isBusy == false)
    }

    @Test func aCompletionWithNoAttemptIsUnexpected() {
        var connector = Connector()
        guard case .unexpected = connector.completed(status: .success) else {
            Issue.record("no attempt waits for it")
            return
        }
    }

    @Test func endingTheAttemptFreesTheConnectorForTheNext() {
        var connector = Self.started()
        _ = connector.arm(10, id: 1)
        let ended = connector.end(id: 1)
        #expect(ended?.waiter == "caller 1" && ended?.timer == 10)
        let begun = connector.begin(id: 2, peer: Self.peer, waiter: "caller 2")
        #expect(begun)
    }
}
