import HaraldCodec

/// One decoder the fuzzer drives: a name for logs and a function that feeds it the input bytes.
///
/// A target must never trap on any input. It may trap on purpose (`require`) when a decoded
/// value breaks an invariant that holds for every valid value, such as "re-encoding gives back the
/// same bytes", so libFuzzer reports the input.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void

    init(_ name: String, _ run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
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
