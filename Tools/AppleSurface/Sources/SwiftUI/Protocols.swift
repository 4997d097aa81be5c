// SwiftUI, as much of its Swift interface as Harald's example app uses, for type-checking only:
// the declarations (generic shapes, labels, result builders, `@MainActor @preconcurrency`
// protocols, `nonisolated` initializers and modifiers) follow Apple's documentation; no body does
// anything but trap. See ../../README.md.

@_exported import Foundation

/// Stops a program that ran code of this compile-only module.
@usableFromInline
func surfaceOnly(_ function: StaticString = #function) -> Never {
    fatalError("SwiftUI stand-in (compile-only): \(function) was called")
}

/// A piece of user interface: a value whose `body` describes it in terms of other views. Views are
/// isolated to the main actor.
@MainActor @preconcurrency
public protocol View {
    /// The type of the view's content.
    associatedtype Body: View
    /// The view's content.
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// A part of an app's user interface whose life the system manages, such as a window group.
@MainActor @preconcurrency
public protocol Scene {
    /// The type of the scene's content.
    associatedtype Body: Scene
    /// The scene's content.
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// An app: its scenes. Mark the conforming type `@main` to start the app with it.
@MainActor @preconcurrency
public protocol App {
    /// The type of the app's content.
    associatedtype Body: Scene
    /// The app's scenes.
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    /// Makes the app; the system calls it once at launch.
    @MainActor @preconcurrency init()
}

extension App {
    /// Starts the app (what `@main` calls).
    @MainActor @preconcurrency public static func main() { surfaceOnly() }
}

/// Content of a toolbar, such as a toolbar item.
@MainActor @preconcurrency
public protocol ToolbarContent {
    /// The type of the content's body.
    associatedtype Body: ToolbarContent
    /// The toolbar content.
    @ToolbarContentBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// A property of a view that SwiftUI updates before it computes the view's body, like `State`.
public protocol DynamicProperty {
    /// Brings the property up to date.
    @MainActor @preconcurrency mutating func update()
}

extension DynamicProperty {
    /// Does nothing.
    @MainActor @preconcurrency public mutating func update() {}
}

// Views that have no body of their own (their `Body` is `Never`).
extension Never: View, Scene, ToolbarContent {
    /// Never produced.
    public typealias Body = Never
    /// Never produced. (One builder named: three protocols offer one each.)
    @ViewBuilder public var body: Never { surfaceOnly() }
}
