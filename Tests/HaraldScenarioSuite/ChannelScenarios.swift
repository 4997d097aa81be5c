import Harald
import HaraldCodec
import HaraldCore

// Scenarios of connection-oriented L2CAP channels: the peer serves an echo on
// `ScenarioProfile.echoPSM` (its SDU boundaries are kept where the backend keeps them: CoreBluetooth's
// streams do not, so the scenarios compare bytes, not elements).
extension Scenario {
    static func channelEchoes(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let channel = try await connection.openL2CAPChannel(psm: L2CAPPSM(ScenarioProfile.echoPSM), timeout: harness.timeout)
        var replies = channel.incoming.makeAsyncIterator()
        for round in 1...8 {
            let sdu = (0..<(round * 37)).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ round) }
            try await channel.send(sdu)
            var echoed: [UInt8] = []
            while echoed.count < sdu.count {
                guard let more = try await replies.next() else { throw ScenarioFailure("the channel ended before the echo of round \(round)") }
                echoed += more
            }
            try checkEqual(echoed, sdu, "the echo of round \(round)")
        }
        await channel.close()
        try checkEqual(await channel.closeReason(), .localRequest, "why the channel closed")
        await connection.disconnect()
    }

    static func channelToAnUnservedPSM(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        try await checkThrows(
            "opening a channel on a PSM the peer does not serve",
            matching: { error in
                // CoreBluetooth reports a refusal without its result code.
                if case .channelRefused(let refusal)? = error as? BluetoothError { return refusal == .psmNotSupported }
                if case .backend? = error as? BluetoothError { return true }
                return false
            }
        ) { try await connection.openL2CAPChannel(psm: L2CAPPSM(ScenarioProfile.unservedPSM), timeout: harness.timeout) }
        // The link is still usable.
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0201), "a read after the refusal")
        await connection.disconnect()
    }

    static func channelEndsWithTheLink(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let channel = try await connection.openL2CAPChannel(psm: L2CAPPSM(ScenarioProfile.echoPSM), timeout: harness.timeout)
        try await harness.peer.disconnectFromPeer()
        var iterator = channel.incoming.makeAsyncIterator()
        do {
            while try await iterator.next() != nil {}
        } catch {
            // A backend may end the loop with the channel's or the link's error instead of nil.
        }
        try await checkThrows(
            "a send after the link went",
            matching: { error in
                switch error as? BluetoothError {
                case .channelClosed?, .disconnected?: true
                default: false
                }
            }
        ) { try await channel.send([1]) }
    }
}
