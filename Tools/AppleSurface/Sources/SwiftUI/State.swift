/// A value a view owns and SwiftUI keeps across updates of the view; writing it updates the view.
/// With an `@Observable` object, the view tracks the properties its body reads.
@propertyWrapper
public struct State<Value>: DynamicProperty {
    /// A state holding `value` at first.
    public init(wrappedValue value: Value) { surfaceOnly() }
    /// A state holding `value` at first.
    public init(initialValue value: Value) { surfaceOnly() }
    /// The current value.
    public var wrappedValue: Value {
        get { surfaceOnly() }
        nonmutating set { surfaceOnly() }
    }
    /// A binding to the value.
    public var projectedValue: Binding<Value> { surfaceOnly() }
}

extension State where Value: ExpressibleByNilLiteral {
    /// A state holding nil at first.
    public init() { surfaceOnly() }
}

/// Read and write access to a value owned elsewhere.
@propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    /// A binding reading and writing through the two closures.
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) { surfaceOnly() }
    /// The value.
    public var wrappedValue: Value {
        get { surfaceOnly() }
        nonmutating set { surfaceOnly() }
    }
    /// The binding itself.
    public var projectedValue: Binding<Value> { self }
    /// A binding to a property of the value.
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { surfaceOnly() }
}

#if canImport(UIKit)
import UIKit

/// Makes the app's UIKit delegate of the given type and keeps it for the app's lifetime, so a
/// SwiftUI app gets `application(_:didFinishLaunchingWithOptions:)`.
@MainActor @preconcurrency @propertyWrapper
public struct UIApplicationDelegateAdaptor<DelegateType: NSObject & UIApplicationDelegate>: DynamicProperty {
    /// An adaptor making a delegate of `delegateType`.
    public init(_ delegateType: DelegateType.Type = DelegateType.self) { surfaceOnly() }
    /// The delegate.
    public var wrappedValue: DelegateType { surfaceOnly() }
}
#endif
