#if canImport(Observation)
import Harald
import Observation

/// The heart-rate app's state as an observable object for SwiftUI: a main-actor mirror of a
/// ``HeartRateCore``, which does the work.
///
/// ```swift
/// // In the app delegate's application(_:didFinishLaunchingWithOptions:), so that a relaunch in
/// // the background (state restoration) runs it too:
/// let model = HeartRateModel(central: central, memory: memory)
/// running = Task { await model.run() }
/// // In a view:
/// Text(model.state.status.description)
/// ```
///
/// ``state`` changes on the main actor while ``run()`` runs; cancelling its task stops the scan
/// and disconnects, and a later ``run()`` starts over.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
@Observable
public final class HeartRateModel {
    /// The core doing the work.
    public let core: HeartRateCore
    /// What the screen shows.
    public private(set) var state = HeartRateAppState()

    public init(central: Central, memory: any StrapMemory, reconnectPolicy: ReconnectPolicy = HeartRateCore.defaultReconnectPolicy) {
        core = HeartRateCore(central: central, memory: memory, reconnectPolicy: reconnectPolicy)
    }

    /// Runs the core and keeps ``state`` current until the calling task is cancelled.
    public func run() async {
        let core = self.core
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await core.run() }
            // Ends when the core's run does.
            for await state in await core.states() { self.state = state }
        }
    }

    /// Looks for heart-rate straps.
    public func scan() { core.scan() }
    /// Stops looking for straps.
    public func stopScan() { core.stopScan() }
    /// Connects to a strap found by the scan, or any other known one.
    public func connect(to strap: PeripheralIdentifier) { core.connect(to: strap) }
    /// Stops scanning or waiting for the strap.
    public func cancel() { core.cancel() }
    /// Disconnects, without reconnecting now or at the next launch.
    public func disconnect() { core.disconnect() }
}
#endif
