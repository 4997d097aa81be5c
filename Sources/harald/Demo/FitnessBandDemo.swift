import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldSimulator

// The Mi-Band-like band's part of `harald demo`.
extension Demo {
    static func band(_ central: Central, _ world: Simulator, _ band: VirtualPeripheral, _ say: DemoPrinter) async throws {
        say("connecting to \(band.name ?? "the band")")
        let connection = try await central.connect(to: band.identifier, timeout: .seconds(5))
        let auth = VirtualPeripheral.MiBand.auth
        let replies = try await connection.subscribe(auth, buffering: .oldest(8))
        var iterator = replies.makeAsyncIterator()
        try await connection.write([0x02, 0x08], to: auth)
        guard let challenge = try await iterator.next(), challenge.count == 19 else { throw ValidationError("no challenge") }
        say("  auth: challenge \(Array(challenge.dropFirst(3)).hexString)")
        let answer = AES128(key: VirtualPeripheral.MiBand.defaultKey).encrypt(block: Array(challenge.dropFirst(3)))
        try await connection.write([0x03, 0x08] + answer, to: auth)
        let verdict = try await iterator.next() ?? []
        say("  auth: answer \(answer.hexString) → \(verdict.hexString) (\(verdict == [0x10, 0x03, 0x01] ? "authenticated" : "refused"))")
        try await connection.unsubscribe(replies)
        let steps = try await connection.read(VirtualPeripheral.MiBand.realtimeSteps)
        say("  steps \(steps.steps), \(steps.meters) m, \(steps.calories) kcal")
        let battery = try await connection.read(VirtualPeripheral.MiBand.batteryInfo)
        say("  battery \(battery.count > 1 ? battery[1] : 0) %\(battery.count > 2 && battery[2] == 1 ? ", charging" : "")")
        await connection.disconnect()
        if let simulated = world.connection(to: band.address) { await Self.report(simulated, say) }
    }
}
