import Foundation
import Testing
@testable import GestureKit

/// The onset filter: held classes need consecutive decisions before they are reported.
@Suite struct OnsetFilterTests {
    /// Predictions over classes A, B, T1, T2 (indices 0-3), one-hot scores.
    static func predictions(_ labels: [Int?]) -> [Prediction] {
        labels.map { c in
            var scores: [Float] = [0, 0, 0, 0]
            if let c { scores[c] = 1 }
            return Prediction(classIndex: c, confidence: c == nil ? 0 : 1, scores: scores)
        }
    }

    static func run(_ filter: OnsetFilter, _ labels: [Int?]) throws -> [Prediction] {
        var f = filter
        try f.bind(classes: ["A", "B", "T1", "T2"])
        return predictions(labels).enumerated().map { f.process($1, frame: $0) }
    }

    @Test func heldClassesWaitForARunAndOthersPassAtOnce() throws {
        let filter = OnsetFilter(decisions: 2, classes: ["T1", "T2"])
        // A brief T1 at the start of a T2 is never reported; T2 is, at its second decision.
        let input: [Int?] = [0, 0, 2, 3, 3, 3, 0, nil, 2, 2, 1, 3, 1]
        let out = try Self.run(filter, input)
        #expect(out.map(\.classIndex) == [0, 0, 0, 0, 3, 3, 0, nil, nil, 2, 1, 1, 1])
        // While held, the kept class is reported with its own score, the scores untouched.
        #expect(out[2].confidence == 0 && out[2].scores == [0, 0, 1, 0])
        #expect(out[4].confidence == 1)
    }

    @Test func oneDecisionOrNoHeldClassPassesEverything() throws {
        let input: [Int?] = [0, 2, nil, 3, 2, 2, 1, nil, 3]
        #expect(try Self.run(OnsetFilter(decisions: 1, classes: ["T1", "T2"]), input).map(\.classIndex) == input)
        #expect(try Self.run(OnsetFilter(decisions: 4, classes: ["B"]), [0, 2, 3, 0]).map(\.classIndex) == [0, 2, 3, 0])
    }

    @Test func unknownClassNamesAreRefusedWhenTrainedOrLoaded() throws {
        var spec = try TestData.spec(StreamCalibrationTests.spec)
        spec.postprocessing = [HMMFilter(stay: 0.9), OnsetFilter(decisions: 2, classes: ["A", "C"])]
        let data = StreamCalibrationTests.dataset(users: 2)
        #expect {
            _ = try Pipeline.train(spec, on: data)
        } throws: { ($0 as? GestureKitError)?.field == "postprocessing[1].classes" }

        spec.postprocessing = [HMMFilter(stay: 0.9), OnsetFilter(decisions: 2, classes: ["A"])]
        let pipeline = try Pipeline.train(spec, on: data)
        let saved = try pipeline.encoded()
        let loaded = try Pipeline.decode(saved)
        // The loaded filter is bound again: replays agree decision for decision.
        let rec = StreamCalibrationTests.recording(user: "x", seed: 7)
        var a = pipeline.recognizer(), b = loaded.recognizer(), held = 0
        for f in 0..<rec.series.frameCount {
            let frame = Array(rec.series.frame(f))
            _ = try a.push(frame)
            _ = try b.push(frame)
            #expect(a.lastDecision == b.lastDecision)
            if a.lastDecision?.classIndex != a.lastRawDecision?.classIndex { held += 1 }
        }
        #expect(held > 0, "the filter should hold something back on this stream")

        // A file naming a class the pipeline lacks: an error naming the stage, never a silent pass.
        let text = String(decoding: saved, as: UTF8.self)
        let edited = text.replacingOccurrences(of: #""classes":["A"]"#, with: #""classes":["Z"]"#)
        #expect(edited != text)
        let body = Pipeline.pipelineBytes(of: Data(edited.utf8))
        let resealed = edited.replacingOccurrences(of: Pipeline.checksum(Pipeline.pipelineBytes(of: saved)),
                                                   with: Pipeline.checksum(body))
        #expect {
            _ = try Pipeline.decode(Data(resealed.utf8), file: "p.gesture")
        } throws: { e in
            guard let e = e as? GestureKitError else { return false }
            return e.file == "p.gesture" && e.field == "postprocessing[1].classes" && e.message.contains("\"Z\"")
        }
    }
}
