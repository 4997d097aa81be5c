import Harald
import HaraldCodec

/// The scenario suite of the public API, written once and run against every backend: each case
/// drives `Central` / `PeripheralConnection` against a peer serving ``ScenarioProfile`` and
/// throws a ``ScenarioFailure`` when the backend misbehaves. After every scenario, nothing may
/// be left pending in the backend.
public enum Scenario: String, CaseIterable, Sendable, CustomStringConvertible {
    case scanFindsThePeer
    case connectAndDiscoverEveryCharacteristic
    case typedReadsDecodeThePeersValues
    case writeWithResponseChangesThePeersValue
    case refusedWriteThrowsTheATTError
    case writesWithoutResponseArriveInOrder
    case notificationsArriveInOrder
    case readResponseIsNotANotification
    case requestListensBeforeWritingAndReturnsTheResponse
    case concurrentRequestsFromTwoHandlesGetTheirOwnAnswers
    case aRequestWaitingForItsTurnEndsAtItsOwnDeadline
    case peerDisconnectMidOperationFailsPendingOperations
    case peerDisconnectEndsSubscriptions
    case unansweredReadTimesOut
    case cancelledReadThrowsCancelledAndLeavesTheLinkUsable
    case aCancelledCallIsACancellationWhereItIsCaught
    case localDisconnectEndsTheConnection
    case reconnectGivesAFreshConnection
    case twoConnectsShareOneLink
    case breakingTheLoopTurnsNotificationsOff
    case aLoopKeepsItsConnectionWhenNothingElseHoldsIt
    case aLoopEndingWithAnErrorTurnsNotificationsOff
    case cancellingTheLoopsTaskTurnsNotificationsOff
    case requestKeepsAnExistingSubscription
    case aSecondLoopOverOneSubscriptionFails
    case aFloodThenADisconnectionEndsTheLoopWithTheDisconnection
    case oneDeadlineCoversDiscoveryAndTheRead
    case serviceChangedMidStreamEndsTheStreamAndRediscovers
    case resubscribingRightAfterServiceChangedRediscovers
    case anL2CAPChannelEchoesSDUsInOrder
    case anL2CAPChannelToAnUnservedPSMIsRefused
    case anL2CAPChannelEndsWhenTheLinkDoes

    public var description: String { rawValue }

    /// Runs the scenario against `harness`.
    public func run(_ harness: ScenarioHarness) async throws {
        switch self {
        case .scanFindsThePeer: try await Self.scan(harness)
        case .connectAndDiscoverEveryCharacteristic: try await Self.discover(harness)
        case .typedReadsDecodeThePeersValues: try await Self.read(harness)
        case .writeWithResponseChangesThePeersValue: try await Self.write(harness)
        case .refusedWriteThrowsTheATTError: try await Self.refusedWrite(harness)
        case .writesWithoutResponseArriveInOrder: try await Self.writeWithoutResponse(harness)
        case .notificationsArriveInOrder: try await Self.subscribe(harness)
        case .readResponseIsNotANotification: try await Self.readResponseIsNotANotification(harness)
        case .requestListensBeforeWritingAndReturnsTheResponse: try await Self.requestResponse(harness)
        case .concurrentRequestsFromTwoHandlesGetTheirOwnAnswers: try await Self.concurrentRequests(harness)
        case .aRequestWaitingForItsTurnEndsAtItsOwnDeadline: try await Self.aRequestWaitingForItsTurnEndsAtItsOwnDeadline(harness)
        case .peerDisconnectMidOperationFailsPendingOperations: try await Self.disconnectMidOperation(harness)
        case .peerDisconnectEndsSubscriptions: try await Self.peerDisconnectEndsSubscriptions(harness)
        case .unansweredReadTimesOut: try await Self.timeout(harness)
        case .cancelledReadThrowsCancelledAndLeavesTheLinkUsable: try await Self.cancellation(harness)
        case .aCancelledCallIsACancellationWhereItIsCaught: try await Self.aCancelledCallIsACancellationWhereItIsCaught(harness)
        case .localDisconnectEndsTheConnection: try await Self.localDisconnect(harness)
        case .reconnectGivesAFreshConnection: try await Self.reconnect(harness)
        case .twoConnectsShareOneLink: try await Self.twoConnectsShareOneLink(harness)
        case .breakingTheLoopTurnsNotificationsOff: try await Self.breakingTheLoopTurnsNotificationsOff(harness)
        case .aLoopKeepsItsConnectionWhenNothingElseHoldsIt: try await Self.aLoopKeepsItsConnectionWhenNothingElseHoldsIt(harness)
        case .aLoopEndingWithAnErrorTurnsNotificationsOff: try await Self.aLoopEndingWithAnErrorTurnsNotificationsOff(harness)
        case .cancellingTheLoopsTaskTurnsNotificationsOff: try await Self.cancellingTheLoopsTaskTurnsNotificationsOff(harness)
        case .requestKeepsAnExistingSubscription: try await Self.requestKeepsAnExistingSubscription(harness)
        case .aSecondLoopOverOneSubscriptionFails: try await Self.aSecondLoopOverOneSubscriptionFails(harness)
        case .aFloodThenADisconnectionEndsTheLoopWithTheDisconnection:
            try await Self.aFloodThenADisconnectionEndsTheLoopWithTheDisconnection(harness)
        case .oneDeadlineCoversDiscoveryAndTheRead: try await Self.oneDeadlineCoversDiscoveryAndTheRead(harness)
        case .serviceChangedMidStreamEndsTheStreamAndRediscovers: try await Self.serviceChangedMidStreamEndsTheStreamAndRediscovers(harness)
        case .resubscribingRightAfterServiceChangedRediscovers: try await Self.resubscribingRightAfterServiceChangedRediscovers(harness)
        case .anL2CAPChannelEchoesSDUsInOrder: try await Self.channelEchoes(harness)
        case .anL2CAPChannelToAnUnservedPSMIsRefused: try await Self.channelToAnUnservedPSM(harness)
        case .anL2CAPChannelEndsWhenTheLinkDoes: try await Self.channelEndsWithTheLink(harness)
        }
        if let pending = await harness.pendingOperations() { try checkEqual(pending, 0, "operations left pending in the backend") }
    }
}
