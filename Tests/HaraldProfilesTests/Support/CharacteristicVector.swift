import Foundation
import HaraldCodec
import HaraldProfiles

/// One characteristic vector of `Resources/vectors.json` (a copy of the shared vectors): the
/// bytes of a value and either the JSON they decode to or `error: true`.
struct CharacteristicVector: Decodable, Sendable, CustomStringConvertible {
    var uuid: String
    var hex: String
    var source: String
    var expected: JSONValue?
    var error: Bool?

    var mustFail: Bool { error == true }
    var bytes: [UInt8] { (try? [UInt8](hex: hex)) ?? [] }
    var description: String { "\(uuid) \(hex.isEmpty ? "(empty)" : hex) — \(source)" }

    private struct File: Decodable {
        var characteristics: [CharacteristicVector]
    }

    /// Every characteristic vector in the copied file.
    static let all: [CharacteristicVector] = {
        guard let url = Bundle.module.url(forResource: "vectors", withExtension: "json"),
            let data = try? Data(contentsOf: url),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return file.characteristics
    }()

    static var decodable: [CharacteristicVector] { all.filter { !$0.mustFail } }
    static var failing: [CharacteristicVector] { all.filter(\.mustFail) }
}

/// Compares a decoded description with a vector's `expected` object: every expected key must be
/// present with that value (numbers within 1e-9); a null expectation also accepts an absent key;
/// extra keys in the description are fine.
enum JSONExpectation {
    static func mismatches(expected: JSONValue, actual: JSONValue?, path: String = "$") -> [String] {
        switch (expected, actual) {
        case (.null, nil), (.null, .null?):
            return []
        case let (.object(members), .object(actualMembers)?):
            return members.sorted { $0.key < $1.key }.flatMap { key, value in
                mismatches(expected: value, actual: actualMembers[key], path: "\(path).\(key)")
            }
        case let (.array(items), .array(actualItems)?):
            guard items.count == actualItems.count else {
                return ["\(path): \(items.count) items expected, \(actualItems.count) found"]
            }
            return zip(items, actualItems).enumerated().flatMap { index, pair in
                mismatches(expected: pair.0, actual: pair.1, path: "\(path)[\(index)]")
            }
        case let (.integer, actual?), let (.number, actual?):
            guard let want = expected.doubleValue, let got = actual.doubleValue, abs(want - got) <= 1e-9 else {
                return ["\(path): expected \(expected), found \(actual)"]
            }
            return []
        case let (_, actual?):
            return expected == actual ? [] : ["\(path): expected \(expected), found \(actual)"]
        case (_, nil):
            return ["\(path): missing, expected \(expected)"]
        }
    }
}
