/// The serial domain of a link: the one executor its engines share.
///
/// A link's engines — its GATT client (or the GATT server of the device it serves), its Security
/// Manager, the shared link and the connection handles an app holds — are actors, and each of
/// them forwards its `unownedExecutor` to the link's domain. They stay separate types with their
/// own state, but they run one at a time on one executor: a call from one to another is a call on
/// the same executor (the runtime switches in place, with no job enqueued and no thread woken),
/// and their work never interleaves except where one of them suspends.
///
/// Where the domain comes from: a `SerialDomain` made for the link (by the HCI backend and the
/// simulator), a plain actor with no state whose executor is the runtime's default one (in a
/// simulation, the simulation's executor, as for every actor). A simulated device's GATT server
/// has its own, since it serves every link to the device. (A domain on the HCI host's own thread
/// was tried and measured, and left out: pairings broke under load; see ARCHITECTURE.md.)
///
/// An engine takes the domain's root (never another engine that forwards), so that a link's
/// executor is one hop from each of its engines.
package actor SerialDomain {
    /// A domain of its own, for a link whose transport names none.
    package init() {}
}
