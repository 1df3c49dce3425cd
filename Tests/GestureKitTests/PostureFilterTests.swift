import Foundation
import Testing
@testable import GestureKit

/// The posture filter: the posture a reported transition leads to is kept until the wearer leaves it.
@Suite struct PostureFilterTests {
    // 0 walk, 1 sit, 2 stand, 3 lie, 4 sit-to-stand, 5 stand-to-sit, 6 sit-to-lie, 7 rest
    static let names = ["walk", "sit", "stand", "lie", "sitToStand", "standToSit", "sitToLie", "rest"]

    static func prediction(_ c: Int?, event: Int? = nil) -> Prediction {
        var scores = [Float](repeating: 0.1, count: names.count)
        if let c { scores[c] = 0.6 }
        var p = Prediction(classIndex: c, confidence: c == nil ? 0 : 0.6, scores: scores)
        p.event = event.map { Prediction.Event(classIndex: $0, confidence: 1, since: 0) }
        return p
    }

    static func fitted(leave: Int = 2) throws -> PostureFilter {
        var f = PostureFilter(classes: ["sit", "stand"], leave: leave)
        try f.bind(classes: names)
        // Unlabelled (nil) and rest (7) frames between a transition and what follows are skipped.
        try f.fit(labelSequences: [[2, 2, 5, 5, nil, 1, 1, 4, 7, 7, 2, 0, 0], [1, 6, 6, nil, 3, 3], [2, 5, 1]],
                  classCount: names.count, rest: 7)
        return f
    }

    static func classes(_ filter: PostureFilter, _ input: [Prediction]) -> [Int?] {
        var f = filter
        f.reset()
        return input.enumerated().map { f.process($1, frame: $0).classIndex }
    }

    @Test func learnsWhereEachRunLeads() throws {
        let f = try Self.fitted()
        #expect(f.leadsTo[5] == 1)   // stand-to-sit -> sit, twice (once across an unlabelled frame)
        #expect(f.leadsTo[4] == 2)   // sit-to-stand -> stand, across rest
        #expect(f.leadsTo[6] == 3)   // sit-to-lie -> lie
        #expect(f.leadsTo[2] == 5)   // stand -> stand-to-sit (twice) beats stand -> walk (once)
        #expect(f.leadsTo[0] == -1)  // walking ends its sequence
        #expect(f.leadsTo[7] == -1)  // rest is skipped, never counted
    }

    @Test func keepsThePostureATransitionLedTo() throws {
        // Standing misread as sitting after a reported sit-to-stand is reported as standing; null and
        // rest decisions pass and leave it be; before any event nothing changes.
        let stream = [Self.prediction(1), Self.prediction(2, event: 4), Self.prediction(1), Self.prediction(nil),
                      Self.prediction(7), Self.prediction(1), Self.prediction(2)]
        #expect(Self.classes(try Self.fitted(), stream) == [1, 2, 2, nil, 7, 2, 2])
        // The reported class takes its own score as confidence.
        var f = try Self.fitted()
        _ = f.process(stream[1], frame: 0)
        let kept = f.process(stream[2], frame: 1)
        #expect(kept.classIndex == 2 && kept.confidence == 0.1)
        // Unfitted, no event leads anywhere.
        var bare = PostureFilter(classes: ["sit", "stand"])
        try bare.bind(classes: Self.names)
        #expect(Self.classes(bare, stream) == [1, 2, 1, nil, 7, 1, 2])
    }

    @Test func leavingThePostureOrAnotherEventEndsIt() throws {
        // One walking decision is not enough to leave (leave 2); two are.
        let blip = [Self.prediction(1, event: 5), Self.prediction(0), Self.prediction(2), Self.prediction(0),
                    Self.prediction(0), Self.prediction(2)]
        #expect(Self.classes(try Self.fitted(), blip) == [1, 0, 1, 0, 0, 2])
        #expect(Self.classes(try Self.fitted(leave: 1), blip) == [1, 0, 2, 0, 0, 2])
        // An event leading outside the postures (sit-to-lie -> lie) ends it at once.
        let lying = [Self.prediction(1, event: 5), Self.prediction(3, event: 6), Self.prediction(2)]
        #expect(Self.classes(try Self.fitted(), lying) == [1, 3, 2])
        // Another event sets the new posture.
        let back = [Self.prediction(1, event: 5), Self.prediction(2), Self.prediction(2, event: 4), Self.prediction(1)]
        #expect(Self.classes(try Self.fitted(), back) == [1, 1, 2, 2])
    }

    @Test func roundTripsAndRejectsBadSpecs() throws {
        let f = try Self.fitted(leave: 3)
        var back = try StageTesting.roundTrip(f)
        try back.validate()
        try back.bind(classes: Self.names)
        #expect(back.leadsTo == f.leadsTo)
        let stream = [Self.prediction(2, event: 4), Self.prediction(1), Self.prediction(0), Self.prediction(7),
                      Self.prediction(1), Self.prediction(0), Self.prediction(0), Self.prediction(0), Self.prediction(1)]
        // `leave` (3) survives too: one walking decision leaves the posture be, three in a row end it.
        #expect(Self.classes(back, stream) == Self.classes(f, stream))
        #expect(Self.classes(back, stream) == [2, 2, 0, 7, 2, 0, 0, 0, 1])
        func field(_ spec: String) -> String? { StageTesting.badField(spec, StageKinds.postprocessors, role: "postprocessor") }
        #expect(field(#"{"kind": "postureFilter"}"#) == "classes")
        #expect(field(#"{"kind": "postureFilter", "classes": ["a"], "leave": 0}"#) == "leave")
        #expect(field(#"{"kind": "postureFilter", "classes": ["a"], "leadsTo": [0, 5]}"#) == "leadsTo")
        #expect(field(#"{"kind": "postureFilter", "classes": ["a"], "leadsTo": [0, 1], "rest": 2}"#) == "rest")
        #expect(field(#"{"kind": "postureFilter", "classes": ["a"], "leadsTo": [1, -1], "rest": 1}"#) == nil)
        #expect(field(#"{"kind": "postureFilter", "classes": ["a"], "rest": 0}"#) == "rest")
        var learned = try Self.fitted()
        #expect(throws: GestureKitError.self) { try learned.bind(classes: ["sit", "stand"]) }
        #expect(throws: GestureKitError.self) { try learned.bind(classes: ["walk", "stand"]) }
        var g = PostureFilter(classes: ["sit"])
        try g.bind(classes: Self.names)
        #expect(throws: GestureKitError.self) { try g.fit(labelSequences: [[1, 9]], classCount: Self.names.count, rest: nil) }
    }
}
