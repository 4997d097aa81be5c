// The fan-in measurement of issue 4: N streaming sensors notifying at a fixed rate into one
// simulated central, each value delivered through the public API (`PeripheralConnection.subscribe`)
// to a subscriber loop. Prints values delivered, virtual time, executor jobs and the process's
// CPU time (getrusage), so runs on one machine compare directly.
//
// Usage: swift build -c release --product HaraldFanIn && .build/release/HaraldFanIn [sensors] [hz] [seconds]
// Defaults: 100 sensors × 50 Hz × 60 virtual seconds = 300,000 notifications.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Harald
import HaraldSimulator

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sensorCount = arguments.count > 0 ? arguments[0] : 100
let rate = arguments.count > 1 ? arguments[1] : 50
let seconds = arguments.count > 2 ? arguments[2] : 60
let perSensor = rate * seconds

let simulation = Simulation()
let sensors = (1...sensorCount).map {
    VirtualPeripheral.streamingSensor(number: $0, interval: .microseconds(1_000_000 / rate))
}
let simulator = try Simulator(clock: simulation.clock, devices: sensors)
let central = Central(backend: simulator.backend, clock: simulation.clock)

let cpuStart = cpuSeconds()
let jobsStart = simulation.executor.jobsRun
// Phase 1: connect and subscribe everyone; phase 2 (timed separately): stream.
let connections = try simulation.run {
    try await withThrowingTaskGroup(of: (Int, PeripheralConnection, Subscription<[UInt8]>).self) { group in
        for (index, sensor) in sensors.enumerated() {
            group.addTask {
                let connection = try await central.connect(to: sensor.identifier, timeout: .seconds(10))
                let samples = try await connection.subscribe(VirtualPeripheral.StreamingSensor.samples, buffering: .oldest(4096))
                return (index, connection, samples)
            }
        }
        var all: [(Int, PeripheralConnection, Subscription<[UInt8]>)] = []
        for try await entry in group { all.append(entry) }
        return all.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
    }
}
let setupCPU = cpuSeconds() - cpuStart
let setupJobs = simulation.executor.jobsRun - jobsStart
let streamStart = simulation.clock.now
let cpuStream = cpuSeconds()
let jobsStream = simulation.executor.jobsRun
let received = try simulation.run {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for (_, samples) in connections {
            group.addTask {
                var count = 0
                for try await _ in samples {
                    count += 1
                    if count == perSensor { break }
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
}
let streamCPU = cpuSeconds() - cpuStream
let streamJobs = simulation.executor.jobsRun - jobsStream
let virtual = streamStart.duration(to: simulation.clock.now)
try simulation.run {
    for (connection, _) in connections { await connection.disconnect() }
}

print("sensors \(sensorCount) × \(rate) Hz × \(seconds) s")
print("setup: CPU \(String(format: "%.3f", setupCPU)) s, \(setupJobs) jobs")
print("stream: \(received) notifications delivered in \(virtual) virtual")
print("stream: CPU \(String(format: "%.3f", streamCPU)) s, \(String(format: "%.2f", streamCPU / Double(max(received, 1)) * 1e6)) µs/notification")
print("stream: \(streamJobs) jobs, \(String(format: "%.2f", Double(streamJobs) / Double(max(received, 1)))) jobs/notification")
print("total CPU \(String(format: "%.3f", cpuSeconds() - cpuStart)) s")
