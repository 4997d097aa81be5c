import Foundation
import Harald
import HaraldCore

/// What one scan remembers about the devices it heard, for its duplicate policy: which were
/// reported (``ScanRequest/DuplicatePolicy/reportOnce``) or their last data
/// (``ScanRequest/DuplicatePolicy/reportChanges``).
///
/// Bounded as the public API's own duplicate filter is, so a long scan in a crowded place (or
/// among devices whose private addresses rotate) keeps a fixed amount of memory: past
/// ``AdvertisementScan/rememberedDevices`` devices, the least recently heard eighth is forgotten,
/// and such a device is reported again when heard again.
struct ScanMemory {
    private var devices: [UUID: (data: AdvertisingData, heard: UInt64)] = [:]
    /// Counts what was heard, to tell which device was heard least recently.
    private var tick: UInt64 = 0

    /// How many devices are remembered.
    var count: Int { devices.count }

    /// Remembers that `uuid` was heard; true when it was not remembered yet.
    mutating func insert(_ uuid: UUID) -> Bool {
        tick += 1
        if devices[uuid] != nil {
            devices[uuid]?.heard = tick
            return false
        }
        devices[uuid] = (AdvertisingData(structures: []), tick)
        forgetLeastRecentlyHeard()
        return true
    }

    /// Remembers `advertisingData` as the last data of `uuid`; true when it differs from the
    /// data remembered before (or none was).
    mutating func update(_ uuid: UUID, to advertisingData: AdvertisingData) -> Bool {
        tick += 1
        let known = devices[uuid]
        devices[uuid] = (advertisingData, tick)
        if known == nil { forgetLeastRecentlyHeard() }
        return known?.data != advertisingData
    }

    private mutating func forgetLeastRecentlyHeard() {
        guard devices.count > AdvertisementScan.rememberedDevices else { return }
        let oldest = devices.sorted { $0.value.heard < $1.value.heard }.prefix(max(1, devices.count / 8))
        for (uuid, _) in oldest { devices[uuid] = nil }
    }
}
