/// What every classifier shares, whatever it reads.
public protocol Classifier: Stage {
    /// Classes of the trained model (0 before training).
    var classCount: Int { get }
    /// What `gesture info` prints about the trained model (one short line per entry).
    var summary: [String: String] { get }
    /// The command-line settings this classifier has. Default: none.
    static var settings: Set<ClassifierSetting> { get }
    /// Applies `settings`, which hold only settings in ``settings``. Default: nothing to apply.
    mutating func apply(_ settings: ClassifierSettings) throws
    /// The pipeline `--classifier NAME` builds around this classifier, if it has one. Default: none.
    static var defaultPipeline: DefaultPipeline? { get }
}

extension Classifier {
    public static var settings: Set<ClassifierSetting> { [] }
    public mutating func apply(_ settings: ClassifierSettings) throws {}
    public static var defaultPipeline: DefaultPipeline? { nil }
}
