import Testing
@testable import GestureKit

@Suite struct InputLineParserTests {
    @Test func csvWithoutHeaderTakesFirstFieldsInOrder() throws {
        let p = ParserBox(channelNames: ["x", "y"])
        #expect(try p.parse("1.5, -2 ,7") == .frame)
        #expect(p.frame == [1.5, -2])
        #expect(p.parser.fieldCount == 3)
        #expect(try p.parse("3,4,5") == .frame)
        #expect(p.frame == [3, 4])
    }

    @Test func whitespaceSeparatedAndCRLF() throws {
        let p = ParserBox(channelNames: ["a", "b", "c"])
        #expect(try p.parse("  0.25\t1e-3   -4\r") == .frame)
        #expect(p.frame == [0.25, 0.001, -4])
    }

    @Test func inferredLayoutUsesEveryField() throws {
        let p = ParserBox()
        #expect(try p.parse("1 2 3 4") == .frame)
        #expect(p.parser.channelNames == ["ch0", "ch1", "ch2", "ch3"])
        #expect(p.frame == [1, 2, 3, 4])
    }

    @Test func headerPicksChannelsByNameAndIgnoresExtras() throws {
        let p = ParserBox(channelNames: ["accZ", "accX"])
        #expect(try p.parse("time,accX,\"accY\",accZ,note") == .header)
        #expect(p.parser.header == ["time", "accX", "accY", "accZ", "note"])
        // The note column is not used, so text there is fine.
        #expect(try p.parse("0.02,1,2,3,hello") == .frame)
        #expect(p.frame == [3, 1])
        // A repeated header (senders that start every datagram with it) is skipped.
        #expect(try p.parse("time,accX,\"accY\",accZ,note") == .header)
    }

    @Test func headerWithoutExpectedNamesNamesTheChannels() throws {
        let p = ParserBox()
        #expect(try p.parse("gx gy") == .header)
        #expect(p.parser.channelNames == ["gx", "gy"])
        #expect(try p.parse("5 6") == .frame)
        #expect(p.frame == [5, 6])
    }

    @Test func missingHeaderColumnIsAClearError() throws {
        let p = ParserBox(channelNames: ["ax", "ay", "az"])
        let error = #expect(throws: GestureKitError.self) { try p.parse("ax,ay,temp") }
        #expect(error?.message.contains("\"az\"") == true)
        #expect(error?.message.contains("ax, ay, temp") == true)
    }

    @Test func malformedLinesAreReportedWithReasons() throws {
        let p = ParserBox(channelNames: ["a", "b"])
        #expect(try p.parse("a,b") == .header)
        guard case let .malformed(r1) = try p.parse("1") else { Issue.record("short line accepted"); return }
        #expect(r1 == "expected 2 values, found 1")
        guard case let .malformed(r2) = try p.parse("1,2,3") else { Issue.record("long line accepted"); return }
        #expect(r2 == "expected 2 values, found 3")
        guard case let .malformed(r3) = try p.parse("1,abc") else { Issue.record("text accepted"); return }
        #expect(r3.contains("column 2 (b)") && r3.contains("\"abc\""))
        guard case let .malformed(r4) = try p.parse("nan,1") else { Issue.record("NaN accepted"); return }
        #expect(r4.contains("not finite"))
        guard case .malformed = try p.parse("1,inf") else { Issue.record("inf accepted"); return }
        guard case .malformed = try p.parse("1,1e40") else { Issue.record("overflow accepted"); return }
        guard case .malformed = try p.parse("1,,") else { Issue.record("empty field accepted"); return }
        guard case .malformed = try p.parse("1,2x") else { Issue.record("trailing junk accepted"); return }
        // A good line still parses after the bad ones.
        #expect(try p.parse("7,8") == .frame)
        #expect(p.frame == [7, 8])
    }

    @Test func blankAndCommentLinesAreSkipped() throws {
        let p = ParserBox(channelNames: ["a"])
        #expect(try p.parse("") == .skipped)
        #expect(try p.parse("   \t") == .skipped)
        #expect(try p.parse("# recorded on a phone") == .skipped)
        #expect(try p.parse("42") == .frame)
        #expect(p.frame == [42])
    }

    @Test func firstLineTooShortDoesNotFixTheLayout() throws {
        let p = ParserBox(channelNames: ["a", "b", "c"])
        guard case .malformed = try p.parse("1 2") else { Issue.record("short first line accepted"); return }
        #expect(p.parser.fieldCount == nil)
        #expect(try p.parse("1 2 3") == .frame)
    }

    @Test func valuesRoundTripExactly() throws {
        // Printing a Float with `description` and parsing it back must give the same bits
        // (recordings are written that way).
        let values: [Float] = [0.1, -1.0e-7, 3.4028235e38, 1.1754944e-38, 123456.79, -0.0]
        let p = ParserBox(channelNames: values.indices.map { "c\($0)" })
        #expect(try p.parse(values.map { "\($0)" }.joined(separator: ",")) == .frame)
        #expect(p.frame.map(\.bitPattern) == values.map(\.bitPattern))
    }
}

@Suite struct InputSpecTests {
    @Test func parsesEveryForm() throws {
        #expect(try InputSpec(parsing: "-") == .stdin)
        #expect(try InputSpec(parsing: "walk.csv") == .file("walk.csv"))
        #expect(try InputSpec(parsing: "udp:9000") == .udp(host: "127.0.0.1", port: 9000))
        #expect(try InputSpec(parsing: "udp:0.0.0.0:9000") == .udp(host: "0.0.0.0", port: 9000))
        #expect(try InputSpec(parsing: "osc") == .osc(host: "127.0.0.1", port: 6448, address: "/wek/inputs"))
        #expect(try InputSpec(parsing: "osc:7000") == .osc(host: "127.0.0.1", port: 7000, address: "/wek/inputs"))
        #expect(try InputSpec(parsing: "osc:7000/imu/*") == .osc(host: "127.0.0.1", port: 7000, address: "/imu/*"))
        #expect(try InputSpec(parsing: "osc:0.0.0.0:7000/a") == .osc(host: "0.0.0.0", port: 7000, address: "/a"))
        #expect(try InputSpec(parsing: "./udp:9000") == .file("./udp:9000"))
    }

    @Test func rejectsBadPorts() {
        #expect(throws: GestureKitError.self) { try InputSpec(parsing: "udp:") }
        #expect(throws: GestureKitError.self) { try InputSpec(parsing: "udp:abc") }
        #expect(throws: GestureKitError.self) { try InputSpec(parsing: "udp:70000") }
        #expect(throws: GestureKitError.self) { try InputSpec(parsing: "osc:12x/a") }
        #expect(throws: GestureKitError.self) { try InputSpec(parsing: "") }
    }

    @Test func rateOnlyForFiniteSources() {
        #expect(throws: GestureKitError.self) { try FrameReader(.udp(port: 0), channelNames: ["a"], rate: 50) }
        #expect(throws: GestureKitError.self) { try FrameReader(.stdin, channelNames: ["a"], rate: 0) }
    }
}

/// A reference wrapper so `#expect` can call the mutating parser.
final class ParserBox {
    var parser: InputLineParser
    var frame: [Float] = []
    init(channelNames: [String] = []) { parser = InputLineParser(channelNames: channelNames) }
    func parse(_ line: String) throws -> InputLineParser.LineKind { try parser.parse(line, into: &frame) }
}
