import HaraldProfiles

extension JSONValue {
    /// The compact JSON text (keys sorted, so the same report always gives the same bytes and a
    /// consumer can compare payloads) as UTF-8: an MQTT payload.
    var bytes: [UInt8] { Array(jsonText.utf8) }
}
