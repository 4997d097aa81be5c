/// Tells the optimiser that `value` may have changed, so work that depends on it cannot be hoisted
/// out of a benchmark loop.
///
/// It lives in its own module and is never optimised or inlined, so the caller cannot see that it
/// does nothing. Unlike passing the value through `identity`, it costs no retain or release.
@inline(never) @_optimize(none)
public func clobber<T>(_ value: inout T) {}
