/// Builds a view from the statements of a closure or a computed property: several views, `if`,
/// `if let`, `switch`, and `if #available`.
@resultBuilder
public struct ViewBuilder {
    /// A view as it is.
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    /// No view.
    public static func buildBlock() -> EmptyView { EmptyView() }
    /// One view.
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    /// Several views, one after the other.
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        TupleView((repeat each content))
    }
    /// The view of an `if` without `else`, or nothing.
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> {
        _ConditionalContent(storage: .trueContent(first))
    }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> {
        _ConditionalContent(storage: .falseContent(second))
    }
    /// The view of an `if #available` branch, its type erased.
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

/// Builds the scenes of an app.
@resultBuilder
public struct SceneBuilder {
    /// A scene as it is.
    public static func buildExpression<Content: Scene>(_ content: Content) -> Content { content }
    /// One scene.
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

/// Builds the content of a toolbar.
@resultBuilder
public struct ToolbarContentBuilder {
    /// Toolbar content as it is.
    public static func buildExpression<Content: ToolbarContent>(_ content: Content) -> Content { content }
    /// One item.
    public static func buildBlock<Content: ToolbarContent>(_ content: Content) -> Content { content }
}

/// A view that shows nothing.
public struct EmptyView: View {
    /// The empty view.
    nonisolated public init() {}
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

/// Several views one after the other, as a view builder makes them.
public struct TupleView<T>: View {
    /// Views from a tuple.
    nonisolated public init(_ value: T) {}
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

/// One of two views, as a view builder makes it for `if`/`else` and `switch`.
public struct _ConditionalContent<TrueContent, FalseContent>: View where TrueContent: View, FalseContent: View {
    /// Which view.
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    nonisolated init(storage: Storage) {}
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

/// A view that shows its optional content when there is some.
extension Optional: View where Wrapped: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

/// Any view, its type erased.
public struct AnyView: View {
    /// A view erasing `view`'s type.
    nonisolated public init<V: View>(_ view: V) {}
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

/// What a modifier of this stand-in returns (Apple's modifiers return opaque views as well).
struct _ModifiedView<Content: View>: View {
    nonisolated init(_ content: Content) {}
    var body: Never { surfaceOnly() }
}
