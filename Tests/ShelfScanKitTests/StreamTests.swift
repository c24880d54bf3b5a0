import Foundation
import Testing
@testable import ShelfScanKit

// MARK: Frame splitting, confirmation, hand-over (no executable, no ffmpeg)

@Suite("Stream frame splitting")
struct StreamSplittingTests {
    /// Splits `bytes`, collecting frames and warnings.
    static func split(_ bytes: [UInt8], format: FrameFormat? = nil, rawSize: (Int, Int)? = nil,
                      pixels: RawPixelFormat = .gray) throws -> (frames: [SplitFrame], warnings: [String]) {
        var warnings: [String] = []
        let splitter = try FrameSplitter(input: ByteInput(bytes: bytes), format: format, rawSize: rawSize,
                                         rawPixelFormat: pixels) { warnings.append($0) }
        var frames: [SplitFrame] = []
        while let frame = splitter.next() { frames.append(frame) }
        return (frames, warnings)
    }

    /// A real JPEG of a SampleImages barcode, shrunk, encoded by Leptonica.
    static func jpeg(_ sample: String = "barcodes/isbn-1984-clean.png", side: Int = 200) throws -> [UInt8] {
        let image = try ImageLoader().load(path: Fixtures.sample(sample)).image.fitting(maxSide: side)
        return try LeptonicaEncoder.encode(image, as: .jpeg)
    }

    /// `jpeg` with an APP1 segment after SOI that holds a whole JPEG (a thumbnail: its own SOI
    /// and EOI) and a stray `FF D9`.
    static func jpegWithThumbnail() throws -> [UInt8] {
        let main = try jpeg()
        let thumbnail = try jpeg("barcodes/isbn-odyssey-ean5-clean.png", side: 40)
        let payload = Array("Exif\0\0".utf8) + [0xFF, 0xD9, 0x00] + thumbnail
        let length = payload.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Array(main.prefix(2)) + app1 + Array(main.dropFirst(2))
    }

    @Test("concatenated JPEGs with embedded thumbnails split into whole frames, byte for byte")
    func jpegThumbnails() throws {
        let frame = try Self.jpegWithThumbnail()
        let (frames, warnings) = try Self.split(frame + frame + frame)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(frames.count == 3)
        for f in frames {
            guard case .jpeg(let bytes) = f.payload else { Issue.record("not a JPEG payload"); continue }
            #expect(bytes == frame)
        }
        #expect(frames.map(\.number) == [1, 2, 3])
        #expect(try StreamScanner.decode(frames[0]).width == frames[0].width)
    }

    @Test("garbage between JPEG frames is skipped with one warning naming the frame")
    func jpegGarbage() throws {
        let frame = try Self.jpeg()
        var garbage = SeededBytes(seed: 7)
        let junk = garbage.bytes(500).map { $0 == 0xFF ? 0x00 : $0 }
        let (frames, warnings) = try Self.split(junk + frame + junk + frame)
        #expect(frames.count == 2)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first?.hasPrefix("frame 1: 500 bytes of garbage") == true, "\(warnings)")
        #expect(warnings.last?.hasPrefix("frame 2: 500 bytes of garbage") == true, "\(warnings)")
    }

