/// Which messages may be lost when the broker is away for long.
public enum MQTTDeliveryClass: Sendable, Equatable {
    /// A message soon superseded (an advertisement): when its share of the queue is full, the
    /// oldest droppable message goes, counted in ``MQTTClient/droppedMessageCount``.
    case droppable
    /// A message that must arrive (a state change, a discovery config): never dropped; when its
    /// share of the queue is full, publishing throws ``MQTTClientError/queueFull(limit:)``.
    case kept
}

/// The messages published while the broker is away, in publishing order, with a separate bound
/// for each ``MQTTDeliveryClass``.
struct MQTTOutgoingQueue: Sendable {
    struct Entry: Sendable, Equatable {
        var publish: MQTTPublish
        var delivery: MQTTDeliveryClass
    }

    let droppableLimit: Int
    let keptLimit: Int
    private(set) var entries: [Entry] = []
    private(set) var droppableCount = 0
    private(set) var keptCount = 0
    /// Droppable messages dropped to make room, since the queue was made.
    private(set) var droppedCount = 0

    init(droppableLimit: Int, keptLimit: Int) {
        self.droppableLimit = max(0, droppableLimit)
        self.keptLimit = max(0, keptLimit)
    }

    var isEmpty: Bool { entries.isEmpty }

    /// Adds a message at the end; drops the oldest droppable one when their share is full.
    mutating func enqueue(_ publish: MQTTPublish, delivery: MQTTDeliveryClass) throws(MQTTClientError) {
        switch delivery {
        case .kept:
            guard keptCount < keptLimit else { throw .queueFull(limit: keptLimit) }
            keptCount += 1
        case .droppable:
            guard droppableLimit > 0 else {
                droppedCount += 1
                return
            }
            if droppableCount == droppableLimit, let oldest = entries.firstIndex(where: { $0.delivery == .droppable }) {
                entries.remove(at: oldest)
                droppableCount -= 1
                droppedCount += 1
            }
            droppableCount += 1
        }
        entries.append(Entry(publish: publish, delivery: delivery))
    }

    /// The oldest message.
    var first: Entry? { entries.first }

    /// Removes the oldest message if it is still `entry` (a droppable one may have been dropped
    /// meanwhile to make room).
    mutating func removeFirst(_ entry: Entry) {
        guard let first = entries.first, first == entry else { return }
        entries.removeFirst()
        switch entry.delivery {
        case .droppable: droppableCount -= 1
        case .kept: keptCount -= 1
        }
    }
}
