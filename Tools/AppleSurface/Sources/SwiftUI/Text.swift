/// The key of a localized string. A string literal, with interpolations, becomes one where a view
/// takes a key; interpolated values must be strings, numbers, `Text`, or formatted.
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    /// A key from a string.
    public init(_ value: String) { surfaceOnly() }
    /// A key from a literal.
    public init(stringLiteral value: String) { surfaceOnly() }
    /// A key from an interpolated literal.
    public init(stringInterpolation: StringInterpolation) { surfaceOnly() }

    /// The parts of an interpolated key.
    public struct StringInterpolation: StringInterpolationProtocol {
        /// Room for the literal's parts.
        public init(literalCapacity: Int, interpolationCount: Int) { surfaceOnly() }
        /// A literal part.
        public mutating func appendLiteral(_ literal: String) { surfaceOnly() }
        /// A string, shown as it is.
        public mutating func appendInterpolation(_ string: String) { surfaceOnly() }
        /// A number, formatted for the user's locale.
        public mutating func appendInterpolation<T: _FormatSpecifiable>(_ value: T) { surfaceOnly() }
        /// A number, formatted with a printf-style specifier.
        public mutating func appendInterpolation<T: _FormatSpecifiable>(_ value: T, specifier: String) { surfaceOnly() }
        /// A value formatted by a formatter.
        public mutating func appendInterpolation<Subject: ReferenceConvertible>(_ subject: Subject, formatter: Formatter? = nil) { surfaceOnly() }
        /// An object formatted by a formatter.
        public mutating func appendInterpolation<Subject: NSObject>(_ subject: Subject, formatter: Formatter? = nil) { surfaceOnly() }
        /// Styled text.
        public mutating func appendInterpolation(_ text: Text) { surfaceOnly() }
        /// An image, inline.
        public mutating func appendInterpolation(_ image: Image) { surfaceOnly() }
    }
}

/// The numbers a localized key can interpolate with a format specifier.
public protocol _FormatSpecifiable: Equatable {
    /// The value handed to the formatter.
    associatedtype _Arg: CVarArg
    /// The value handed to the formatter.
    var _arg: _Arg { get }
    /// The default printf-style specifier.
    var _specifier: String { get }
}

extension Int: _FormatSpecifiable {
    /// Itself.
    public var _arg: Int { self }
    /// `%lld`.
    public var _specifier: String { "%lld" }
}
extension Int8: _FormatSpecifiable {
    /// As a 32-bit value.
    public var _arg: Int32 { Int32(self) }
    /// `%d`.
    public var _specifier: String { "%d" }
}
extension Int16: _FormatSpecifiable {
    /// As a 32-bit value.
    public var _arg: Int32 { Int32(self) }
    /// `%d`.
    public var _specifier: String { "%d" }
}
extension Int32: _FormatSpecifiable {
    /// Itself.
    public var _arg: Int32 { self }
    /// `%d`.
    public var _specifier: String { "%d" }
}
extension Int64: _FormatSpecifiable {
    /// Itself.
    public var _arg: Int64 { self }
    /// `%lld`.
    public var _specifier: String { "%lld" }
}
extension UInt: _FormatSpecifiable {
    /// Itself.
    public var _arg: UInt { self }
    /// `%llu`.
    public var _specifier: String { "%llu" }
}
extension UInt8: _FormatSpecifiable {
    /// As a 32-bit value.
    public var _arg: UInt32 { UInt32(self) }
    /// `%u`.
    public var _specifier: String { "%u" }
}
extension UInt16: _FormatSpecifiable {
    /// As a 32-bit value.
    public var _arg: UInt32 { UInt32(self) }
    /// `%u`.
    public var _specifier: String { "%u" }
}
extension UInt32: _FormatSpecifiable {
    /// Itself.
    public var _arg: UInt32 { self }
    /// `%u`.
    public var _specifier: String { "%u" }
}
extension UInt64: _FormatSpecifiable {
    /// Itself.
    public var _arg: UInt64 { self }
    /// `%llu`.
    public var _specifier: String { "%llu" }
}
extension Float: _FormatSpecifiable {
    /// Itself.
    public var _arg: Float { self }
    /// `%f`.
    public var _specifier: String { "%f" }
}
extension Double: _FormatSpecifiable {
    /// Itself.
    public var _arg: Double { self }
    /// `%lf`.
    public var _specifier: String { "%lf" }
}

/// A font: a system font of a size, weight and design, or a text style.
public struct Font: Hashable, Sendable {
    /// The thickness of a font's strokes.
    public struct Weight: Hashable, Sendable {
        let value: Double
        /// Ultra light.
        public static let ultraLight = Weight(value: -0.8)
        /// Thin.
        public static let thin = Weight(value: -0.6)
        /// Light.
        public static let light = Weight(value: -0.4)
        /// Regular.
        public static let regular = Weight(value: 0)
        /// Medium.
        public static let medium = Weight(value: 0.23)
        /// Semibold.
        public static let semibold = Weight(value: 0.3)
        /// Bold.
        public static let bold = Weight(value: 0.4)
        /// Heavy.
        public static let heavy = Weight(value: 0.56)
        /// Black.
        public static let black = Weight(value: 0.62)
    }

    /// The design of a system font.
    public enum Design: Hashable, Sendable {
        /// The default system design.
        case `default`
        /// A serif design.
        case serif
        /// Rounded strokes.
        case rounded
        /// Every character the same width.
        case monospaced
    }

    /// The system font of this size in points, weight and design.
    public static func system(size: CGFloat, weight: Font.Weight? = nil, design: Font.Design? = nil) -> Font { surfaceOnly() }
    /// The body text style.
    public static var body: Font { surfaceOnly() }
    /// The headline text style.
    public static var headline: Font { surfaceOnly() }
    /// The large-title text style.
    public static var largeTitle: Font { surfaceOnly() }
}

/// Read-only text: a localized key, a string shown as it is, or styled text.
public struct Text: View, Equatable, Sendable {
    /// The text of a localized key, looked up in the table of the bundle.
    nonisolated public init(_ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil) {
        surfaceOnly()
    }
    /// A string shown as it is (not localized).
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ content: S) { surfaceOnly() }
    /// A string shown as it is, even a literal.
    nonisolated public init(verbatim content: String) { surfaceOnly() }

    /// The text in this font.
    nonisolated public func font(_ font: Font?) -> Text { surfaceOnly() }
    /// The text with digits of equal width, so changing numbers do not shift.
    nonisolated public func monospacedDigit() -> Text { surfaceOnly() }
    /// The text in bold.
    nonisolated public func bold() -> Text { surfaceOnly() }

    /// Texts are equal when they show the same.
    nonisolated public static func == (lhs: Text, rhs: Text) -> Bool { surfaceOnly() }
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

/// An image: here only the system's symbol images.
public struct Image: View, Equatable, Sendable {
    /// The system symbol of this name.
    nonisolated public init(systemName: String) { surfaceOnly() }
    /// Images are equal when they show the same.
    nonisolated public static func == (lhs: Image, rhs: Image) -> Bool { surfaceOnly() }
    /// Never produced.
    public var body: Never { surfaceOnly() }
}
