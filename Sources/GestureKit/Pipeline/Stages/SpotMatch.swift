/// A gesture found in a stream: its class (`nil` when rejected), how well it matched, and its span.
public struct SpotMatch: Sendable, Hashable {
    /// The match's class and confidence.
    public var prediction: Prediction
    /// First and last frame of the match, counted from the spotter's last reset.
    public var start: Int
    /// Last frame of the match.
    public var end: Int

    /// A match; every parameter is the property of the same name.
    public init(prediction: Prediction, start: Int, end: Int) {
        self.prediction = prediction
        self.start = start
        self.end = end
    }
}
