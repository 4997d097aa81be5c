import Harald
import HaraldCodec
import HaraldCore

/// Produces a scan's advertisements one at a time, in virtual time: each call sleeps until the
/// next advertising event of any device and reports it if the device is in range and matches.
final class ScanCursor: Sendable {
    private let world: Simulator
    private let request: ScanRequest
    private let start: VirtualInstant
    /// Each device's next advertising event, and the seed of the advertising delays.
    private let schedule = Locked((nextEvents: [BluetoothAddress: VirtualInstant](), delaySeed: UInt64(0x9E37_79B9_7F4A_7C15)))

    init(world: Simulator, request: ScanRequest) {
        self.world = world
        self.request = request
        self.start = world.clock.now
    }

    /// The next advertisement; nil when the scanning task is cancelled.
    func next() async throws -> Advertisement? {
        while true {
            let state = world.radioState
            guard state == .poweredOn else { throw BluetoothError.radioUnavailable(state) }
            let devices = world.deviceSnapshot()
            guard !devices.isEmpty else {
                // Nothing advertises: look again later.
                do { try await world.clock.sleep(for: .seconds(1)) } catch { return nil }
                continue
            }
            let now = world.clock.now
            let (device, instant) = schedule.withLock { schedule -> (Simulator.Device, VirtualInstant) in
                var best: (Simulator.Device, VirtualInstant)?
                for device in devices {
                    let address = device.description.address
                    let instant = schedule.nextEvents[address] ?? world.nextAdvertisingEvent(of: device, atOrAfter: now)
                    schedule.nextEvents[address] = instant
                    if best == nil || instant < best!.1 { best = (device, instant) }
                }
                return best!
            }
            do { try await world.clock.sleep(until: instant) } catch { return nil }
            let address = device.description.address
            schedule.withLock { schedule in
                // advDelay: the specification adds a pseudo-random 0–10 ms to every event.
                schedule.delaySeed = schedule.delaySeed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let delay = Duration.microseconds(Int64((schedule.delaySeed >> 33) % 10_000))
                schedule.nextEvents[address] = instant.advanced(by: max(device.description.advertisingInterval, .milliseconds(20)) + delay)
            }
            // Read the device again: it may have moved since the snapshot.
            guard let current = world.device(device.description.identifier), let rssi = current.description.rssi else { continue }
            guard world.radioState == .poweredOn else { continue }
            let advertisement = Advertisement(
                peripheral: current.description.identifier, rssi: rssi, isConnectable: current.description.isConnectable,
                data: current.description.advertisingData, receivedAt: start.duration(to: world.clock.now))
            if request.matches(advertisement) { return advertisement }
        }
    }
}
