import Foundation
import Harald
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator
import Testing

// The GoPro camera example from GUIDE.md, copied verbatim so the guide cannot drift from what
// compiles and runs. If this file stops compiling or its test fails, update GUIDE.md with it.

func recordThreeSeconds(on central: Central) async throws -> UInt64? {
    // Scan for 0xFEA6, connect, subscribe to every notifiable characteristic, poll Get Hardware Info.
    let (camera, info) = try await GoProCamera.connectWhenReady(on: central)
    print(info.modelName, info.firmwareVersion)
    let battery = try await camera.statuses().integer(.internalBatteryPercentage)  // all statuses: many packets
    print("battery", battery ?? 0, "%")
    try await camera.configure([(.videoResolution, 24), (.framesPerSecond, 5)])  // 5K at 60 fps, verified
    let watch = try await camera.watchStatuses([.encoding, .videoEncodingDuration])
    try await camera.startRecording()  // shutter on, then status 10 must say encoding
    var seconds: UInt64?
    for await values in watch.statusUpdates {  // 0x93 pushes
        seconds = values.integer(.videoEncodingDuration) ?? seconds
        if let seconds, seconds >= 3 { break }
    }
    try await camera.stopRecording()
    await camera.connection.disconnect()
    return seconds
}

@Suite("README GoPro camera example")
struct ReadmeCameraExampleTests {
    @Test func theExampleRecordsThreeSecondsOnTheSimulatedCamera() async throws {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [.actionCamera()])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let seconds = try await simulation.run { try await recordThreeSeconds(on: central) }
        #expect(seconds == 3)
    }

    @Test func readmeShowsExactlyThisFunction() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let readme = testFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GUIDE.md")
        let shown = try #require(Self.declaration(in: String(contentsOf: readme, encoding: .utf8)))
        let tested = try #require(Self.declaration(in: String(contentsOf: testFile, encoding: .utf8)))
        #expect(shown == tested)
    }

    /// The lines from `func recordThreeSeconds(on` to the first line that is just `}`.
    static func declaration(in text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("func recordThreeSeconds(on") }),
            let end = lines[start...].firstIndex(of: "}")
        else { return nil }
        return Array(lines[start...end])
    }
}
