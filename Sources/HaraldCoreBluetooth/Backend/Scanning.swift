import Foundation
import Harald
import HaraldCodec

extension CoreBluetoothBackend {
    /// Scans through CoreBluetooth (the first call makes the central). Several scans may run at once: CoreBluetooth is asked for the
    /// union of their service filters (all devices if any scan wants all) with duplicates allowed
    /// if any scan reports more than once; each scan then applies its own `ScanRequest` filters
    /// and duplicate policy. A scan started before the radio state is known waits for it; a scan
    /// on a radio that is off, unauthorized or unsupported fails with
    /// `BluetoothError/radioUnavailable(_:)`, and so do running scans when the radio goes that way.
    /// Reports wait for a slow loop in a buffer of `ScanRequest/bufferLimit`; beyond it the
    /// oldest are dropped and counted (`ScanReports/droppedCount`).
    public func scan(_ request: ScanRequest) -> ScanReports {
        let (stream, continuation) = ScanReports.makeStream(bufferLimit: request.bufferLimit)
        let now = stopwatch.elapsed
        let (id, refusal): (UInt64, RadioState?) = state.withLock { state in
            let id = state.makeID()
            switch state.radio {
            case .poweredOn, .unknown, .resetting:
                state.scanners[id] = Scanner(
                    request: request, continuation: continuation, startedAt: now, waitingForPower: state.radio != .poweredOn)
                return (id, nil)
            default:
                return (id, state.radio)
            }
        }
        if let refusal {
            continuation.finish(throwing: BluetoothError.radioUnavailable(refusal))
            return stream
        }
        continuation.onTermination { [weak self] in
            guard let self else { return }
            state.withLock { state in _ = state.scanners.removeValue(forKey: id) }
            applyScanSettings()
        }
        applyScanSettings()
        return stream
    }

    /// Tells CoreBluetooth to scan as the running scans need, or to stop, if that changed.
    func applyScanSettings() {
        let keys = self.keys
        state.withLock { state in
            guard state.radio == .poweredOn else { return }
            let active = state.scanners.values
            var desired: ScanSettings?
            if !active.isEmpty {
                let wantsAll = active.contains { $0.request.services.isEmpty }
                let services = wantsAll ? nil : Array(Set(active.flatMap(\.request.services))).sorted()
                desired = ScanSettings(services: services, allowDuplicates: active.contains { $0.request.duplicates != .reportOnce })
            }
            guard desired != state.activeScan else { return }
            state.activeScan = desired
            state.outbox.append(
                OutgoingCall { [desired] central in
                    if let desired {
                        central.scanForPeripherals(
                            withServices: desired.services?.map(Central.makeUUID),
                            options: [keys.scanAllowDuplicates: NSNumber(value: desired.allowDuplicates)])
                    } else {
                        central.stopScan()
                    }
                })
        }
        sendOutbox()
    }

    /// Hands an advertisement to every scan that wants it (lock held, so scans see advertisements
    /// in the order CoreBluetooth reported them).
    func route(_ advertisement: Advertisement, from uuid: UUID, in state: inout State) {
        for (id, var scanner) in state.scanners where !scanner.waitingForPower {
            guard scanner.request.matches(advertisement) else { continue }
            switch scanner.request.duplicates {
            case .reportAll: break
            case .reportOnce:
                guard scanner.memory.insert(uuid) else { continue }
            case .reportChanges:
                guard scanner.memory.update(uuid, to: advertisement.data) else { continue }
            }
            var copy = advertisement
            copy.receivedAt = advertisement.receivedAt - scanner.startedAt
            scanner.continuation.yield(copy)
            state.scanners[id] = scanner
        }
    }
}
