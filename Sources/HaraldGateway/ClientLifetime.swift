import HaraldMQTT

extension MQTTClient {
    /// Connects, waiting for the broker as long as it takes (a gateway or a fleet view started
    /// before its broker); true once connected, false when the task was cancelled first (the
    /// client is then disconnected). Throws the broker's refusal.
    func connectUnlessCancelled() async throws -> Bool {
        do {
            try await withTaskCancellationHandler {
                try await connect()
            } onCancel: {
                Task { await self.disconnect() }
            }
            return true
        } catch {
            await disconnect()
            if Task.isCancelled { return false }
            throw error
        }
    }
}

extension MQTTClient.Configuration {
    /// This configuration for a client that announces itself on the `availability` topic: its
    /// birth a retained `online`, its will a retained `offline`, and its client identifier
    /// `name` when none was given.
    func announcing(availability topic: String, name: String) -> MQTTClient.Configuration {
        var configuration = self
        if configuration.clientIdentifier.isEmpty { configuration.clientIdentifier = name }
        configuration.will = MQTTLastWill(topic: topic, payload: Array(GatewayTopics.offline.utf8))
        configuration.birth = MQTTLastWill(topic: topic, payload: Array(GatewayTopics.online.utf8))
        return configuration
    }
}

extension MQTTClient {
    /// Publishes `offline` on the `availability` topic (retained, never dropped) and disconnects
    /// cleanly, so the broker discards the will: how a gateway or a fleet view stops.
    func signOff(availability topic: String) async {
        try? await publish(topic: topic, payload: Array(GatewayTopics.offline.utf8), qos: .atLeastOnce, retain: true, delivery: .kept)
        await disconnect()
    }
}

/// The time since now on `clock`, read as often as needed (a gateway's and a fleet view's
/// monotonic time, whatever the clock's instant type).
func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
