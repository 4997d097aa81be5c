import Foundation
import Harald
import HaraldATT
import HaraldCore
import HaraldSimulator

/// What one step of the demo cost: ATT traffic (every backend that runs Harald's GATT client)
/// and, on the simulator, the link's connection events and air time.
struct DemoCost: Sendable {
    var protocolCost: ProtocolCost?
    var connectionEvents: Int?
    var airTime: Duration?

    static let zero = DemoCost(protocolCost: ProtocolCost(), connectionEvents: 0, airTime: .zero)

    /// The connection's cost so far (and its simulated link's, when there is one).
    static func of(_ connection: PeripheralConnection, in world: Simulator?) async -> DemoCost {
        var cost = DemoCost(protocolCost: await connection.protocolCost())
        if let address = connection.peripheral.address, let simulated = world?.connection(to: address) {
            let statistics = await simulated.statistics
            cost.connectionEvents = statistics.eventsWithData
            cost.airTime = statistics.airTime
        }
        return cost
    }

    static func - (later: DemoCost, earlier: DemoCost) -> DemoCost {
        DemoCost(
            protocolCost: later.protocolCost.flatMap { late in earlier.protocolCost.map { late - $0 } },
            connectionEvents: later.connectionEvents.flatMap { late in earlier.connectionEvents.map { late - $0 } },
            airTime: later.airTime.flatMap { late in earlier.airTime.map { late - $0 } })
    }

    static func + (lhs: DemoCost, rhs: DemoCost) -> DemoCost {
        DemoCost(
            protocolCost: lhs.protocolCost.flatMap { left in rhs.protocolCost.map { left + $0 } },
            connectionEvents: lhs.connectionEvents.flatMap { left in rhs.connectionEvents.map { left + $0 } },
            airTime: lhs.airTime.flatMap { left in rhs.airTime.map { left + $0 } })
    }
}

/// The closing table of `harald demo`: one row per step with what it cost.
final class DemoSummary: Sendable {
    private let rows = Locked<[(step: String, cost: DemoCost)]>([])
    /// Whether the link columns (connection events, air time) exist: only on the simulator.
    let showsLink: Bool

    init(showsLink: Bool) { self.showsLink = showsLink }

    func add(_ step: String, _ cost: DemoCost) {
        rows.withLock { $0.append((step, cost)) }
    }

    /// Records the cost of `body`'s work on `connection` as one step.
    func measure<T>(_ step: String, _ connection: PeripheralConnection, world: Simulator?, _ body: () async throws -> T) async rethrows -> T {
        let before = await DemoCost.of(connection, in: world)
        let result = try await body()
        add(step, await DemoCost.of(connection, in: world) - before)
        return result
    }

    /// The table, as lines.
    var lines: [String] {
        let rows = self.rows.withLock { $0 }
        var header = ["step", "ATT requests", "PDUs out/in", "bytes out/in"]
        if showsLink { header += ["conn. events", "air time"] }
        func cells(_ step: String, _ cost: DemoCost) -> [String] {
            var cells = [step]
            if let protocolCost = cost.protocolCost {
                cells += [
                    "\(protocolCost.attRequests)", "\(protocolCost.pdusSent)/\(protocolCost.pdusReceived)",
                    "\(protocolCost.bytesSent)/\(protocolCost.bytesReceived)",
                ]
            } else {
                cells += ["n/a", "n/a", "n/a"]
            }
            if showsLink {
                cells.append(cost.connectionEvents.map(String.init) ?? "n/a")
                cells.append(cost.airTime.map(Self.milliseconds) ?? "n/a")
            }
            return cells
        }
        var table = [header] + rows.map { cells($0.step, $0.cost) }
        let total = rows.dropFirst().reduce(rows.first?.cost ?? .zero) { $0 + $1.cost }
        table.append(cells("total", total))
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.enumerated().flatMap { index, row -> [String] in
            let line = row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0) : cell.leftPadded(to: widths[column])
            }.joined(separator: "  ")
            let rule = String(repeating: "─", count: line.count)
            return index == 0 ? [line, rule] : index == table.count - 1 ? [rule, line] : [line]
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        return String(format: "%lld.%03lld ms", microseconds / 1000, microseconds % 1000)
    }
}

/// A device section's rows in the closing table: what each of its steps cost on its connection.
struct CostedSteps: Sendable {
    let summary: DemoSummary
    /// The simulation, when the section runs on one (adds connection events and air time).
    let world: Simulator?

    /// One row for everything the connection has cost so far (connecting and the first step).
    func sinceConnecting(_ step: String, _ connection: PeripheralConnection) async {
        summary.add(step, await DemoCost.of(connection, in: world))
    }

    /// One row for `body`'s work on `connection`.
    func measure<T>(_ step: String, _ connection: PeripheralConnection, _ body: () async throws -> T) async rethrows -> T {
        try await summary.measure(step, connection, world: world, body)
    }
}
