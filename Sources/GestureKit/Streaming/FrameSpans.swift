extension ClosedRange where Bound == Int {
    /// Frames this span shares with frames `start...end` (0 when they are apart).
    func overlapCount(_ start: Int, _ end: Int) -> Int {
        Swift.max(0, Swift.min(upperBound, end) - Swift.max(lowerBound, start) + 1)
    }

    /// Frames this span shares with `other`.
    func overlapCount(_ other: ClosedRange<Int>) -> Int { overlapCount(other.lowerBound, other.upperBound) }
}
