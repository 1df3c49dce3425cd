import Foundation
import Testing
@testable import GestureKit

@Suite struct MinimumDistanceTests {
    /// Class A around centroid (1, 1) at distances 1, 1, 3, 3 (mean 2, std 1); class B around
    /// (10, 10) at distance 2 four times (mean 2, std 0). With k = 2 the thresholds are 4 and 2.
    static let vectors: [[Float]] = [[0, 1], [2, 1], [1, 4], [1, -2], [8, 10], [12, 10], [10, 8], [10, 12]]
    static let labels = [0, 0, 0, 0, 1, 1, 1, 1]

    func trained(k: Float?) throws -> MinimumDistance {
        var m = MinimumDistance(nullRejection: k)
        try m.train(Self.vectors, labels: Self.labels, classes: ["A", "B"])
        return m
    }

    @Test func learnsCentroidsAndThresholds() throws {
        let m = try trained(k: 2)
        #expect(m.centroids == [1, 1, 10, 10])
        #expect(m.rejection.means.values == [2, 2] && m.rejection.stds.values == [1, 0])
        #expect(m.rejection.thresholds == [4, 2])
        #expect(m.summary["thresholds"] == "A: 4.0, B: 2.0")
        #expect(m.classCount == 2)
    }

    @Test func predictsNearestCentroidWithDistanceConfidence() throws {
        let m = try trained(k: 2)
        // (1, 4): distance 3 to A (accepted, <= 4), sqrt(117) to B.
        // confidence = (1/3) / (1/3 + 1/sqrt(117)) = 0.782863.
        let p = m.predict([1, 4])
        #expect(p.classIndex == 0 && p.distance == 3)
        #expect(abs(p.confidence - 0.782863) < 1e-5 && abs(p.scores[0] + p.scores[1] - 1) < 1e-6)
        // On a centroid: distance 0, all the score.
        let q = m.predict([10, 10])
        #expect(q.classIndex == 1 && q.confidence == 1 && q.scores == [0, 1])
        // (11, 10.5): sqrt(1.25) from B, under its threshold 2.
        #expect(m.predict([11, 10.5]).classIndex == 1)
    }

    @Test func rejectsFarAwayPoints() throws {
        let m = try trained(k: 2)
        // (1, 6) is 5 from A (> 4): null, but the distance is kept.
        let p = m.predict([1, 6])
        #expect(p.classIndex == nil && p.confidence == 0 && p.distance == 5)
        #expect(m.predict([100, -100]).classIndex == nil)
        // B's threshold is tight (std 0): 2.5 from B is rejected.
        #expect(m.predict([12.5, 10]).classIndex == nil)
        // Without rejection the same points get their nearest class; k can change after training.
        var off = m
        off.nullRejection = nil
        #expect(off.predict([1, 6]).classIndex == 0 && off.predict([100, -100]).classIndex != nil)
        var loose = m
        loose.nullRejection = 3  // A: 2 + 3 = 5 -> (1, 6) accepted at exactly 5
        #expect(loose.predict([1, 6]).classIndex == 0)
    }

    @Test func badTrainingAndBadFilesAreErrors() throws {
        var m = MinimumDistance()
        #expect(throws: GestureKitError.self) { try m.train([[1, 2]], labels: [0], classes: ["A", "B"]) }  // B empty
        #expect(throws: GestureKitError.self) { try m.train([[1, 2], [1]], labels: [0, 0], classes: ["A"]) }
        #expect(throws: GestureKitError.self) { try m.train([[1, .nan]], labels: [0], classes: ["A"]) }
        func field(_ spec: String) -> String? { StageTesting.badField(spec, StageKinds.classifiers, role: "classifier") }
        #expect(field(#"{"kind": "centroid"}"#) == nil)
        #expect(field(#"{"kind": "centroid", "nullRejection": 2.5}"#) == nil)
        #expect(field(#"{"kind": "centroid", "nullRejection": -1}"#) == "nullRejection")
        // Trained file with 3 centroid values for 2 classes x 2 dimensions.
        var good = try JSONSerialization.jsonObject(with: StageTesting.json(try trained(k: 2))) as! [String: Any]
        good["kind"] = "centroid"
        good["centroids"] = try String(decoding: StageTesting.json(PackedFloats([1, 2, 3])), as: UTF8.self).trimmingCharacters(in: ["\""])
        let bad = String(decoding: try JSONSerialization.data(withJSONObject: good), as: UTF8.self)
        #expect(field(bad) == "centroids")
    }

    @Test func conformance() throws {
        let m = try trained(k: 1.5)
        try m.validate()
        let decoded = try StageTesting.roundTrip(m)
        try decoded.validate()
        var g = SeededGenerator(seed: 4)
        for _ in 0..<100 {
            let x = [g.nextUnit() * 20 - 5, g.nextUnit() * 20 - 5]
            #expect(decoded.predict(x) == m.predict(x))
        }
        #expect(decoded.summary == m.summary)
        // Non-finite input: nothing to report, no trap.
        #expect(m.predict([.nan, 1]).classIndex == nil)
        #expect(m.predict([.infinity, 1]).classIndex == nil)
        // An untrained stage predicts null rather than trapping.
        #expect(MinimumDistance().predict([1, 2]).classIndex == nil)
    }
}
