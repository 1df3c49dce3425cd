/// A per-frame transform applied before anything else (filters, normalisers). It keeps the channel
/// count and may remember earlier frames.
public protocol Preprocessor: Stage {
    /// Called once before training with the channel count and sample rate, and the training series as
    /// they leave the previous stage. Stages that learn (normalisers) fit here; others size their state.
    mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws
    /// Forgets all history, as at the start of a new stream.
    mutating func reset()
    /// Transforms one frame of `channels` values in place, in a buffer: what the pipeline calls on
    /// a frame inside a larger series. From an app, call `process(_:)` with an array.
    /// - Complexity: O(channels) for most filters; stated per stage.
    mutating func process(_ frame: UnsafeMutableBufferPointer<Float>)
}

extension Preprocessor {
    /// Transforms one frame of `channels` values in place.
    /// - Complexity: as the buffer form, O(channels) for most filters; no allocation when `frame`
    ///   is not shared.
    public mutating func process(_ frame: inout [Float]) {
        frame.withUnsafeMutableBufferPointer { process($0) }
    }
}

extension Preprocessor {
    /// Runs a whole series through a fresh copy of this stage (history reset first).
    public func apply(to series: TimeSeries) -> TimeSeries {
        var stage = self
        stage.reset()
        var out = series
        let c = series.channelCount
        out.values.withUnsafeMutableBufferPointer { all in
            for f in 0..<series.frameCount {
                stage.process(UnsafeMutableBufferPointer(rebasing: all[(f * c)..<((f + 1) * c)]))
            }
        }
        return out
    }
}