    @Test("a JPEG cut short, followed by a whole one, and a truncated last frame: both warned, good frames kept")
    func jpegTruncated() throws {
        let frame = try Self.jpeg()
        let cut = Array(frame.prefix(frame.count / 2))
        let (frames, warnings) = try Self.split(frame + cut + frame + cut)
        #expect(frames.map(\.number) == [1, 3])
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first?.hasPrefix("frame 2: truncated") == true)
        #expect(warnings.last?.hasPrefix("frame 4: truncated at the end of input") == true)
    }

    /// A Y4M stream of `count` frames of `width` x `height`; Y sample values `base + i` per frame.
    static func y4m(width: Int, height: Int, colorspace: String?, count: Int, chroma: Int) -> [UInt8] {
        var header = "YUV4MPEG2 W\(width) H\(height) F30000:1001 Ip A1:1"
        if let colorspace { header += " C\(colorspace)" }
        var bytes = Array((header + " XYSCSS=420MPEG2\n").utf8)
        for i in 0..<count {
            bytes += Array((i == 1 ? "FRAME Ixyz\n" : "FRAME\n").utf8)
            bytes += [UInt8](repeating: UInt8(10 + i), count: width * height)
            bytes += [UInt8](repeating: 128, count: chroma)
        }
        return bytes
    }

    @Test("Y4M: the Y plane of each frame as gray, for 4:2:0 (mpeg2, jpeg, default), 4:4:4 and mono, FRAME parameters allowed",
          arguments: [("420mpeg2", 2 * 3 * 2), ("420jpeg", 12), (nil, 12), ("444", 2 * 6 * 3), ("mono", 0), ("422", 2 * 3 * 3)] as [(String?, Int)])
    func y4mPlanes(colorspace: String?, chroma: Int) throws {
        let (frames, warnings) = try Self.split(Self.y4m(width: 6, height: 3, colorspace: colorspace, count: 3, chroma: chroma))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(frames.count == 3)
        for (i, frame) in frames.enumerated() {
            guard case .gray(let g) = frame.payload else { Issue.record("not gray"); continue }
            #expect(g.width == 6 && g.height == 3)
            #expect(g.pixels == [UInt8](repeating: UInt8(10 + i), count: 18))
        }
    }

    @Test("Y4M: garbage before a FRAME line is skipped with a warning; a short last frame is reported")
    func y4mGarbage() throws {
        var bytes = Self.y4m(width: 4, height: 2, colorspace: "mono", count: 2, chroma: 0)
        bytes.insert(contentsOf: Array("junk!".utf8), at: bytes.count - 8 - 11)  // before the second FRAME
        bytes += Array("FRAME\n".utf8) + [1, 2, 3]
        let (frames, warnings) = try Self.split(bytes)
        #expect(frames.count == 2)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first == "frame 2: 5 bytes of garbage before it skipped")
        #expect(warnings.last?.hasPrefix("frame 3: truncated") == true)
    }

    @Test("PGM and PPM: headers with comments, colour turned to luminance, a frame of another size skipped")
    func pnm() throws {
        let pgm = Array("P5\n# made by a test\n3 2\n255\n".utf8) + [0, 50, 100, 150, 200, 250]
        let ppm = Array("P6 3 2 255\n".utf8) + [UInt8](repeating: 0, count: 9) + [UInt8](repeating: 255, count: 9)
        let other = Array("P5 2 2 255\n".utf8) + [1, 2, 3, 4]
        let (frames, warnings) = try Self.split(pgm + ppm + other + pgm)
        #expect(frames.map(\.number) == [1, 2, 4])
        #expect(warnings == ["frame 3: 2x2, not the stream's 3x2; skipped"])
        guard case .gray(let first) = frames[0].payload, case .gray(let colour) = frames[1].payload else {
            Issue.record("not gray"); return
        }
        #expect(first.pixels == [0, 50, 100, 150, 200, 250])
        #expect(colour.pixels == [0, 0, 0, 255, 255, 255])
    }

    @Test("raw frames: gray and rgb24 by the given size; a partial last frame is warned and dropped")
    func raw() throws {
        let gray = [UInt8](0..<8) + [UInt8](8..<16) + [1, 2, 3]
        let (frames, warnings) = try Self.split(gray, rawSize: (4, 2))
        #expect(frames.count == 2)
        #expect(warnings == ["frame 3: truncated at the end of input (3 bytes of 8); skipped"])
        let rgb = [UInt8](repeating: 255, count: 4 * 2 * 3)
        let (colour, none) = try Self.split(rgb, rawSize: (4, 2), pixels: .rgb24)
        #expect(none.isEmpty)
        guard case .gray(let g) = try #require(colour.first).payload else { Issue.record("not gray"); return }
        #expect(g.pixels == [UInt8](repeating: 255, count: 8))
    }

    @Test("the format is recognised from the first bytes, after leading garbage too; unknown bytes are refused")
    func sniffing() throws {
        #expect(try Self.split(try Self.jpeg()).frames.count == 1)
        let ppm = Array("P6 1 1 255\n".utf8) + [9, 9, 9]
        let (frames, warnings) = try Self.split(Array("hello".utf8) + ppm)
        #expect(frames.count == 1)
        #expect(warnings == ["frame 1: 5 bytes of garbage before it skipped"])
        #expect(throws: ShelfScanError.self) { try Self.split(Array("definitely not frames".utf8)) }
        #expect(try Self.split([]).frames.isEmpty)
    }
}

