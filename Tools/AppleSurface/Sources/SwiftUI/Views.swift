/// A title with an icon.
public struct Label<Title: View, Icon: View>: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension Label where Title == Text, Icon == Image {
    /// The text of a localized key with a system symbol.
    nonisolated public init(_ titleKey: LocalizedStringKey, systemImage name: String) { surfaceOnly() }
    /// A string shown as it is, with a system symbol.
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, systemImage name: String) { surfaceOnly() }
}

/// A control that runs an action when the user triggers it.
public struct Button<Label: View>: View {
    /// A button showing `label`.
    @preconcurrency nonisolated public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) { surfaceOnly() }
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension Button where Label == Text {
    /// A button titled with a localized key.
    @preconcurrency nonisolated public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) { surfaceOnly() }
    /// A button titled with a string shown as it is.
    @_disfavoredOverload
    @preconcurrency nonisolated public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) { surfaceOnly() }
}

/// A control that shows a menu of its content when the user triggers it.
public struct Menu<Label: View, Content: View>: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension Menu where Label == Text {
    /// A menu titled with a localized key.
    nonisolated public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) { surfaceOnly() }
    /// A menu titled with a string shown as it is.
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) { surfaceOnly() }
}

/// A label with a value beside it, as in a settings list.
public struct LabeledContent<Label, Content> {}

extension LabeledContent: View where Label: View, Content: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension LabeledContent where Label == Text, Content == Text {
    /// The text of a localized key with a string value.
    nonisolated public init<S: StringProtocol>(_ titleKey: LocalizedStringKey, value: S) { surfaceOnly() }
    /// A string title, shown as it is, with a string value.
    @_disfavoredOverload
    nonisolated public init<S1: StringProtocol, S2: StringProtocol>(_ title: S1, value: S2) { surfaceOnly() }
}

/// Views made from the elements of a collection, one per element, told apart by an identifier.
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {}

extension ForEach: View where Content: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    /// A view per element, identified by the elements' `id`.
    nonisolated public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) { surfaceOnly() }
}

extension ForEach where Content: View {
    /// A view per element, identified by the property at `id`.
    nonisolated public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {
        surfaceOnly()
    }
}

/// Rows in one scrolling column, grouped in sections.
public struct List<SelectionValue: Hashable, Content: View>: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension List where SelectionValue == Never {
    /// A list of `content`, without selection.
    nonisolated public init(@ViewBuilder content: () -> Content) { surfaceOnly() }
}

/// A group of rows in a list or form, with an optional header and footer.
public struct Section<Parent, Content, Footer> {}

extension Section: View where Parent: View, Content: View, Footer: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension Section where Parent == EmptyView, Content: View, Footer == EmptyView {
    /// A section without header or footer.
    nonisolated public init(@ViewBuilder content: () -> Content) { surfaceOnly() }
}

extension Section where Parent == Text, Content: View, Footer == EmptyView {
    /// A section under the text of a localized key.
    nonisolated public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) { surfaceOnly() }
    /// A section under a string shown as it is.
    @_disfavoredOverload
    nonisolated public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) { surfaceOnly() }
}

/// A list of the values of a navigation stack's pushed views, of any types.
public struct NavigationPath {
    /// An empty path.
    public init() {}
}

/// A root view and the views pushed over it.
public struct NavigationStack<Data, Root: View>: View {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension NavigationStack where Data == NavigationPath {
    /// A stack that starts at `root`.
    nonisolated public init(@ViewBuilder root: () -> Root) { surfaceOnly() }
}

/// Where an item goes in a toolbar.
public struct ToolbarItemPlacement: Sendable {
    let name: String
    /// Where the system puts it.
    public static let automatic = ToolbarItemPlacement(name: "automatic")
    /// The place of the screen's main action.
    public static let primaryAction = ToolbarItemPlacement(name: "primaryAction")
    /// The place of a cancel action.
    public static let cancellationAction = ToolbarItemPlacement(name: "cancellationAction")
    /// The place of a confirming action.
    public static let confirmationAction = ToolbarItemPlacement(name: "confirmationAction")
}

/// One item of a toolbar.
public struct ToolbarItem<ID, Content: View>: ToolbarContent {
    /// Never produced.
    public var body: Never { surfaceOnly() }
}

extension ToolbarItem where ID == () {
    /// An item showing `content` at `placement`.
    nonisolated public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) { surfaceOnly() }
}

/// The windows of an app, all showing the same kind of view.
public struct WindowGroup<Content: View>: Scene {
    /// Windows showing `content`.
    nonisolated public init(@ViewBuilder content: () -> Content) { surfaceOnly() }
    /// Never produced.
    public var body: Never { surfaceOnly() }
}
