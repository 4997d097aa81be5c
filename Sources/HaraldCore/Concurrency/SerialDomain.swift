/// The serial domain of a link: the one executor its engines share.
///
/// A link's engines — its GATT client (or the GATT server of the device it serves), its Security
/// Manager, the shared link and the connection handles an app holds — are actors, and each of
/// them forwards its `unownedExecutor` to the link's domain. They stay separate types with their
/// own state, but they run one at a time on one executor: a call from one to another is a call on
/// the same executor (the runtime switches in place, with no job enqueued and no thread woken),
/// and their work never interleaves except where one of them suspends.
///
/// Where the domain comes from:
/// - over HCI, it is the `HCIHost`, which runs on its transport's thread: every link of a host
///   shares the thread that reads the controller, as every channel of a swift-nio event loop does;
/// - elsewhere (the simulator, memory bearers in tests, CoreBluetooth), a `SerialDomain` made for
///   the link. It is a plain actor with no state: its executor is the runtime's default actor
///   executor, so in a simulation it runs on the simulation's executor like every other actor.
///
/// An engine takes the domain's root (never another engine that forwards), so that a link's
/// executor is one hop from each of its engines.
package actor SerialDomain {
    /// A domain of its own, for a link whose transport names none.
    package init() {}
}
