import Foundation

/// One step of ``Pipeline/train(_:on:negatives:progress:isCancelled:)``, as it happens.
public enum TrainingProgress: Sendable, CustomStringConvertible {
    /// A pre-processing stage of this kind was fitted.
    case fitted(stage: String)
    /// Features were extracted: `count` per input, from `inputs` examples or windows.
    case extracted(count: Int, inputs: Int, windowed: Bool)
    /// An iterative classifier finished an epoch.
    case epoch(LSTMEpochReport)
    /// The classifier of this kind was trained on `inputs` examples or windows.
    case trained(classifier: String, inputs: Int, windowed: Bool)

    public var description: String {
        switch self {
        case .fitted(let stage): return "fitted \(stage)"
        case .extracted(let count, let inputs, let windowed):
            return "extracted \(count) features from \(inputs) \(windowed ? "windows" : "examples")"
        case .epoch(let r):
            var line = String(format: "epoch %3d  loss %.4f  accuracy %.3f", r.epoch, r.loss, r.accuracy)
            if let vl = r.validationLoss, let va = r.validationAccuracy {
                line += String(format: "  validation loss %.4f  accuracy %.3f", vl, va)
            }
            return line + String(format: "  lr %.2g  %.2f s", Double(r.learningRate), r.seconds)
        case .trained(let classifier, let inputs, let windowed):
            return "trained \(classifier) on \(inputs) \(windowed ? "windows" : "examples")"
        }
    }
}
