@testable import Harald
import HaraldCodec
import HaraldCore
import Testing

/// A backend whose scan reports `count` advertisers, each with its own address.
private struct RotatingAdvertisers: CentralBackend {
    let count: Int
    func radioStates() -> AsyncStream<RadioState> { AsyncStream { $0.yield(.poweredOn) } }
    func scan(_ request: ScanRequest) -> ScanReports {
        let next = Locked(0)
        let count = self.count
        return ScanReports(unfolding: {
            let index = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            guard index < count else { return nil }
            let address = BluetoothAddress(value: 0xC000_0000_0000 | UInt64(index), kind: .random)!
            return Advertisement(peripheral: PeripheralIdentifier(address: address), rssi: RSSI(dBm: -60), isConnectable: true, data: AdvertisingData())
        })
    }
    func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError) -> any ConnectionBackend {
        throw .unsupported("connecting")
    }
}

@Suite("A scan's duplicate filter stays bounded")
struct ScanMemoryTests {
    @Test func tenThousandRotatingAddressesKeepTheFilterWithinItsBound() async throws {
        let scan = Central(backend: RotatingAdvertisers(count: 10_000)).scan(ScanRequest(duplicates: .reportOnce))
        var iterator = scan.makeAsyncIterator()
        var reported = 0
        var largest = 0
        while try await iterator.next() != nil {
            reported += 1
            largest = max(largest, iterator.seen.count)
        }
        #expect(reported == 10_000, "every new device is reported once")
        #expect(largest <= AdvertisementScan.rememberedDevices)
    }

    @Test func theFilterRemembers4096DevicesAndForgetsTheLeastRecentlyHeardEighthPastThat() async throws {
        #expect(AdvertisementScan.rememberedDevices == 4096)
        let scan = Central(backend: RotatingAdvertisers(count: 4_097)).scan(ScanRequest(duplicates: .reportOnce))
        var iterator = scan.makeAsyncIterator()
        var remembered: [Int] = []
        while try await iterator.next() != nil { remembered.append(iterator.seen.count) }
        #expect(remembered.count == 4_097)
        #expect(remembered[4_095] == 4096)
        #expect(remembered[4_096] == 4_097 - 4_097 / 8)
    }
}
