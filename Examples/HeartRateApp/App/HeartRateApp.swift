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
#if canImport(SwiftUI) && canImport(CoreBluetooth)
import Foundation
import Harald
import HaraldCoreBluetooth
import HeartRateAppModel
import SwiftUI

@main
struct HeartRateApp: App {
    /// One central for the app's lifetime. The restore identifier lets the system relaunch the app
    /// for Bluetooth events and hand back its connection (`Central.restorations()`).
    @State private var model = HeartRateModel(
        central: Central(backend: SystemCoreBluetoothBackend(restoreIdentifier: "HeartRateApp.central")),
        memory: DefaultsStrapMemory())

    var body: some Scene {
        WindowGroup {
            HeartRateScreen(model: model)
                // Runs while the window exists; cancelled, it stops the scan and disconnects.
                .task { await model.run() }
        }
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
