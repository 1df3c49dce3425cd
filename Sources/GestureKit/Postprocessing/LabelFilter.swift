/// Majority filter over the last `bufferSize` raw predictions: reports a class only when it won at
/// least `minimumCount` of them, otherwise null (GRT's ClassLabelFilter).
///
/// The winner is the non-null class with the most votes in the buffer (ties go to the class voted
/// most recently); nulls vote for no class. The buffer starts full of nulls after `reset()`, so a
/// stream needs `minimumCount` votes before its first report. The reported prediction is the current
/// one with the winner's class and, as confidence, the mean confidence of the winner's votes.
///
/// JSON: `{"kind": "labelFilter", "minimumCount": 3, "bufferSize": 5}`. Keys: `minimumCount`
/// (default 3), `bufferSize` (default 5), `1 <= minimumCount <= bufferSize`.
/// - Complexity: O(bufferSize^2) per prediction (bufferSize is small), no allocation.
public struct LabelFilter: Postprocessor {
    public static let kind = "labelFilter"
    /// Decisions of one class needed among the last ``bufferSize``.
    public var minimumCount: Int
    /// Decisions remembered.
    public var bufferSize: Int

    private var labels: [Int] = []   // -1 = null
    private var confidences: [Float] = []
    private var position = 0

    /// A filter reporting a class once it wins `minimumCount` of the last `bufferSize` decisions.
    public init(minimumCount: Int = 3, bufferSize: Int = 5) {
        self.minimumCount = minimumCount
        self.bufferSize = bufferSize
        reset()
    }

    enum CodingKeys: String, CodingKey { case minimumCount, bufferSize }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minimumCount = try c.decodeIfPresent(Int.self, forKey: .minimumCount) ?? 3
        bufferSize = try c.decodeIfPresent(Int.self, forKey: .bufferSize) ?? 5
        reset()
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(minimumCount, forKey: .minimumCount)
        try c.encode(bufferSize, forKey: .bufferSize)
    }

    public func validate() throws {
        if bufferSize < 1 { throw GestureKitError("must be at least 1, found \(bufferSize)", field: "bufferSize") }
        if minimumCount < 1 || minimumCount > bufferSize {
            throw GestureKitError("must be from 1 to bufferSize (\(bufferSize)), found \(minimumCount)", field: "minimumCount")
        }
    }

    public mutating func reset() {
        let n = max(bufferSize, 1)
        labels = [Int](repeating: -1, count: n)
        confidences = [Float](repeating: 0, count: n)
        position = 0
    }

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        let n = labels.count
        let pos = position
        position = pos + 1 == n ? 0 : pos + 1
        return labels.withUnsafeMutableBufferPointer { labels in
            confidences.withUnsafeMutableBufferPointer { conf in
                labels[pos] = prediction.classIndex ?? -1
                conf[pos] = prediction.confidence.isFinite ? prediction.confidence : 0
                var winner = -1, winnerVotes = 0, winnerAge = Int.max
                var sum: Float = 0
                for i in 0..<n where labels[i] >= 0 {
                    let label = labels[i]
                    var votes = 0, age = Int.max
                    var s: Float = 0
                    for k in 0..<n where labels[k] == label {
                        votes += 1
                        s += conf[k]
                        age = min(age, (pos - k + n) % n)  // 0 = newest
                    }
                    if votes > winnerVotes || (votes == winnerVotes && age < winnerAge) {
                        winner = label; winnerVotes = votes; winnerAge = age; sum = s
                    }
                }
                guard winner >= 0, winnerVotes >= minimumCount else { return prediction.suppressed }
                var out = prediction
                out.classIndex = winner
                out.confidence = sum / Float(winnerVotes)
                return out
            }
        }
    }
}
