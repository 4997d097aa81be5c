extension MQTTTopicFilter {
    /// Whether a message published to `topic` matches this filter (MQTT 3.1.1 section 4.7):
    /// `+` matches exactly one level, a final `#` the parent level and any below it; topics
    /// starting with `$` match no filter that starts with a wildcard.
    public func matches(topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = filterLevels.first, first == "+" || first == "#" { return false }
        var index = 0
        while index < filterLevels.count {
            let level = filterLevels[index]
            if level == "#" { return index == filterLevels.count - 1 }
            guard index < topicLevels.count else { return false }
            if level != "+", level != topicLevels[index] { return false }
            index += 1
        }
        return index == topicLevels.count
    }
}
