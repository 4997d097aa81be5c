extension View {
    /// Starts `action` as the view appears, with the isolation of the caller, and cancels it when
    /// the view goes away.
    nonisolated public func task(priority: TaskPriority = .userInitiated, _ action: sending @escaping @isolated(any) () async -> Void) -> some View {
        _ModifiedView(self)
    }

    /// Sets the font of the text in the view.
    nonisolated public func font(_ font: Font?) -> some View { _ModifiedView(self) }
    /// Gives the view's digits equal widths.
    nonisolated public func monospacedDigit() -> some View { _ModifiedView(self) }

    /// The title the navigation stack shows for the view: a localized key.
    nonisolated public func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { _ModifiedView(self) }
    /// The title the navigation stack shows for the view: a string shown as it is.
    @_disfavoredOverload
    nonisolated public func navigationTitle<S: StringProtocol>(_ title: S) -> some View { _ModifiedView(self) }
    /// The title the navigation stack shows for the view: styled text.
    nonisolated public func navigationTitle(_ title: Text) -> some View { _ModifiedView(self) }

    /// Puts views in the toolbar, where the system places them.
    nonisolated public func toolbar<Content: View>(@ViewBuilder content: () -> Content) -> some View { _ModifiedView(self) }
    /// Puts items in the toolbar, at the places they name.
    nonisolated public func toolbar<Content: ToolbarContent>(@ToolbarContentBuilder content: () -> Content) -> some View { _ModifiedView(self) }
}
