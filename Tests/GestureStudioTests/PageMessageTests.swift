import Foundation
import GestureKit
import Testing
@testable import GestureStudio

@Suite struct PageMessageTests {
    @Test func motionFramesParse() throws {
        let m = try PageMessage(parsing: #"{"t":"motion","v":[[1,2,3,4,5,6,7,8,9],[0.5,-1e3,0,0,0,0,0,0,1.25]]}"#)
        #expect(m == .motion([[1, 2, 3, 4, 5, 6, 7, 8, 9], [0.5, -1000, 0, 0, 0, 0, 0, 0, 1.25]]))
    }

    @Test func commandsParse() throws {
        #expect(try PageMessage(parsing: #"{"t":"record","label":"  circle "}"#) == .record(label: "circle"))
        #expect(try PageMessage(parsing: #"{"t":"stop"}"#) == .stop)
        #expect(try PageMessage(parsing: #"{"t":"cancel"}"#) == .cancel)
        #expect(try PageMessage(parsing: #"{"t":"delete","id":"ex123"}"#) == .delete(id: "ex123"))
        #expect(try PageMessage(parsing: #"{"t":"train","classifier":"knn","window":32,"hop":4}"#)
                == .train(TrainRequest(classifier: "knn", window: .init(size: 32, hop: 4))))
        #expect(try PageMessage(parsing: #"{"t":"train","classifier":"dtw"}"#) == .train(TrainRequest(classifier: "dtw", window: nil)))
        #expect(try PageMessage(parsing: #"{"t":"play","id":"ex5","rate":200}"#) == .play(id: "ex5", rate: 200))
        #expect(try PageMessage(parsing: #"{"t":"play","id":"ex5"}"#) == .play(id: "ex5", rate: 50))
    }

    @Test(arguments: [
        "", "not json", "[]", #"{"v":[[1]]}"#, #"{"t":"explode"}"#,
        #"{"t":"motion"}"#, #"{"t":"motion","v":[]}"#, #"{"t":"motion","v":[[]]}"#,
        #"{"t":"motion","v":[["a"]]}"#, #"{"t":"motion","v":[[1e39]]}"#, #"{"t":"motion","v":[[-1e300]]}"#,
        #"{"t":"record"}"#, #"{"t":"record","label":""}"#, #"{"t":"record","label":"   "}"#,
        #"{"t":"record","label":"a,b"}"#, #"{"t":"record","label":"say \"hi\""}"#, #"{"t":"record","label":"line\nbreak"}"#,
        #"{"t":"record","label":"tab\tbad"}"#, #"{"t":"delete"}"#, #"{"t":"delete","id":"a,b"}"#,
        #"{"t":"train"}"#, #"{"t":"train","classifier":"knn","window":1}"#, #"{"t":"train","classifier":"knn","window":8,"hop":9}"#,
        #"{"t":"train","classifier":"knn","window":100000}"#,
        #"{"t":"play"}"#, #"{"t":"play","id":"a,b"}"#, #"{"t":"play","id":"ex1","rate":0}"#, #"{"t":"play","id":"ex1","rate":5000}"#,
    ])
    func badMessagesAreRefusedWithAReason(text: String) {
        #expect(throws: StudioError.self) { try PageMessage(parsing: text) }
    }

    @Test func sizesAreBounded() {
        let tooMany = "{\"t\":\"motion\",\"v\":[" + Array(repeating: "[1,2,3]", count: StudioLimits.maxFramesPerMessage + 1).joined(separator: ",") + "]}"
        #expect(throws: StudioError.self) { try PageMessage(parsing: tooMany) }
        let tooWide = "{\"t\":\"motion\",\"v\":[[" + Array(repeating: "1", count: StudioLimits.maxChannels + 1).joined(separator: ",") + "]]}"
        #expect(throws: StudioError.self) { try PageMessage(parsing: tooWide) }
        let tooLong = #"{"t":"record","label":""# + String(repeating: "x", count: StudioLimits.maxLabelLength + 1) + #""}"#
        #expect(throws: StudioError.self) { try PageMessage(parsing: tooLong) }
        let huge = #"{"t":"stop","pad":""# + String(repeating: " ", count: StudioLimits.maxMessageBytes) + #""}"#
        #expect(throws: StudioError.self) { try PageMessage(parsing: huge) }
    }

    @Test func frameMessagesAreJSONThatReadsBackExactly() throws {
        let values: [Float] = [0.1, -3.4028235e38, .leastNonzeroMagnitude, 12345.678, 0]
        let text = StudioOutbound.frame(index: 7, at: 1_700_000_000_123.9, values: values)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(obj["t"] as? String == "f")
        #expect((obj["i"] as? NSNumber)?.intValue == 7)
        #expect((obj["at"] as? NSNumber)?.int64Value == 1_700_000_000_123)
        let back = try #require(obj["v"] as? [NSNumber]).map { Float($0.doubleValue) }
        #expect(back == values)
    }
}
