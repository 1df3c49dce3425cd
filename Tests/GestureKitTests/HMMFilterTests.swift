import Foundation
import Testing
@testable import GestureKit

@Suite struct HMMFilterTests {
    /// Noisy 3-class scores: the true class gets `p`, the others share the rest.
    static func scores(_ truth: [Int], p: Float) -> [Prediction] {
        truth.map { t in
            var s = [Float](repeating: (1 - p) / 2, count: 3)
            s[t] = p
            return Prediction(classIndex: t, confidence: p, scores: s)
        }
    }

    @Test func singleStrayDecisionIsAbsorbed() {
        // Ten decisions of class 0 with one moderately confident window of class 1 in the middle:
        // the stay prior must keep class 0.
        var raw = Self.scores(Array(repeating: 0, count: 10), p: 0.8)
        raw[5] = Self.scores([1], p: 0.6)[0]
        var f = HMMFilter(stay: 0.95)
        let out = raw.enumerated().map { f.process($1, frame: $0) }
        #expect(out.map(\.classIndex) == Array(repeating: 0, count: 10))
    }

    @Test func sustainedChangeIsFollowedWithinTwoDecisions() {
        var f = HMMFilter(stay: 0.9)
        let raw = Self.scores(Array(repeating: 0, count: 8) + Array(repeating: 2, count: 8), p: 0.8)
        let out = raw.enumerated().map { f.process($1, frame: $0).classIndex }
        #expect(out[10...].allSatisfy { $0 == 2 })
        #expect(out[..<8].allSatisfy { $0 == 0 })
    }

    @Test func streamingEqualsBatchAndIsCausal() {
        // Causal: the first n outputs over a prefix equal the first n outputs over the whole sequence;
        // streaming after reset equals a fresh filter's run (batch is the same loop from a fresh state).
        var rng = SystemRandomNumberGenerator()
        let truth = (0..<60).map { _ in Int.random(in: 0..<3, using: &rng) }
        let raw = Self.scores(truth, p: 0.7)
        var a = HMMFilter(stay: 0.8)
        let whole = raw.enumerated().map { a.process($1, frame: $0) }
        a.reset()
        let again = raw.enumerated().map { a.process($1, frame: $0) }
        var b = HMMFilter(stay: 0.8)
        let prefix = raw[..<30].enumerated().map { b.process($1, frame: $0) }
        #expect(whole == again)
        #expect(Array(whole[..<30]) == prefix)
    }

    @Test func fitLearnsStayFromSegmentLengths() throws {
        // Class 0 in segments of 10, class 1 in segments of 2, always 0 -> 1 -> 0.
        let seq: [Int?] = Array(repeating: [Int](repeating: 0, count: 10) + [1, 1], count: 5).flatMap { $0 }
        var f = HMMFilter()
        try f.fit(labelSequences: [seq], classCount: 3)
        try f.validate()
        #expect(abs(f.transitions[0] - 0.9) < 1e-5)   // 1 - 1/10
        #expect(abs(f.transitions[4] - 0.5) < 1e-5)   // 1 - 1/2
        // Leaving 0: seen 5 times to 1 (+1), never to 2 (+1): 6/7 of the 0.1 left.
        #expect(abs(f.transitions[1] - 0.1 * 6 / 7) < 1e-5)
        #expect(throws: GestureKitError.self) { try f.fit(labelSequences: [[3]], classCount: 3) }
    }

    @Test func restLeaveShortensOnlyTheRestClassStay() throws {
        // Class 0 (rest) in segments of 10, class 1 in segments of 4.
        let seq: [Int?] = Array(repeating: [Int](repeating: 0, count: 10) + [1, 1, 1, 1], count: 5).flatMap { $0 }
        var plain = HMMFilter(), held = HMMFilter()
        held.restLeave = 3
        try plain.fit(labelSequences: [seq], classCount: 3)
        try held.fit(labelSequences: [seq], classCount: 3, rest: 0)
        try held.validate()
        #expect(abs(held.transitions[0] - 0.7) < 1e-5)   // 1 - 3 * (1 - 0.9)
        for c in 1..<3 {   // the rest of row 0 keeps its proportions, scaled to the new total
            #expect(abs(held.transitions[c] - plain.transitions[c] * 3) < 1e-5)
        }
        #expect(Array(held.transitions[3...]) == Array(plain.transitions[3...]))
        // Without a rest class, or leaving too often, stay keeps its bounds.
        var none = held
        try none.fit(labelSequences: [seq], classCount: 3, rest: nil)
        #expect(none.transitions == plain.transitions)
        held.restLeave = 100
        try held.fit(labelSequences: [seq], classCount: 3, rest: 0)
        #expect(abs(held.transitions[0] - 0.01) < 1e-6)
        try held.validate()
        // Saved only when set; read back; out of range refused.
        let back = try JSONDecoder().decode(HMMFilter.self, from: try JSONEncoder().encode(held))
        #expect(back.restLeave == 100 && back.transitions == held.transitions)
        #expect(!String(decoding: try JSONEncoder().encode(plain), as: UTF8.self).contains("restLeave"))
        for bad in ["0", "-1"] {
            let f = try JSONDecoder().decode(HMMFilter.self, from: Data(#"{"restLeave": \#(bad)}"#.utf8))
            #expect(throws: GestureKitError.self) { try f.validate() }
        }
    }

    @Test func roundTripsAndRejectsBadFiles() throws {
        var f = HMMFilter(stay: 0.7)
        try f.fit(labelSequences: [[0, 0, 1, 1, 1, 0]], classCount: 2)
        let data = try JSONEncoder().encode(f)
        let back = try JSONDecoder().decode(HMMFilter.self, from: data)
        #expect(back.transitions == f.transitions && back.classes == 2 && back.stay == 0.7)
        let bad = try JSONDecoder().decode(HMMFilter.self, from: Data(#"{"classes": 2, "transitions": [0.5, 0.6, 0.5, 0.5]}"#.utf8))
        #expect(throws: GestureKitError.self) { try bad.validate() }
        let shape = try JSONDecoder().decode(HMMFilter.self, from: Data(#"{"classes": 3, "transitions": [1]}"#.utf8))
        #expect(throws: GestureKitError.self) { try shape.validate() }
        let stay = try JSONDecoder().decode(HMMFilter.self, from: Data(#"{"stay": 1}"#.utf8))
        #expect(throws: GestureKitError.self) { try stay.validate() }
    }
}
