import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldSimulator

// The heart-rate strap's part of `harald demo`.
extension Demo {
    static func strap(_ central: Central, _ world: Simulator, _ strap: VirtualPeripheral, measurements: Int, _ say: DemoPrinter) async throws {
        say("connecting to \(strap.name ?? "the strap")")
        let connection = try await central.connect(to: strap.identifier, services: [.heartRate, .battery, .deviceInformation], timeout: .seconds(5))
        say("  connected, ATT_MTU \(await connection.mtu())")
        say("  battery \(try await connection.read(.batteryLevel).percent) %")
        say("  manufacturer \"\(try await connection.read(.manufacturerName).text)\", model \"\(try await connection.read(.modelNumber).text)\", firmware \"\(try await connection.read(.firmwareRevision).text)\"")
        say("  sensor location \(try await connection.read(.bodySensorLocation))")
        let values = try await connection.subscribe(.heartRateMeasurement)
        var received = 0
        for try await measurement in values {
            let rr = measurement.rrIntervals.map { "\(Int((Double($0) * 1000 / 1024).rounded())) ms" }.joined(separator: ", ")
            say("  heart rate \(measurement.heartRate) bpm, energy \(measurement.energyExpended.map { "\($0) kJ" } ?? "-"), RR [\(rr)]")
            received += 1
            if received == measurements { break }
        }
        try await connection.unsubscribe(values)
        try await connection.write(.resetEnergyExpended, to: .heartRateControlPoint)
        say("  wrote control point: reset energy expended")
        do {
            try await connection.write(.reserved(0x7F), to: .heartRateControlPoint)
        } catch {
            say("  wrote control point 0x7F: \(error)")
        }
        if let simulated = world.connection(to: strap.address) {
            simulated.injectOnNext(.readRequest, .neverAnswer)
            say("  injected fault: the strap will not answer the next read")
        }
        do {
            _ = try await connection.read(.batteryLevel, timeout: .seconds(2))
        } catch {
            say("  read battery: \(error)")
        }
        say("  link closed: \(await connection.disconnected())")
        if let simulated = world.connection(to: strap.address) {
            await Self.report(simulated, say)
        }
    }
}
