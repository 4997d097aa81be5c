// The heart-rate app for iOS 17 and later: this file plus the HeartRateAppModel library (see
// ../README.md for the Xcode set-up). It is in no target of the package, so the package's builds
// never see it: scripts/check-corebluetooth compiles it on Linux against the compile-only SwiftUI
// and CoreBluetooth of Tools/AppleSurface, and everything it shows is tested on Linux through the
// model (../Tests).
//
// The app target's Info.plist needs:
//   NSBluetoothAlwaysUsageDescription   "Reads your heart rate from your chest strap."
//   UIBackgroundModes                   [bluetooth-central]   (readings go on while the app is
//                                                              in the background, and the system
//                                                              relaunches it for its strap)
#if canImport(SwiftUI) && canImport(CoreBluetooth) && canImport(UIKit)
import Foundation
import Harald
import HaraldCoreBluetooth
import HeartRateAppModel
import SwiftUI
import UIKit

@main
struct HeartRateApp: App {
    /// The delegate makes the central and runs the model from the launch on.
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup {
            HeartRateScreen(model: appDelegate.model)
        }
    }
}

/// Makes the app's one central while the app launches and runs the model for the app's lifetime.
///
/// When the system relaunches the app in the background for its strap (a reading, a pending
/// connect completing), no window may ever show, so no view's `.task` runs: the central — with
/// its restore identifier, so the system hands back the connection — and the model's run must
/// start here, in `application(_:didFinishLaunchingWithOptions:)`.
final class AppDelegate: NSObject, UIApplicationDelegate {
    /// One central for the app's lifetime, made with the manager (the restore identifier makes
    /// the backend create it at once, as restoration requires).
    let model = HeartRateModel(
        central: Central(backend: SystemCoreBluetoothBackend(restoreIdentifier: "HeartRateApp.central")),
        memory: DefaultsStrapMemory())
    private var running: Task<Void, Never>?

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        // Takes the restoration (if any), reconnects to the remembered strap, and keeps the
        // state current until the process ends.
        let model = self.model
        running = Task { await model.run() }
        return true
    }
}

/// Remembers the last strap in the user defaults, so the app reconnects to it at launch.
struct DefaultsStrapMemory: StrapMemory {
    private static let key = "HeartRateApp.lastStrap"

    func recall() -> PeripheralIdentifier? {
        UserDefaults.standard.string(forKey: Self.key).map { PeripheralIdentifier(rawValue: $0) }
    }

    func remember(_ strap: PeripheralIdentifier?) {
        UserDefaults.standard.set(strap?.rawValue, forKey: Self.key)
    }
}

/// The one screen: the status, the live reading, the straps found while scanning, and the action
/// that fits the status.
struct HeartRateScreen: View {
    let model: HeartRateModel

    private var state: HeartRateAppState { model.state }

    var body: some View {
        NavigationStack {
            List {
                Section {
                    Text(state.status.description)
                    if state.radio != .poweredOn && state.radio != .unknown {
                        Label("Bluetooth is \(state.radio.description)", systemImage: "exclamationmark.triangle")
                    }
                }
                if let beatsPerMinute = state.beatsPerMinute {
                    Section("Heart rate") {
                        Text("\(beatsPerMinute) bpm")
                            .font(.system(size: 64, weight: .bold, design: .rounded))
                            .monospacedDigit()
                        if !state.rrIntervalsMilliseconds.isEmpty {
                            LabeledContent("RR", value: state.rrIntervalsMilliseconds.map { "\($0) ms" }.joined(separator: ", "))
                        }
                        if let contact = state.hasSkinContact {
                            LabeledContent("Skin contact", value: contact ? "Yes" : "No")
                        }
                    }
                }
                if let battery = state.batteryLevel {
                    LabeledContent("Battery", value: "\(battery) %")
                }
                if state.status == .scanning {
                    Section("Straps nearby") {
                        ForEach(state.straps) { strap in
                            Button {
                                model.connect(to: strap.id)
                            } label: {
                                LabeledContent(strap.name ?? "Heart-rate strap", value: strap.rssi.map { "\($0)" } ?? "")
                            }
                        }
                    }
                }
            }
            .navigationTitle(state.strapName ?? "Heart rate")
            .toolbar {
                ToolbarItem(placement: .primaryAction) { action }
            }
        }
    }

    /// The button for what the user can do now.
    @ViewBuilder private var action: some View {
        switch state.status {
        case .idle, .failed:
            Button("Find strap") { model.scan() }
        case .scanning:
            Button("Stop") { model.stopScan() }
        case .connecting, .reconnecting:
            Button("Cancel") { model.cancel() }
        case .connected:
            Button("Disconnect") { model.disconnect() }
        case let .disconnected(strap, _):
            Menu("Strap") {
                Button("Reconnect") { model.connect(to: strap) }
                Button("Find another") { model.scan() }
            }
        }
    }
}
#endif
