/// Train/test partitions of a ``Dataset`` as index lists into its examples.
///
/// Grouped splits keep every example of a session (or user) on one side, so that nothing recorded
/// together leaks between training and testing.
public struct Split: Sendable, Hashable {
    /// Indices of the training examples.
    public var train: [Int]
    /// Indices of the held-out examples.
    public var test: [Int]
}

/// What keeps examples together in a grouped split.
public enum GroupBy: String, Sendable, Codable, CaseIterable {
    /// Group by the examples' session, or by their user.
    case session, user

    /// The session or the user, by this grouping.
    func id(user: String?, session: String?) -> String? { self == .user ? user : session }
}

extension Dataset {
    /// A stratified random split: about `testFraction` of each class goes to the test side.
    public func stratifiedSplit(testFraction: Double, seed: UInt64 = 0) -> Split {
        precondition(testFraction > 0 && testFraction < 1, "stratifiedSplit: testFraction must be in (0, 1)")
        var rng = SeededGenerator(seed: seed)
        var train: [Int] = [], test: [Int] = []
        for (_, members) in indicesByClass() {
            let shuffled = members.shuffled(using: &rng)
            let nTest = members.count < 2 ? 0 : max(1, Int((Double(members.count) * testFraction).rounded()))
            test += shuffled.prefix(nTest)
            train += shuffled.dropFirst(nTest)
        }
        return Split(train: train.sorted(), test: test.sorted())
    }

    /// `k` folds. Ungrouped folds are stratified (each class dealt round-robin after a seeded
    /// shuffle); grouped folds deal whole groups, largest first, to the smallest fold so far.
    /// Every example is in exactly one test side.
    public func folds(_ k: Int, groupBy: GroupBy? = nil, seed: UInt64 = 0) throws -> [Split] {
        guard k >= 2 else { throw GestureKitError("folds must be at least 2, got \(k)", field: "folds") }
        var rng = SeededGenerator(seed: seed)
        var assignment = [Int](repeating: 0, count: examples.count)
        if let groupBy {
            var groups: [String: [Int]] = [:]
            for (i, e) in examples.enumerated() {
                let key = (groupBy == .session ? e.session : e.user) ?? "example \(i)"
                groups[key, default: []].append(i)
            }
            guard groups.count >= k else {
                throw GestureKitError("cannot make \(k) folds from \(groups.count) \(groupBy.rawValue)s", field: "folds")
            }
            let keys = groups.keys.sorted().shuffled(using: &rng)
                .sorted { groups[$0]!.count > groups[$1]!.count }
            var sizes = [Int](repeating: 0, count: k)
            for key in keys {
                let f = sizes.indices.min { sizes[$0] < sizes[$1] }!
                sizes[f] += groups[key]!.count
                for i in groups[key]! { assignment[i] = f }
            }
        } else {
            guard examples.count >= k else {
                throw GestureKitError("cannot make \(k) folds from \(examples.count) examples", field: "folds")
            }
            var next = 0
            for (_, members) in indicesByClass() {
                for i in members.shuffled(using: &rng) {
                    assignment[i] = next % k
                    next += 1
                }
            }
        }
        return (0..<k).map { f in
            Split(train: assignment.indices.filter { assignment[$0] != f },
                  test: assignment.indices.filter { assignment[$0] == f })
        }
    }

    /// Examples grouped by label (null examples under `nil`), classes in order, null last.
    func indicesByClass() -> [(String?, [Int])] {
        var byLabel: [String?: [Int]] = [:]
        for (i, e) in examples.enumerated() { byLabel[e.label, default: []].append(i) }
        var out: [(String?, [Int])] = classes.compactMap { c in byLabel[c].map { (c, $0) } }
        for (label, members) in byLabel where label == nil || !classes.contains(label!) {
            out.append((label, members))
        }
        return out
    }
}
