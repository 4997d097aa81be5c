/// First come, first served turns for an actor's async operation that must not interleave with
/// itself across its suspension points (actors are reentrant): each caller waits for its turn,
/// then ends it.
///
/// One instance belongs to one actor: keep it in the actor's state and call ``take(isolation:)``
/// and ``end()`` only from the actor's methods (it is not Sendable, so the compiler keeps it
/// there).
final class Turns {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits until no turn is under way, then starts one.
    func take(isolation: isolated (any Actor)? = #isolation) async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in waiting.append(continuation) }
    }

    /// Ends the turn under way: the next caller waiting gets it.
    func end() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
