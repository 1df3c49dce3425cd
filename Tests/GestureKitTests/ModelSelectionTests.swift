import Testing
@testable import GestureKit

@Suite struct ModelSelectionTests {
    /// The table is each candidate's own cross-validation, and the winner is its best row.
    @Test func choosesTheBestCrossValidatedCandidate() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let choice = try ModelSelection.select(on: data, folds: 4)
        #expect(choice.table.map(\.name) == ModelSelection.defaultCandidates)
        #expect(choice.groupedBy == nil)
        for row in choice.table {
            let spec = try DefaultSpecs.build(classifier: row.name, specFile: nil)
            #expect(try Evaluation.crossValidate(spec, on: data, folds: 4).accuracy == row.accuracy, "\(row.name)")
        }
        let best = choice.table.map(\.accuracy).max()!
        #expect(choice.table.first { $0.name == choice.winner }?.accuracy == best)
        #expect(choice.table.first { $0.accuracy == best }?.name == choice.winner, "ties go to the earlier candidate")
    }

    @Test func unknownCandidateIsAnError() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        #expect(throws: GestureKitError.self) { try ModelSelection.select(on: data, candidates: ["svm"]) }
    }
}

@Suite struct ModelSelectionCandidateTests {
    /// The LSTM is tried only when the data can pay for its cross-validation.
    @Test func lstmJoinsFromTheStatedSize() {
        func data(_ n: Int) -> Dataset {
            Dataset(examples: (0..<n).map { Example(series: TimeSeries(values: [Float($0 % 2)], channelCount: 1), label: "\($0 % 2)") })
        }
        #expect(ModelSelection.candidates(for: data(ModelSelection.lstmMinimumExamples - 1)) == ModelSelection.defaultCandidates)
        #expect(ModelSelection.candidates(for: data(ModelSelection.lstmMinimumExamples)) == ModelSelection.defaultCandidates + ["lstm"])
    }
}
