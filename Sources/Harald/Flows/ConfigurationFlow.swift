import Foundation
import HaraldCodec
import HaraldCore

/// Applies a list of settings to a device, verifying each, and undoes what it applied when a
/// later step fails.
///
/// Each step writes something and then checks it took effect — by reading the value back, or by
/// the device's response. If a step fails (the write is refused, the check does not match, the
/// link drops), the steps already applied are rolled back in reverse order, where the step knows
/// how (a setting remembers the value it replaced).
public struct ConfigurationFlow: Sendable {
    /// One setting change.
    public struct Step: Sendable {
        /// A name for progress and errors ("video resolution", say).
        public let name: String
        /// Applies the change; returns what ``rollback`` needs to undo it (nil when it can't be undone).
        let apply: @Sendable (PeripheralConnection) async throws -> (@Sendable (PeripheralConnection) async throws -> Void)?
        /// Checks the change took effect.
        let verify: @Sendable (PeripheralConnection) async throws -> Bool

        /// A step built from closures.
        public init(
            name: String,
            apply: @escaping @Sendable (PeripheralConnection) async throws -> (@Sendable (PeripheralConnection) async throws -> Void)?,
            verify: @escaping @Sendable (PeripheralConnection) async throws -> Bool
        ) {
            self.name = name
            self.apply = apply
            self.verify = verify
        }

        /// Writes `value` to a readable, writable characteristic, verifies it by reading it back,
        /// and restores the previous value on rollback.
        public static func setting<Value: ByteCodable & Equatable & Sendable, Access: ReadAccess & WriteAccess>(
            _ characteristic: Characteristic<Value, Access>, to value: Value, name: String? = nil
        ) -> Step {
            Step(
                name: name ?? "set \(characteristic.uuid)",
                apply: { connection in
                    let previous = try await connection.read(characteristic)
                    try await connection.write(value, to: characteristic)
                    return { try await $0.write(previous, to: characteristic) }
                },
                verify: { connection in try await connection.read(characteristic) == value })
        }

        /// Sends a command and verifies the device's response with `accept`; cannot be rolled back.
        public static func command<Command: ByteEncodable & Sendable, W: WriteAccess, Response: ByteDecodable & Sendable, S: SubscribeAccess>(
            _ command: Command, to commandCharacteristic: Characteristic<Command, W>,
            response responseCharacteristic: Characteristic<Response, S>, name: String,
            accept: @escaping @Sendable (Response) -> Bool
        ) -> Step {
            let outcome = Locked<Bool?>(nil)  // set by apply, read by verify
            return Step(
                name: name,
                apply: { connection in
                    let response = try await connection.request(write: command, to: commandCharacteristic, response: responseCharacteristic)
                    outcome.withLock { $0 = accept(response) }
                    return nil
                },
                verify: { _ in outcome.value ?? false })
        }
    }

    /// How far the flow got.
    public enum Progress: Hashable, Sendable {
        /// Writing the named step's setting.
        case applying(String)
        /// The named step's setting was read back as written.
        case verified(String)
        /// Restoring the named step's earlier setting after a later step failed.
        case rollingBack(String)
    }

    /// Why a configuration failed, and what was undone.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The step that failed.
        public let step: String
        /// The error, or nil when the check simply did not match.
        public let underlying: (any Error)?
        /// Steps rolled back, in the order they were undone.
        public let rolledBack: [String]
        /// Steps that were applied but could not be undone (no rollback, or the rollback failed).
        public let leftApplied: [String]

        /// The failing step, the cause, and which steps were rolled back or left applied, e.g.
        /// `configuration failed at 'units': verification failed; rolled back ["rate"], left applied []`.
        public var description: String {
            let cause = underlying.map { "\($0)" } ?? "verification failed"
            return "configuration failed at '\(step)': \(cause); rolled back \(rolledBack), left applied \(leftApplied)"
        }
    }

    /// The settings, applied in order.
    public let steps: [Step]

    /// A flow applying `steps` in order.
    public init(steps: [Step]) { self.steps = steps }

    /// Applies every step on `connection`; returns the names of the applied steps.
    public func run(on connection: PeripheralConnection, progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws(Failure)
        -> [String]
    {
        var applied: [(name: String, undo: (@Sendable (PeripheralConnection) async throws -> Void)?)] = []
        for step in steps {
            progress(.applying(step.name))
            var failure: (any Error)?
            var verified = false
            do {
                let undo = try await step.apply(connection)
                applied.append((step.name, undo))
                verified = try await step.verify(connection)
            } catch {
                failure = error
            }
            if verified {
                progress(.verified(step.name))
                continue
            }
            // Undo in reverse order, the failed step first if it got applied.
            var rolledBack: [String] = []
            var leftApplied: [String] = []
            for entry in applied.reversed() {
                guard let undo = entry.undo else {
                    leftApplied.append(entry.name)
                    continue
                }
                progress(.rollingBack(entry.name))
                do {
                    try await undo(connection)
                    rolledBack.append(entry.name)
                } catch {
                    leftApplied.append(entry.name)
                }
            }
            throw Failure(step: step.name, underlying: failure, rolledBack: rolledBack, leftApplied: leftApplied)
        }
        return applied.map(\.name)
    }
}
