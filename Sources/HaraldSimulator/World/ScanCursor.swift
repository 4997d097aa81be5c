import Harald
import HaraldCodec
import HaraldCore
import HeapModule

/// Produces a scan's advertisements one at a time, in virtual time: each call sleeps until the
/// next advertising event of any device and reports it if the device is in range and matches.
///
/// The devices' next events wait in a heap, so finding the next one costs a logarithm of the
/// number of devices, not a pass over all of them (a gateway's scan of a thousand sensors); the
/// device list is read again only when a device was added or taken out.
final class ScanCursor: Sendable {
    private let world: Simulator
    private let request: ScanRequest
    private let start: VirtualInstant

    /// One device's next advertising event; simultaneous events go in the devices' order.
    private struct Event: Comparable {
        var instant: VirtualInstant
        var order: UInt64
        var address: BluetoothAddress

        static func < (lhs: Event, rhs: Event) -> Bool { (lhs.instant, lhs.order) < (rhs.instant, rhs.order) }
    }

    private struct Schedule {
        /// The pending event of every device known (an event of a device taken out, or of an
        /// earlier device at the same address, is dropped when it comes up).
        var events = Heap<Event>()
        /// The devices known, by address, with their order.
        var known: [BluetoothAddress: UInt64] = [:]
        var generation: UInt64?
        /// Each device's next event, kept for a device that comes back at the same address.
        var nextEvents: [BluetoothAddress: VirtualInstant] = [:]
        /// The seed of the advertising delays.
        var delaySeed = UInt64(0x9E37_79B9_7F4A_7C15)
    }

    private let schedule = Locked(Schedule())

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
            let now = world.clock.now
            let changed = world.devices(changedSince: schedule.withLock { $0.generation })
            guard let (device, instant) = schedule.withLock({ schedule in nextEvent(in: &schedule, changed: changed, now: now) }) else {
                // Nothing advertises: look again later.
                do { try await world.clock.sleep(for: .seconds(1)) } catch { return nil }
                continue
            }
            do { try await world.clock.sleep(until: instant) } catch { return nil }
            let address = device.description.address
            schedule.withLock { schedule in
                // advDelay: the specification adds a pseudo-random 0–10 ms to every event.
                schedule.delaySeed = schedule.delaySeed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let delay = Duration.microseconds(Int64((schedule.delaySeed >> 33) % 10_000))
                let next = instant.advanced(by: max(device.description.advertisingInterval, .milliseconds(20)) + delay)
                schedule.nextEvents[address] = next
                if schedule.known[address] == device.order { schedule.events.insert(Event(instant: next, order: device.order, address: address)) }
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

    /// Takes in the devices added or taken out (`changed`), then removes and returns the
    /// earliest pending event of a device still there; nil when no device advertises.
    private func nextEvent(
        in schedule: inout Schedule, changed: (generation: UInt64, devices: [Simulator.Device])?, now: VirtualInstant
    ) -> (Simulator.Device, VirtualInstant)? {
        if let changed {
            var present: [BluetoothAddress: UInt64] = [:]
            for device in changed.devices {
                let address = device.description.address
                present[address] = device.order
                guard schedule.known[address] != device.order else { continue }
                let instant = schedule.nextEvents[address] ?? world.nextAdvertisingEvent(of: device, atOrAfter: now)
                schedule.nextEvents[address] = instant
                schedule.events.insert(Event(instant: instant, order: device.order, address: address))
            }
            schedule.known = present
            schedule.generation = changed.generation
        }
        while let event = schedule.events.popMin() {
            guard schedule.known[event.address] == event.order, let device = world.device(PeripheralIdentifier(address: event.address)) else {
                continue
            }
            return (device, event.instant)
        }
        return nil
    }
}
