/// The messages of one ``MQTTClient/subscribe(_:)`` call, in arrival order. Ending the loop over
/// it (or dropping it) unsubscribes its filters that no other subscription uses. It holds at most
/// ``MQTTClient/Configuration/subscriptionBufferLimit`` messages for a slow reader (the newest).
/// It ends after ``MQTTClient/disconnect()``; across reconnections it goes on (the client
/// subscribes again on each new connection).
public struct MQTTSubscription: AsyncSequence, Sendable {
    /// Each element is one received message.
    public typealias Element = MQTTMessage
    let stream: AsyncStream<MQTTMessage>

    /// An iterator over the messages; one loop at a time.
    public func makeAsyncIterator() -> AsyncStream<MQTTMessage>.Iterator { stream.makeAsyncIterator() }
}

extension MQTTClient {
    /// A live subscription's filters and where its messages go.
    struct SubscriptionEntry {
        let filters: [MQTTTopicFilter]
        let continuation: AsyncStream<MQTTMessage>.Continuation

        func accepts(_ topic: String) -> Bool { filters.contains { $0.matches(topic: topic) } }
    }
}
