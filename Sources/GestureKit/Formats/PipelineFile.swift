import Foundation

/// The trained pipeline file (`.gesture`): one JSON document
/// `{"format": "gesturekit.pipeline", "version": 1, "checksum": "fnv1a64:…", "pipeline": {…}}`.
///
/// Floats are stored as their exact bits (``PackedFloats``), so a reloaded pipeline predicts
/// bit-identically. The checksum covers the bytes of the `pipeline` value exactly as written (the
/// last member of the document), so a flipped byte anywhere in the content is caught, not silently
/// used, and a later release that encodes some value differently still reads older files.
extension Pipeline: Codable {
    /// The `format` every pipeline file names.
    public static let fileFormat = "gesturekit.pipeline"
    /// The newest `version` this library reads and the one it writes.
    public static let fileVersion = 1

    enum CodingKeys: String, CodingKey {
        case classes, channelNames, sampleRate, spec, training, liveWindow
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        classes = try c.decode([String].self, forKey: .classes)
        channelNames = try c.decode([String].self, forKey: .channelNames)
        sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate)
        spec = try c.decode(PipelineSpec.self, forKey: .spec)
        training = try c.decode(TrainingSummary.self, forKey: .training)
        liveWindow = try c.decodeIfPresent(LiveWindow.self, forKey: .liveWindow)
        if let w = liveWindow {
            guard w.window >= 1, w.hop >= 1, w.minRun >= 1, w.activityFloor.isFinite, w.activityFloor >= 0 else {
                throw GestureKitError("window, hop and minRun must be positive and activityFloor a finite non-negative number",
                                      field: "liveWindow")
            }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(classes, forKey: .classes)
        try c.encode(channelNames, forKey: .channelNames)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
        try c.encode(spec, forKey: .spec)
        try c.encode(training, forKey: .training)
        try c.encodeIfPresent(liveWindow, forKey: .liveWindow)
    }

    private struct Envelope: Codable {
        var format: String
        var version: Int
        var checksum: String?
        var pipeline: Pipeline?
    }

