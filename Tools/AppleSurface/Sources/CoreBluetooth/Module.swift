// CoreBluetooth, as Swift sees Apple's framework, for type-checking only: the declarations (names,
// argument labels, types, optionality, `open` NSObject subclasses, `weak` delegates) follow Apple's
// documentation; no body does anything but trap. See ../../README.md.

// Importing Apple's CoreBluetooth makes Foundation (and with it Dispatch) visible too.
@_exported import Foundation

/// Stops a program that ran code of this compile-only module.
@usableFromInline
func surfaceOnly(_ function: StaticString = #function) -> Never {
    fatalError("CoreBluetooth stand-in (compile-only): \(function) was called")
}
