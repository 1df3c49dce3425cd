import Foundation
import GestureKit

/// A bad message from a page: said back to that page, never fatal to the studio.
public struct StudioError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What a page asks of the studio, parsed and checked: every value in range, every label
/// writable as a CSV cell, every number finite.
public enum PageMessage: Sendable, Equatable {
    /// Motion samples from the page's DeviceMotion, one frame each (see ``MotionLayout``).
    case motion([[Float]])
    /// Start recording an example of this class (the rest class included).
    case record(label: String)
    /// Stop recording and keep the example.
    case stop
    /// Stop recording and throw the frames away.
    case cancel
    /// Delete a saved example by its id (its session).
    case delete(id: String)
    /// Train in the background.
    case train(TrainRequest)
    /// Replay a saved example onto the live view at `rate` frames per second (nothing is written).
    case play(id: String, rate: Double)

    private struct Raw: Decodable {
        var t: String
        var v: [[Double]]?
        var label: String?
        var id: String?
        var classifier: String?
        var window: Int?
        var hop: Int?
        var rate: Double?
    }

    /// Parses one text message.
    /// - Throws: ``StudioError`` saying what is wrong.
    /// - Complexity: O(message length).
    public init(parsing text: String) throws {
        guard text.utf8.count <= StudioLimits.maxMessageBytes else { throw StudioError("message too large") }
        let raw: Raw
        do { raw = try JSONDecoder().decode(Raw.self, from: Data(text.utf8)) } catch {
            throw StudioError("message is not the JSON the studio expects")
        }
        switch raw.t {
        case "motion":
            guard let rows = raw.v, !rows.isEmpty else { throw StudioError("motion needs v: [[numbers]]") }
            guard rows.count <= StudioLimits.maxFramesPerMessage else {
                throw StudioError("motion carries \(rows.count) frames, at most \(StudioLimits.maxFramesPerMessage) per message")
            }
            self = .motion(try rows.map(PageMessage.frame))
        case "record":
            self = .record(label: try PageMessage.label(raw.label))
        case "stop": self = .stop
        case "cancel": self = .cancel
        case "delete":
            guard let id = raw.id, !id.isEmpty, id.count <= 64, RecordingAppend.problem(with: id) == nil else {
                throw StudioError("delete needs the id of an example")
            }
            self = .delete(id: id)
        case "play":
            guard let id = raw.id, !id.isEmpty, id.count <= 64, RecordingAppend.problem(with: id) == nil else {
                throw StudioError("play needs the id of an example")
            }
            let rate = raw.rate ?? 50
            guard (1...1000).contains(rate) else { throw StudioError("play rate must be 1-1000 frames/s, got \(rate)") }
            self = .play(id: id, rate: rate)
        case "train":
            guard let name = raw.classifier, name.count <= 64 else { throw StudioError("train needs a classifier") }
            var window: PipelineSpec.Window?
            if let size = raw.window {
                let hop = raw.hop ?? max(1, size / 4)
                guard (2...2000).contains(size), (1...size).contains(hop) else {
                    throw StudioError("window must be 2-2000 frames and hop 1-window, got \(size),\(hop)")
                }
                window = PipelineSpec.Window(size: size, hop: hop)
            }
            self = .train(TrainRequest(classifier: name, window: window))
        default:
            throw StudioError("unknown message type \"\(raw.t.prefix(20))\"")
        }
    }

    static func frame(_ row: [Double]) throws -> [Float] {
        guard !row.isEmpty, row.count <= StudioLimits.maxChannels else {
            throw StudioError("a frame must have 1-\(StudioLimits.maxChannels) values, got \(row.count)")
        }
        return try row.map {
            let f = Float($0)
            guard f.isFinite else { throw StudioError("a frame holds a value that is not a finite number") }
            return f
        }
    }

    /// Trimmed, 1-48 characters, no CSV separators or control characters.
    public static func label(_ text: String?) throws -> String {
        let l = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !l.isEmpty else { throw StudioError("choose or type a class first") }
        guard l.count <= StudioLimits.maxLabelLength else { throw StudioError("a class name has at most \(StudioLimits.maxLabelLength) characters") }
        guard RecordingAppend.problem(with: l) == nil, !l.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw StudioError("a class name must not contain commas, quotes or control characters")
        }
        return l
    }
}

/// What to train: a default pipeline by classifier name, with a window for classifiers that
/// do not spot by themselves.
public struct TrainRequest: Sendable, Equatable {
    public var classifier: String
    public var window: PipelineSpec.Window?
    public init(classifier: String, window: PipelineSpec.Window?) {
        self.classifier = classifier
        self.window = window
    }
}

/// The channels a page's DeviceMotion gives, in frame order: acceleration without gravity,
/// with gravity (m/s^2), and rotation rate (deg/s).
public enum MotionLayout {
    public static let channels = ["accX", "accY", "accZ", "gravX", "gravY", "gravZ", "rotAlpha", "rotBeta", "rotGamma"]
}

/// Messages to pages. Frames are formatted by hand (they are most of the traffic); the rest go
/// through `JSONEncoder`.
public enum StudioOutbound {
    /// `{"t":"f","i":INDEX,"at":MS,"v":[...]}`. - Complexity: O(channels).
    public static func frame(index: Int, at ms: Double, values: [Float]) -> String {
        var s = "{\"t\":\"f\",\"i\":\(index),\"at\":\(Int64(ms)),\"v\":["
        for (k, v) in values.enumerated() {
            if k > 0 { s += "," }
            s += v.description
        }
        return s + "]}"
    }

    /// A detection placed on the studio's frame timeline.
    public struct DetectionMessage: Encodable, Sendable {
        public var t = "d"
        public var label: String
        public var confidence: Float
        /// First and last frame of the detected gesture, on the studio's frame count.
        public var start: Int
        public var end: Int
        /// The frame whose arrival produced the decision, and when it arrived (ms since 1970).
        public var frame: Int
        public var at: Int64
    }

    static func encode<T: Encodable>(_ value: T) -> String {
        let e = JSONEncoder()
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? String(decoding: e.encode(value), as: UTF8.self)) ?? "{\"t\":\"error\",\"message\":\"encoding failed\"}"
    }

    public static func error(_ message: String) -> String {
        encode(["t": "error", "message": message])
    }

    public static func notice(_ message: String) -> String {
        encode(["t": "notice", "message": message])
    }
}