    private struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    /// The canonical bytes of the pipeline (sorted keys), which the checksum covers.
    func canonicalJSON() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return try e.encode(self)
    }

    /// Writes the pipeline to `path` atomically: a temporary file in the same folder, flushed, then
    /// renamed over the target, so a crash never leaves a half-written file and an existing one is
    /// replaced only by a complete one.
    public func save(to path: String) throws {
        try writeAtomically(try encoded(), to: path)
    }

    /// The bytes of the pipeline file, for apps that keep pipelines elsewhere than in files (read
    /// them back with ``decode(_:file:)``).
    public func encoded() throws -> Data {
        let body = try canonicalJSON()
        var out = Data()
        out.append(Data("{\"format\":\"\(Pipeline.fileFormat)\",\"version\":\(Pipeline.fileVersion),\"checksum\":\"\(Pipeline.checksum(body))\",\"pipeline\":".utf8))
        out.append(body)
        out.append(Data("}\n".utf8))
        return out
    }

    /// Reads and validates a pipeline file: format, version, checksum, every stage's shapes and values.
    /// - Throws: ``GestureKitError`` naming the file and the field at fault.
    public static func load(_ path: String) throws -> Pipeline {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw GestureKitError("cannot read pipeline: \(error.localizedDescription)", file: path)
        }
        return try decode(data, file: path)
    }

    /// Decodes pipeline file bytes (see ``load(_:)``); `file` names the source in errors.
    public static func decode(_ data: Data, file: String = "pipeline data") throws -> Pipeline {
        guard !data.isEmpty else { throw GestureKitError("empty file, not a pipeline", file: file) }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data) } catch {
            throw GestureKitError("not a GestureKit pipeline file (not valid JSON: truncated or corrupt)", file: file)
        }
        guard header.format == fileFormat else {
            throw GestureKitError("not a GestureKit pipeline file (format is \(header.format.map { "\"\($0)\"" } ?? "missing"))", file: file, field: "format")
        }
        guard let version = header.version else { throw GestureKitError("missing version", file: file, field: "version") }
        guard version <= fileVersion else {
            throw GestureKitError("pipeline file version \(version) is newer than this gesture understands (\(fileVersion)); update GestureKit", file: file, field: "version")
        }
        guard version >= 1 else { throw GestureKitError("unknown version \(version)", file: file, field: "version") }
        let envelope = try decodeJSON(Envelope.self, from: data, file: file)
        guard var pipeline = envelope.pipeline else { throw GestureKitError("missing pipeline", file: file, field: "pipeline") }
        guard let stored = envelope.checksum else { throw GestureKitError("missing checksum", file: file, field: "checksum") }
        let actual = checksum(pipelineBytes(of: data))
        guard stored == actual else {
            throw GestureKitError("checksum mismatch (stored \(stored), content gives \(actual)): the file is corrupt or was edited", file: file, field: "checksum")
        }
        do {
            try pipeline.validate()
            try pipeline.bindPostprocessing()
        } catch let e as GestureKitError { throw e.inFile(file) }
        return pipeline
    }

    /// Consistency checks across stages that no single stage can make.
    func validate() throws {
        guard !classes.isEmpty else { throw GestureKitError("no classes", field: "pipeline.classes") }
        guard Set(classes).count == classes.count else { throw GestureKitError("duplicate class names", field: "pipeline.classes") }
        guard !channelNames.isEmpty else { throw GestureKitError("no channels", field: "pipeline.channelNames") }
        if let r = sampleRate, !(r.isFinite && r > 0) { throw GestureKitError("sample rate must be positive", field: "pipeline.sampleRate") }
        guard spec.classifier.classCount == classes.count else {
            throw GestureKitError("classifier knows \(spec.classifier.classCount) classes, the pipeline lists \(classes.count)", field: "pipeline.spec.classifier")
        }
        try spec.check()
        if case .vector = spec.classifier {
            var width = spec.extractors.reduce(0) { $0 + $1.featureCount }
            for (i, t) in spec.transforms.enumerated() {
                guard t.inputCount == width else {
                    throw GestureKitError("expects \(t.inputCount) features, receives \(width)", field: "pipeline.spec.features.transforms[\(i)]")
                }
                width = t.outputCount
            }
            guard width == training.featureCount else {
                throw GestureKitError("produces \(width) features, the classifier was trained on \(training.featureCount)", field: "pipeline.spec.features")
            }
        }
    }

    /// The bytes of the `pipeline` member as written by ``save(to:)``: from after `"pipeline":` to
    /// the document's closing brace.
    static func pipelineBytes(of data: Data) -> Data {
        guard let key = data.range(of: Data("\"pipeline\":".utf8)) else { return Data() }
        var end = data.endIndex
        while end > key.upperBound, [0x20, 0x0A, 0x0D, 0x09].contains(data[end - 1]) { end -= 1 }
        guard end > key.upperBound, data[end - 1] == UInt8(ascii: "}") else { return Data() }
        return data[key.upperBound..<(end - 1)]
    }

    /// FNV-1a, 64 bit: enough to catch corruption (this is not a signature).
    static func checksum(_ data: Data) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in data {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        let hex = String(h, radix: 16)
        return "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Writes `data` to a temporary file beside `path` (`.NAME.tmp-PID`), flushes it, then renames
/// it over `path`; temporaries of dead writers of the same NAME go first. Used for pipeline files
/// and the dataset writers (CSV, .grt, .ts).
package func writeAtomically(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let dir = url.deletingLastPathComponent().path
    let prefix = ".\(url.lastPathComponent).tmp-"
    let tmp = (dir as NSString).appendingPathComponent(prefix + "\(getpid())")
    removeStaleTemporaries(in: dir, prefix: prefix)
    // open(2), not FileManager.createFile: that writes through a temporary of its own
    // (NAME.tmp.XXXXXX), which a kill -9 at that moment left behind.
    let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw GestureKitError("cannot create a file in \(dir): \(errnoText())", file: path) }
    var failure: String?
    data.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failure = errnoText()
                return
            }
            offset += n
        }
    }
    if failure == nil, fsync(fd) != 0 { failure = errnoText() }
    if close(fd) != 0, failure == nil { failure = errnoText() }
    if failure == nil, rename(tmp, path) != 0 { failure = "cannot replace the file: \(errnoText())" }
    if let failure {
        unlink(tmp)
        throw GestureKitError("cannot write: \(failure)", file: path)
    }
}

/// A writer killed between creating its temporary and the rename (kill -9, power loss) leaves
/// `.NAME.tmp-PID` behind; the next save of NAME removes those whose process is gone.
func removeStaleTemporaries(in dir: String, prefix: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
    for n in names where n.hasPrefix(prefix) {
        // The digits after the prefix; earlier versions also left `.NAME.tmp-PID.tmp.XXXXXX`.
        guard let pid = Int32(n.dropFirst(prefix.count).prefix(while: \.isNumber)), pid != getpid() else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH {
            try? FileManager.default.removeItem(atPath: (dir as NSString).appendingPathComponent(n))
        }
    }
}