@Suite("Stream confirmation and hand-over")
struct StreamTrackingTests {
    @Test("a book is reported after N frames, once, and again only after it was out of view for forget-after seconds")
    func confirmation() {
        var tracker = SightingTracker(confirmations: 2, forgetAfter: 10)
        #expect(tracker.observe(["a"], frame: 1, time: 0).isEmpty)
        #expect(tracker.observe(["a"], frame: 1, time: 0).isEmpty, "the same frame twice is one sighting")
        #expect(tracker.observe(["a", "b"], frame: 2, time: 0.1) == ["a"])
        #expect(tracker.observe(["a", "b"], frame: 3, time: 0.2) == ["b"])
        #expect(tracker.observe(["a", "b"], frame: 4, time: 9).isEmpty)
        #expect(tracker.observe([], frame: 5, time: 18).isEmpty)
        #expect(tracker.remembered == 2)
        #expect(tracker.observe([], frame: 6, time: 19.5).isEmpty)
        #expect(tracker.remembered == 0, "both out of view for more than 10 s")
        #expect(tracker.observe(["a"], frame: 7, time: 20).isEmpty)
        #expect(tracker.observe(["a"], frame: 8, time: 20.1) == ["a"])
    }

    @Test("the newest-frame mailbox holds one frame and counts the ones it dropped")
    func newestWins() {
        let box = FrameMailbox<Int>(capacity: 1, policy: .newest)
        for i in 1...5 { box.put(i) }
        #expect(box.take() == 5)
        #expect(box.droppedCount == 4)
        box.put(6)
        box.close()
        #expect(box.take() == 6)
        #expect(box.take() == nil)
    }

    /// A `width` x `height` gray frame: vertical stripes `period` px wide, shifted by `shift`.
    static func stripes(period: Int, shift: Int = 0, width: Int = 160, height: Int = 120) -> GrayBytes {
        GrayBytes(width: width, height: height, pixels: (0..<width * height).map { i in
            ((i % width + shift) / period) % 2 == 0 ? 30 : 220
        })
    }

    @Test("OCR frame choice: blank frames never, a steady sharp frame once, the same scene again only when asked")
    func ocrSelection() {
        var selector = OCRFrameSelector()
        let blank = FrameQuality(GrayBytes(width: 160, height: 120, pixels: [UInt8](repeating: 128, count: 160 * 120)))
        let scene = FrameQuality(Self.stripes(period: 8))
        let other = FrameQuality(Self.stripes(period: 8, shift: 4))
        var offered: [Bool] = []
        for frame in [blank, blank, scene, scene] { offered.append(selector.offer(frame)) }
        // Blank twice (steady but nothing to read), then a moved frame, then the steady scene.
        #expect(offered == [false, false, false, true])
        let firstLook = selector.shouldRead(scene, wantsAnotherLook: false)
        let sameAgain = selector.shouldRead(scene, wantsAnotherLook: false)
        let askedAgain = selector.shouldRead(scene, wantsAnotherLook: true)
        #expect(firstLook && !sameAgain && askedAgain)
        let moved = selector.offer(other), steady = selector.offer(other)
        #expect(!moved && steady)
        let newScene = selector.shouldRead(other, wantsAnotherLook: false)
        #expect(newScene)
    }

    @Test("latency percentiles come back within the histogram's 2% buckets")
    func percentiles() throws {
        var h = LatencyHistogram()
        for ms in 1...100 { h.record(milliseconds: Double(ms)) }
        let p50 = try #require(h.percentile(0.5)), p95 = try #require(h.percentile(0.95))
        #expect(abs(p50 - 50) <= 1.5)
        #expect(abs(p95 - 95) <= 2.5)
        #expect(LatencyHistogram().percentile(0.5) == nil)
    }
}

// MARK: The executable, fed by real ffmpeg

enum StreamFixtures {
    static let ffmpeg = "/usr/bin/ffmpeg"
    static var available: Bool { CLI.available && FileManager.default.isExecutableFile(atPath: ffmpeg) }
    static let odyssey: (String, String) = ("barcodes/isbn-odyssey-ean5-clean.png", "9780143039952")
    static let nineteen84: (String, String) = ("barcodes/isbn-1984-clean.png", "9780451524935")
    static let fence = "barcodes/none-fence.jpg"

    /// Runs ffmpeg and returns its output file's bytes.
    static func runFFmpeg(_ arguments: [String], output: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-v", "error", "-y"] + arguments + [output]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("ffmpeg failed: \(arguments)") }
        return try Fixtures.bytes(output)
    }

