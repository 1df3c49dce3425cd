import Testing
@testable import GestureKit

@Suite struct OSCCodecTests {
    /// The first example of the OSC 1.0 specification: "/oscillator/4/frequency" with float 440.
    static let specFrequency: [UInt8] = [
        0x2f, 0x6f, 0x73, 0x63, 0x69, 0x6c, 0x6c, 0x61, 0x74, 0x6f, 0x72, 0x2f,
        0x34, 0x2f, 0x66, 0x72, 0x65, 0x71, 0x75, 0x65, 0x6e, 0x63, 0x79, 0x00,
        0x2c, 0x66, 0x00, 0x00,
        0x43, 0xdc, 0x00, 0x00,
    ]

    /// The second example of the spec: "/foo" with 1000, -1, "hello", 1.234, 5.678.
    static let specFoo: [UInt8] = [
        0x2f, 0x66, 0x6f, 0x6f, 0x00, 0x00, 0x00, 0x00,
        0x2c, 0x69, 0x69, 0x73, 0x66, 0x66, 0x00, 0x00,
        0x00, 0x00, 0x03, 0xe8,
        0xff, 0xff, 0xff, 0xff,
        0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x00,
        0x3f, 0x9d, 0xf3, 0xb6,
        0x40, 0xb5, 0xb2, 0x2d,
    ]

    @Test func encodesTheSpecExamples() {
        #expect(OSCMessage("/oscillator/4/frequency", [.float32(440)]).encoded() == Self.specFrequency)
        let foo = OSCMessage("/foo", [.int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678)])
        #expect(foo.encoded() == Self.specFoo)
    }

    @Test func decodesTheSpecExamples() throws {
        #expect(try OSCPacket(decoding: Self.specFrequency) == .message(OSCMessage("/oscillator/4/frequency", [.float32(440)])))
        guard case let .message(m) = try OSCPacket(decoding: Self.specFoo) else { Issue.record("not a message"); return }
        #expect(m.address == "/foo")
        #expect(m.arguments == [.int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678)])
        // 1.234 and 5.678 as IEEE-754 single bit patterns, as printed in the spec.
        #expect(Float(1.234).bitPattern == 0x3f9d_f3b6)
        #expect(Float(5.678).bitPattern == 0x40b5_b22d)
    }

    @Test func everyArgumentTypeRoundTrips() throws {
        let m = OSCMessage("/all/types", [
            .int32(.min), .float32(-0.5), .string(""), .string("abc"), .string("abcd"), .blob([]), .blob([1, 2, 3]),
            .blob([1, 2, 3, 4, 5]), .int64(-1234567890123), .double(Double.pi), .timeTag(0x0102_0304_0506_0708),
            .symbol("sym"), .char(65), .rgba(0xff00_80ff), .midi(0x0090_3c7f), .bool(true), .bool(false), .null, .impulse,
        ])
        let bytes = m.encoded()
        #expect(bytes.count % 4 == 0)
        #expect(try OSCPacket(decoding: bytes) == .message(m))
    }

    @Test func paddingIsToFourBytes() {
        // "/a" + NUL = 3 bytes -> 4; "/abc" + NUL = 5 -> 8; tags ",": 2 -> 4.
        #expect(OSCMessage("/a").encoded() == [0x2f, 0x61, 0, 0, 0x2c, 0, 0, 0])
        #expect(OSCMessage("/abc").encoded().count == 12)
        #expect(OSCMessage("/a", [.string("xyz")]).encoded().suffix(4) == [0x78, 0x79, 0x7a, 0])
    }

    @Test func nestedBundlesRoundTripWithSizes() throws {
        let inner = OSCBundle(timeTag: 42, [.message(OSCMessage("/b", [.int32(2)]))])
        let outer = OSCPacket.bundle(OSCBundle([.message(OSCMessage("/a", [.float32(1)])), .bundle(inner)]))
        let bytes = outer.encoded()
        // "#bundle\0", time tag 1, then the first element's size: "/a\0\0" ",f\0\0" + 4 bytes = 12.
        #expect(Array(bytes[0..<8]) == Array("#bundle".utf8) + [0])
        #expect(Array(bytes[8..<16]) == [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(Array(bytes[16..<20]) == [0, 0, 0, 12])
        #expect(try OSCPacket(decoding: bytes) == outer)
    }

    @Test func rejectsBrokenPackets() {
        let cases: [[UInt8]] = [
            [],
            Array("abc\0".utf8),                               // no leading /
            [0x2f, 0x61, 0x62, 0x63],                            // address not terminated
            [0x2f, 0x61, 0, 0, 0x2c, 0x66, 0, 0],               // float missing
            [0x2f, 0x61, 0, 0, 0x2c, 0x5b, 0, 0],               // array tag unsupported
            [0x2f, 0x61, 0, 0, 0x78, 0x66, 0, 0],               // tags without ','
            Array("#bundle".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 99],  // element size too big
        ]
        for bytes in cases {
            #expect(throws: GestureKitError.self, "\(bytes)") { try OSCPacket(decoding: bytes) }
        }
        // Too deep: 20 nested bundles.
        var p = OSCPacket.message(OSCMessage("/x"))
        for _ in 0..<20 { p = .bundle(OSCBundle([p])) }
        #expect(throws: GestureKitError.self) { try OSCPacket(decoding: p.encoded()) }
    }

    @Test(arguments: [
        ("/wek/inputs", "/wek/inputs", true),
        ("/wek/inputs", "/wek/input", false),
        ("/wek/inputs", "/wek/inputs/x", false),
        ("/wek/*", "/wek/inputs", true),
        ("/*", "/wek/inputs", false),            // * does not cross /
        ("/*/inputs", "/wek/inputs", true),
        ("/imu/?", "/imu/1", true),
        ("/imu/?", "/imu/12", false),
        ("/imu/[0-9]", "/imu/7", true),
        ("/imu/[!0-9]", "/imu/7", false),
        ("/imu/[!0-9]", "/imu/a", true),
        ("/imu/[abc]x", "/imu/bx", true),
        ("/{acc,gyro}/x", "/gyro/x", true),
        ("/{acc,gyro}/x", "/mag/x", false),
        ("/a*b*c", "/aXXbYYc", true),
        ("/a*b*c", "/aXXbYY", false),
    ])
    func addressPatterns(pattern: String, address: String, expected: Bool) {
        #expect(OSCAddressPattern.matches(pattern, address) == expected)
    }
}
