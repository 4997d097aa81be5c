import Harald

/// Where the app keeps the strap it is using, so it can reconnect at the next launch: set when a
/// connection comes up, cleared when the user ends it.
///
/// The app stores it in `UserDefaults`; tests and previews use ``InMemoryStrapMemory``.
public protocol StrapMemory: Sendable {
    /// The strap remembered, if any.
    func recall() -> PeripheralIdentifier?
    /// Remembers `strap`, or forgets it when nil.
    func remember(_ strap: PeripheralIdentifier?)
}

/// A ``StrapMemory`` that lasts as long as the value.
public final class InMemoryStrapMemory: StrapMemory {
    private let strap: Guarded<PeripheralIdentifier?>

    public init(_ strap: PeripheralIdentifier? = nil) { self.strap = Guarded(strap) }

    public func recall() -> PeripheralIdentifier? { strap.current }

    public func remember(_ strap: PeripheralIdentifier?) { self.strap.withLock { $0 = strap } }
}
