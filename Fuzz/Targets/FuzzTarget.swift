import HaraldCodec

/// One decoder or engine the fuzzer drives: a name and a function that feeds it the input bytes.
///
/// A target must never trap on any input. It may trap on purpose (`require`) when a decoded
/// value breaks an invariant that holds for every valid value, such as "re-encoding gives back the
/// same bytes", so libFuzzer reports the input.
public struct FuzzTarget: Sendable {
    /// The target's name: letters, digits and dots, so it can name its corpus directory
    /// (`Fuzz/corpus/NAME`) and be typed after `scripts/fuzz --target`.
    public let name: String
    /// Feeds one input to the target; returns normally unless the input broke an invariant.
    public let run: @Sendable ([UInt8]) -> Void
    /// The target runs each input in tasks on the concurrency pool (an engine, a state machine).
    /// Those tasks free their memory on pool threads just after the input returns, so libFuzzer's
    /// per-input leak check (run whenever an input allocated more than it freed) would fire on
    /// nearly every input, rerun it under LeakSanitizer and cut the rate twentyfold, and it
    /// reports task memory still being torn down as leaks. Such targets check instead that the
    /// engine holds no continuation at the end of every input, and FuzzDecode turns the
    /// per-input check off for them (`-detect_leaks=0`).
    public let runsTasks: Bool

    init(_ name: String, runsTasks: Bool = false, _ run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.runsTasks = runsTasks
        self.run = run
    }

    /// Decodes `T` from the input as a whole value and as a prefix; errors are rendered to text so
    /// their descriptions are exercised too.
    static func decoding<T: ByteDecodable>(_ type: T.Type, name: String? = nil) -> FuzzTarget {
        FuzzTarget(name ?? String(describing: type)) { bytes in
            touch { () throws(ByteDecodingError) in _ = try T(decoding: bytes) }
            touch { () throws(ByteDecodingError) in _ = try T.decodePrefix(of: bytes) }
        }
    }

    /// Like ``decoding(_:name:)``, and re-encodes every value that decoded, requiring the original
    /// bytes back (for types whose wire form has exactly one reading).
    static func roundTripping<T: ByteCodable>(_ type: T.Type, name: String? = nil) -> FuzzTarget {
        FuzzTarget(name ?? String(describing: type)) { bytes in
            touch { () throws(ByteDecodingError) in
                let value = try T(decoding: bytes)
                requireSameBytes(value, bytes, "\(T.self) re-encodes to its input")
            }
            touch { () throws(ByteDecodingError) in
                let (value, used) = try T.decodePrefix(of: bytes)
                require(used >= 0 && used <= bytes.count, "\(T.self) prefix length \(used) out of 0...\(bytes.count)")
                requireSameBytes(value, Array(bytes[..<used]), "\(T.self) prefix re-encodes to the bytes it used")
            }
        }
    }
}

/// Runs `body`; a decoding error is normal and only has its description rendered.
@inline(never)
func touch(_ body: () throws(ByteDecodingError) -> Void) {
    do {
        try body()
    } catch {
        blackHole(error.description)
    }
}

/// Traps unless `value` encodes to exactly `expected`.
func requireSameBytes<T: ByteEncodable>(_ value: T, _ expected: [UInt8], _ what: @autoclosure () -> String) {
    do {
        let encoded = try value.encodedBytes()
        require(encoded == expected, "\(what()): \(expected.hexString) → \(encoded.hexString)")
    } catch {
        fatalError("\(what()): encoding failed: \(error)")
    }
}

/// Stops with `message` unless `condition` holds. Unlike `precondition`, it keeps the message in
/// optimised builds, so a finding says which invariant broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
    if !condition { fatalError(message(), line: line) }
}

/// Keeps a value alive so the optimiser cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
