import Harald
import HaraldCodec
import HaraldProfiles

/// A sensor found, connected and paired by ``HeartRateMonitor/pair(on:match:protected:timeout:pairingDialogTimeout:attempts:retryDelay:progress:)``.
public struct PairedHeartRateMonitor<Protected: Sendable>: Sendable {
    /// The advertisement the sensor was found by.
    public let advertisement: Advertisement
    /// The monitor over the paired connection (the caller owns the connection).
    public let monitor: HeartRateMonitor
    /// The protected characteristic's value, read over the paired link: the proof that pairing
    /// worked.
    public let protectedValue: Protected
}

extension HeartRateMonitor {
    /// Finds a heart-rate sensor, connects, pairs and proves the link is secured, with
    /// `PairingFlow`.
    ///
    /// The flow scans for the first advertisement that matches (by default any device
    /// advertising the Heart Rate service), connects and reads `protected`, a characteristic the
    /// sensor only gives out over an encrypted link. The first refusal (Insufficient
    /// Authentication or Encryption) makes the system pair; the flow retries, and once the read
    /// succeeds it reads the value once more with its type to verify the paired link. On any
    /// failure nothing stays connected. `timeout` bounds finding and connecting (and the last
    /// read); `pairingDialogTimeout` bounds the steps where a person answers the pairing dialog.
    ///
    /// ```swift
    /// let paired = try await HeartRateMonitor.pair(on: central, protected: .serialNumber) { print($0) }
    /// print("paired with serial \(paired.protectedValue.text)")
    /// ```
    public static func pair<Value: ByteDecodable & Sendable, Access: ReadAccess>(
        on central: Central, match: PairingFlow.Match = .service(ServiceSpec.heartRate.uuid),
        protected: Characteristic<Value, Access>, timeout: Duration = .seconds(30), pairingDialogTimeout: Duration = .seconds(180), attempts: Int = 3,
        retryDelay: Duration = .seconds(1), progress: @escaping @Sendable (PairingFlow.Progress) -> Void = { _ in }
    ) async throws(HeartRateMonitorError) -> PairedHeartRateMonitor<Value> {
        let flow = PairingFlow(
            central: central, match: match, protected: protected, timeout: timeout, pairingDialogTimeout: pairingDialogTimeout, attempts: attempts,
            retryDelay: retryDelay)
        let paired: PairingFlow.Paired
        do { paired = try await flow.run(progress: progress) } catch { throw .pairing(error) }
        do {
            await paired.connection.declare(services)
            let value = try await paired.connection.read(protected, timeout: timeout)
            return PairedHeartRateMonitor(advertisement: paired.advertisement, monitor: HeartRateMonitor(connection: paired.connection), protectedValue: value)
        } catch {
            await paired.connection.disconnect()
            throw .from(error)
        }
    }
}
