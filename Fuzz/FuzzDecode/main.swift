// libFuzzer entry point for every fuzz target in Harald (the targets live in Fuzz/Targets, the
// HaraldFuzzTargets library, which the corpus replay test also runs).
//
// One binary, one target per run: the `FUZZ_TARGET` environment variable names the target and
// the whole input goes to it. Build and run it with `./scripts/fuzz --target NAME`; a plain
// `swift build` makes an inert executable, because libFuzzer's driver is only linked with
// `-sanitize=fuzzer` (and `-DFUZZING` turns on the call to it).

import HaraldFuzzTargets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The target this run drives, from `FUZZ_TARGET`; exits with status 2 when it names none.
func chosenTarget() -> FuzzTarget {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTargets.named(name) else {
        print(
            name.isEmpty ? "set FUZZ_TARGET to a target name (FuzzDecode --list prints them)" : "no fuzz target named \(name) (FuzzDecode --list prints them)")
        exit(2)
    }
    return target
}

// Unsafe only in name: it is set once, before libFuzzer's driver (or the replay loop) first calls
// fuzzOne, and only read after that, from the one thread that runs inputs.
nonisolated(unsafe) var target: FuzzTarget?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    target?.run(input)
    return 0
}

if CommandLine.arguments.dropFirst().first == "--list" {
    for target in FuzzTargets.all { print(target.name) }
    exit(0)
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

let chosen = chosenTarget()
target = chosen
// Targets that run tasks get no per-input leak check (see FuzzTarget.runsTasks); a flag given on
// the command line comes later and wins.
let driverArguments = [CommandLine.arguments[0]] + (chosen.runsTasks ? ["-detect_leaks=0"] : []) + CommandLine.arguments.dropFirst()
var cArguments: [UnsafeMutablePointer<CChar>?] = driverArguments.map { strdup($0) } + [nil]
var argumentCount = CInt(driverArguments.count)
exit(
    cArguments.withUnsafeMutableBufferPointer { buffer in
        var pointer = buffer.baseAddress!
        return runFuzzerDriver(&argumentCount, &pointer, fuzzOne)
    })
#else
if CommandLine.arguments.dropFirst().first == "--replay" {
    // Runs each file as one input of FUZZ_TARGET, without libFuzzer: a quick check of a finding in
    // a debug build (the corpus replay test does the same for every committed input).
    target = chosenTarget()
    for path in CommandLine.arguments.dropFirst(2) {
        guard let file = fopen(path, "rb") else {
            print("cannot open \(path)")
            exit(1)
        }
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            input += buffer[..<count]
        }
        fclose(file)
        _ = input.withUnsafeBufferPointer { fuzzOne($0.baseAddress, $0.count) }
        print("ran \(path) (\(input.count) bytes)")
    }
} else {
    print("FuzzDecode is built without libFuzzer; run ./scripts/fuzz --target NAME (or pass --list for the targets).")
}
#endif
