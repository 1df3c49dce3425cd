import Foundation
import Testing
@testable import GestureKit

/// A pipeline offered from another thread takes over at a frame boundary; one that cannot read the
/// stream or decide live is refused and the running one carries on.
@Suite struct SwappableRecognizerTests {
    static let train = try! Dataset.load(TestData.basicMotionsTrain)
    static let test = try! Dataset.load(TestData.basicMotionsTest)

    static func windowed(_ k: Int) throws -> Pipeline {
        try Pipeline.train(try DefaultSpecs.build(classifier: "knn", specFile: nil,
                                                  overrides: .init(classifier: ClassifierSettings(), window: .init(size: 20, hop: 10))),
                           on: train.subset(Array(0..<(k * 4))))
    }

    @Test func offeredPipelineTakesOverAndStreamsLikeAFreshOne() throws {
        let a = try Self.windowed(2), b = try Self.windowed(10)
        var live = try SwappableRecognizer(a)
        let series = Self.test.examples[5].series
        for f in 0..<30 { _ = try live.push(Array(series.frame(f))) }
        #expect(live.adoptOffered() == nil)
        let mailbox = live.mailbox
        let offered = Thread { mailbox.offer(b) }
        offered.start()
        var outcome: SwappableRecognizer.Outcome?
        for _ in 0..<2000 where outcome == nil {
            outcome = live.adoptOffered()
            if outcome == nil { usleep(1000) }
        }
        guard case .swapped(let now) = outcome else { Issue.record("no swap: \(String(describing: outcome))"); return }
        #expect(now.training.examples == b.training.examples)
        // After the swap the stream behaves exactly as a fresh recogniser of the new pipeline.
        var fresh = b.recognizer()
        for f in 30..<series.frameCount {
            let x = try live.push(Array(series.frame(f))), y = try fresh.push(Array(series.frame(f)))
            #expect(x == y, "frame \(f)")
        }
    }

    @Test func pipelinesThatCannotTakeOverAreRefused() throws {
        let a = try Self.windowed(2)
        var live = try SwappableRecognizer(a)
        var other = a
        other.channelNames = Array(a.channelNames.reversed())
        live.mailbox.offer(other)
        guard case .refused(_, let why) = live.adoptOffered() else { Issue.record("accepted other channels"); return }
        #expect(why.description.contains("channels"))
        // A whole-example pipeline from a file written before live windows: it cannot decide live.
        var whole = try Pipeline.train(try DefaultSpecs.build(classifier: "knn", specFile: nil), on: Self.train)
        #expect(whole.decidesLive)
        whole.liveWindow = nil
        live.mailbox.offer(whole)
        guard case .refused = live.adoptOffered() else { Issue.record("accepted a pipeline that cannot decide live"); return }
        #expect(live.pipeline.training.examples == a.training.examples)
        #expect(throws: GestureKitError.self) { try SwappableRecognizer(whole) }
    }
}