    /// A stream of still images, `frames` frames each at 10 fps, scaled to `size`, written by
    /// ffmpeg with `output` options (e.g. `-f image2pipe -c:v mjpeg`).
    static func stream(_ images: [(String, Int)], size: String = "640:360", output: [String],
                       in dir: TemporaryDirectory, name: String) throws -> String {
        var arguments: [String] = []
        for (image, frames) in images {
            arguments += ["-loop", "1", "-framerate", "10", "-t", String(Double(frames) / 10), "-i", Fixtures.sample(image)]
        }
        let chains = images.indices.map { "[\($0)]scale=\(size),setsar=1,format=yuv420p[v\($0)]" }
        let concat = images.indices.map { "[v\($0)]" }.joined() + "concat=n=\(images.count)"
        arguments += ["-filter_complex", (chains + [concat]).joined(separator: ";")] + output
        _ = try runFFmpeg(arguments, output: dir.file(name))
        return dir.file(name)
    }

    /// Runs `shelfscan stream ...` with the file `stdin` as standard input.
    static func run(_ arguments: [String], stdin: String, in directory: TemporaryDirectory) async throws -> CLI.Run {
        try await CLI.run(["stream"] + arguments, stdin: stdin, in: directory)
    }

    /// The JSON Lines of a run's standard output.
    static func events(_ run: CLI.Run) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)")
        }
    }

    static func books(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["event"] as? String == "book" }.compactMap { ($0["book"] as? [String: Any])?["isbn13"] as? String }
    }

    static func stats(_ events: [[String: Any]]) throws -> [String: Any] {
        let last = try #require(events.last)
        #expect(last["event"] as? String == "stats")
        return last
    }
}

@Suite("shelfscan stream", .enabled(if: StreamFixtures.available, "needs the shelfscan executable and /usr/bin/ffmpeg"),
       .timeLimit(.minutes(10)))
struct StreamCLITests {
    typealias F = StreamFixtures

