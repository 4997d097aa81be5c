// libFuzzer entry point for every decoder in Harald.
//
// The first input byte picks the target (modulo the table size) and the rest is its input, so
// libFuzzer learns per target which bytes reach new code. Build and run it with `./scripts/fuzz`;
// a plain `swift build` makes an inert executable, because libFuzzer's driver is only linked with
// `-sanitize=fuzzer` (and `-DFUZZING` turns on the call to it).

import HaraldCodec

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every decoder the fuzzer drives (`FuzzDecode --list` prints the rows): the codec, ATT PDUs,
/// SMP PDUs, the SMP responder and initiator fed PDU sequences and paired through a meddler, advertising data and beacons, the HCI parsers, the GATT client against a scripted server, the
/// Open GoPro packetizer and messages, one row per characteristic of the standard registry, then
/// the Mi Band kit's messages. Seeds name their target (Fuzz/seeds/targets.tsv) and scripts/fuzz
/// prefixes each with that target's current row, so rows may be added anywhere.
let allFuzzTargets: [FuzzTarget] = codecTargets + attTargets + smpTargets + smpSequenceTargets + smpMeddlerTargets + advertisingTargets + hciTargets + serverTargets + goProTargets + profileTargets
    + miBandTargets

/// The targets this run drives: all of them, or only those named in the `FUZZ_TARGET` environment
/// variable (comma-separated), which keeps every input's first byte but ignores its value when one
/// target is left, so the shared corpus and seeds still apply.
let fuzzTargets: [FuzzTarget] = {
    guard let names = getenv("FUZZ_TARGET").map({ String(cString: $0) }), !names.isEmpty else { return allFuzzTargets }
    let wanted = Set(names.split(separator: ",").map(String.init))
    let chosen = allFuzzTargets.filter { wanted.contains($0.name) }
    guard !chosen.isEmpty else {
        print("FUZZ_TARGET names no fuzz target: \(names) (see FuzzDecode --list)")
        exit(2)
    }
    return chosen
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let target = fuzzTargets[Int(input[0]) % fuzzTargets.count]
    target.run(Array(input.dropFirst()))
    return 0
}

/// Prints each target's row and name, one per line (scripts/fuzz reads this to place the seeds).
func listTargets() {
    for (index, target) in allFuzzTargets.enumerated() { print(index, target.name) }
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

if CommandLine.arguments.dropFirst().first == "--list" {
    listTargets()
    exit(0)
}
var argumentCount = CommandLine.argc
var arguments = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argumentCount, &arguments, fuzzOne))
#else
if CommandLine.arguments.dropFirst().first == "--list" {
    listTargets()
} else if CommandLine.arguments.dropFirst().first == "--replay" {
    // Runs each file as one input (its first byte picks the target), without libFuzzer: a quick
    // check of a seed or a finding in a debug build.
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
    print("FuzzDecode is built without libFuzzer; run ./scripts/fuzz SECONDS (or pass --list for the targets).")
}
#endif
