import Foundation
import GestureCLISupport
import GestureKit

extension Info {
    /// Loads (and so validates) a trained pipeline and prints its ``PipelineSummary``.
    func pipelineInfo() throws {
        let summary = PipelineSummary(try Pipeline.load(path))
        if json { try printJSON(summary) } else { print(summary.text) }
    }
}