    /// Output options per frame format, and the extra arguments shelfscan needs for it.
    static let formats: [(name: String, output: [String], arguments: [String])] = [
        ("mjpeg", ["-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "3"], []),
        ("ppm", ["-f", "image2pipe", "-c:v", "ppm"], []),
        ("pgm", ["-f", "image2pipe", "-c:v", "pgm"], []),
        ("y4m", ["-f", "yuv4mpegpipe"], []),
        ("gray", ["-f", "rawvideo", "-pix_fmt", "gray"], ["--size", "640x360"]),
        ("rgb24", ["-f", "rawvideo", "-pix_fmt", "rgb24"], ["--size", "640x360", "--pixel-format", "rgb24"]),
    ]

    @Test("each frame format: both books reported, once each, in order, with frame numbers and stats",
          arguments: formats.map(\.name))
    func frameFormat(name: String) async throws {
        let format = try #require(Self.formats.first { $0.name == name })
        let dir = try TemporaryDirectory()
        let stream = try F.stream([(F.odyssey.0, 4), (F.fence, 3), (F.nineteen84.0, 4)], output: format.output, in: dir, name: "s.\(name)")
        let run = try await F.run(["--all-frames", "--no-ocr"] + format.arguments, stdin: stream, in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        let events = try F.events(run)
        #expect(F.books(events) == [F.odyssey.1, F.nineteen84.1])
        let books = events.filter { $0["event"] as? String == "book" }
        // Confirmed on the second frame each book is in view (--confirm 2 by default).
        #expect(books.map { $0["frame"] as? Int } == [2, 9])
        #expect(books.allSatisfy { $0["via"] as? String == "barcode" && $0["latencyMs"] is Double })
        let stats = try F.stats(events)
        #expect(stats["framesRead"] as? Int == 11)
        #expect(stats["framesProcessed"] as? Int == 11)
        #expect(stats["framesDropped"] as? Int == 0)
        #expect(stats["booksReported"] as? Int == 2)
        #expect(stats["width"] as? Int == 640 && stats["height"] as? Int == 360)
        let latency = try #require(stats["latencyMs"] as? [String: Any])
        #expect(latency["count"] as? Int == 2 && latency["p50"] is Double)
    }

    @Test("--confirm 3: a book in view for two frames is not reported; --confirm 1 reports it on its first frame")
    func confirmCount() async throws {
        let dir = try TemporaryDirectory()
        let stream = try F.stream([(F.odyssey.0, 2), (F.fence, 2), (F.nineteen84.0, 3)],
                                  output: ["-f", "image2pipe", "-c:v", "mjpeg"], in: dir, name: "s.mjpeg")
        let three = try F.events(try await F.run(["--all-frames", "--no-ocr", "--confirm", "3"], stdin: stream, in: dir))
        #expect(F.books(three) == [F.nineteen84.1])
        let one = try F.events(try await F.run(["--all-frames", "--no-ocr", "--confirm", "1"], stdin: stream, in: dir))
        #expect(one.filter { $0["event"] as? String == "book" }.map { $0["frame"] as? Int } == [1, 5])
    }

    @Test("a book that leaves and comes back is reported again only after --forget-after seconds of stream time")
    func forgetAfter() async throws {
        let dir = try TemporaryDirectory()
        // Odyssey, 1 s of fence, Odyssey again (10 fps).
        let stream = try F.stream([(F.odyssey.0, 3), (F.fence, 10), (F.odyssey.0, 3)],
                                  output: ["-f", "image2pipe", "-c:v", "mjpeg"], in: dir, name: "s.mjpeg")
        let long = try F.events(try await F.run(["--all-frames", "--no-ocr", "--fps", "10"], stdin: stream, in: dir))
        #expect(F.books(long) == [F.odyssey.1])
        let short = try F.events(try await F.run(["--all-frames", "--no-ocr", "--fps", "10", "--forget-after", "0.5"], stdin: stream, in: dir))
        #expect(F.books(short) == [F.odyssey.1, F.odyssey.1])
        #expect(short.filter { $0["event"] as? String == "book" }.map { $0["time"] as? Double } == [0.1, 1.4])
    }

    @Test("garbage between frames and a truncated last frame: one warning line each naming the frame, books still found, exit 0")
    func garbageAndTruncation() async throws {
        let dir = try TemporaryDirectory()
        let clean = try Fixtures.bytes(try F.stream([(F.odyssey.0, 3), (F.nineteen84.0, 3)],
                                                    output: ["-f", "image2pipe", "-c:v", "mjpeg"], in: dir, name: "clean.mjpeg"))
        let frames = try StreamSplittingTests.split(clean).frames.map { frame -> [UInt8] in
            guard case .jpeg(let bytes) = frame.payload else { return [] }
            return bytes
        }
        #expect(frames.count == 6)
        let junk = Array("this is not a frame".utf8)
        var bytes: [UInt8] = frames[0] + frames[1]
        bytes += junk
        for frame in frames[2...] { bytes += frame }
        bytes += Array(frames[5].prefix(frames[5].count / 3))
        let path = try dir.write("damaged.mjpeg", bytes)
        let run = try await F.run(["--all-frames", "--no-ocr"], stdin: path, in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderrLines == [
            "shelfscan: warning: frame 3: \(junk.count) bytes of garbage before it skipped",
            "shelfscan: warning: frame 7: truncated at the end of input (\(frames[5].count / 3) bytes of JPEG); skipped",
        ])
        let events = try F.events(run)
        #expect(F.books(events) == [F.odyssey.1, F.nineteen84.1])
        let stats = try F.stats(events)
        #expect(stats["framesRead"] as? Int == 6)
        #expect(stats["framesSkipped"] as? Int == 1)
    }

    @Test("a frame of the wrong size in a PPM stream is skipped with a warning; the stream goes on")
    func wrongSize() async throws {
        let dir = try TemporaryDirectory()
        let big = try Fixtures.bytes(try F.stream([(F.odyssey.0, 2)], output: ["-f", "image2pipe", "-c:v", "ppm"], in: dir, name: "a.ppm"))
        let small = try Fixtures.bytes(try F.stream([(F.fence, 1)], size: "320:180", output: ["-f", "image2pipe", "-c:v", "ppm"], in: dir, name: "b.ppm"))
        let path = try dir.write("mixed.ppm", big + small + big)
        let run = try await F.run(["--all-frames", "--no-ocr"], stdin: path, in: dir)
        #expect(run.status == 0)
        #expect(run.stderrLines == ["shelfscan: warning: frame 3: 320x180, not the stream's 640x360; skipped"])
        #expect(F.books(try F.events(run)) == [F.odyssey.1])
    }

    @Test("Ctrl-C (SIGINT) on a live pipe: the stats event, marked interrupted, and exit 0")
    func interrupt() async throws {
        let dir = try TemporaryDirectory()
        let stream = try Fixtures.bytes(try F.stream([(F.odyssey.0, 3)], output: ["-f", "image2pipe", "-c:v", "mjpeg"], in: dir, name: "s.mjpeg"))
        let executable = try #require(CLI.executable)
        let outPath = dir.file("out")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        defer { try? out.close() }
        let input = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["stream", "--no-ocr", "--confirm", "1"]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = dir.path + "/xdg"
        process.environment = environment
        process.standardInput = input
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let finished = AsyncStream<(Int32, Process.TerminationReason)>.makeStream()
        process.terminationHandler = { finished.continuation.yield(($0.terminationStatus, $0.terminationReason)) }
        try process.run()
        input.fileHandleForWriting.write(Data(stream))
        // The pipe stays open: only the signal can end this stream. Wait for the book event first.
        var waited = 0
        while !(String(decoding: try Fixtures.bytes(outPath), as: UTF8.self).contains("\"event\":\"book\"")) && waited < 600 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        process.interrupt()
        var iterator = finished.stream.makeAsyncIterator()
        let (status, reason) = try #require(await iterator.next())
        try? input.fileHandleForWriting.close()
        #expect(reason == .exit && status == 0)
        let lines = String(decoding: try Fixtures.bytes(outPath), as: UTF8.self).split(separator: "\n")
        let lastLine = try #require(lines.last)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any])
        #expect(last["event"] as? String == "stats")
        #expect(last["interrupted"] as? Bool == true)
        #expect(last["booksReported"] as? Int == 1)
    }

    @Test("empty input: a warning, a stats event with zero frames, exit 0")
    func emptyInput() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("empty", [])
        let run = try await F.run([], stdin: path, in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderrLines == ["shelfscan: warning: no frames: standard input is empty"])
        let events = try F.events(run)
        #expect(events.count == 1)
        #expect(try F.stats(events)["framesRead"] as? Int == 0)
    }

    @Test("bytes that are no frame format: an error naming the fix, exit 1")
    func unknownInput() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("text", Array(String(repeating: "plain text, not frames\n", count: 50).utf8))
        let run = try await F.run([], stdin: path, in: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("--size WxH"))
    }

    @Test("--format text: one line per book and a closing summary")
    func textFormat() async throws {
        let dir = try TemporaryDirectory()
        let stream = try F.stream([(F.nineteen84.0, 3)], output: ["-f", "yuv4mpegpipe"], in: dir, name: "s.y4m")
        let run = try await F.run(["--all-frames", "--no-ocr", "--format", "text"], stdin: stream, in: dir)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("ISBN 9780451524935") == true)
        #expect(lines.last?.hasPrefix("1 book; 3 frames read, 3 processed") == true)
    }

