import Foundation
import HaraldCore

/// What one scan remembers about the devices it heard, for its duplicate policy: which were
/// reported (``ScanRequest/DuplicatePolicy/reportOnce``) or their last data
/// (``ScanRequest/DuplicatePolicy/reportChanges``).
///
/// Bounded, so a long scan in a crowded place keeps a fixed amount of memory: past ``limit``
/// devices the one heard first is forgotten, and is reported again when heard again.
struct ScanMemory {
    /// How many devices a scan remembers.
    static var limit: Int { 2048 }

    private var data: [UUID: AdvertisingData] = [:]
    /// The remembered devices, first heard first (from `head` on).
    private var order: [UUID] = []
    private var head = 0

    /// How many devices are remembered.
    var count: Int { data.count }

    /// Remembers `uuid`; true when it was not remembered yet.
    mutating func insert(_ uuid: UUID) -> Bool {
        guard data[uuid] == nil else { return false }
        remember(uuid, AdvertisingData(structures: []))
        return true
    }

    /// Remembers `advertisingData` as the last data of `uuid`; true when it differs from the
    /// data remembered before (or none was).
    mutating func update(_ uuid: UUID, to advertisingData: AdvertisingData) -> Bool {
        guard let known = data[uuid] else {
            remember(uuid, advertisingData)
            return true
        }
        guard known != advertisingData else { return false }
        data[uuid] = advertisingData
        return true
    }

    private mutating func remember(_ uuid: UUID, _ advertisingData: AdvertisingData) {
        if data.count == Self.limit {
            data[order[head]] = nil
            head += 1
            if head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
        data[uuid] = advertisingData
        order.append(uuid)
    }
}