    @Test("--add puts confirmed books in the library")
    func addBooks() async throws {
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let stream = try F.stream([(F.odyssey.0, 3), (F.nineteen84.0, 3)], output: ["-f", "image2pipe", "-c:v", "mjpeg"], in: dir, name: "s.mjpeg")
        let run = try await F.run(["--all-frames", "--no-ocr", "--add", "--library", library, "--offline"], stdin: stream, in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let db = try LibraryDatabase.open(path: library)
        #expect(Set(try db.books(isbn13: [F.odyssey.1, F.nineteen84.1]).keys) == [F.odyssey.1, F.nineteen84.1])
    }

    @Test("OCR in the background: a front cover with no barcode is read and matched against the library")
    func coverByText() async throws {
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let db = try LibraryDatabase.open(path: library)
        _ = try db.add(Book(isbn: ISBN("9780340839935"), title: "Dune", authors: ["Frank Herbert"]))
        let stream = try F.stream([("covers/cover-dune.jpg", 6)], size: "960:1280",
                                  output: ["-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "3"], in: dir, name: "s.mjpeg")
        let run = try await F.run(["--all-frames", "--library", library, "--mode", "cover"], stdin: stream, in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let events = try F.events(run)
        #expect(F.books(events) == ["9780340839935"])
        #expect(events.first?["via"] as? String == "text")
        #expect(try F.stats(events)["ocrFrames"] as? Int ?? 0 >= 2)
    }
}
