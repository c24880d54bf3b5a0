import Foundation

/// How frames are laid out in a stream.
public enum FrameFormat: String, Sendable, CaseIterable, Codable {
    /// Concatenated JPEG images (`ffmpeg -f image2pipe -c:v mjpeg -`).
    case mjpeg
    /// A sequence of binary PGM (P5) or PPM (P6) images (`-c:v pgm` / `-c:v ppm`).
    case pnm
    /// YUV4MPEG2 (`-f yuv4mpegpipe`): a header line, then `FRAME` lines each followed by planes.
    case y4m
    /// Headerless frames of a size given by the caller (`-f rawvideo -pix_fmt gray|rgb24`).
    case raw

    /// Recognises the format from the first bytes of a stream; nil when none matches.
    public static func sniff<C: Collection>(_ bytes: C) -> FrameFormat? where C.Element == UInt8 {
        let head = Array(bytes.prefix(10))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .mjpeg }
        if head.starts(with: Array("YUV4MPEG2".utf8)) { return .y4m }
        if head.count >= 3, head[0] == UInt8(ascii: "P"), head[1] == UInt8(ascii: "5") || head[1] == UInt8(ascii: "6"),
           FrameSplitter.isSpace(head[2]) {
            return .pnm
        }
        return nil
    }
}

/// The pixel layout of raw frames.
public enum RawPixelFormat: String, Sendable, CaseIterable, Codable {
    case gray, rgb24

    var bytesPerPixel: Int { self == .gray ? 1 : 3 }
}

/// A frame's pixels as they came off the stream: JPEG still encoded (decoding waits until the
/// frame is actually processed, so dropped frames cost nothing), everything else as gray bytes.
public enum FramePayload: Sendable {
    case jpeg([UInt8])
    case gray(GrayBytes)
}

/// One frame cut from the stream.
public struct SplitFrame: Sendable {
    /// 1-based position in the stream, counting bad frames too (the number warnings name).
    public let number: Int
    public let width: Int
    public let height: Int
    public let payload: FramePayload
}

/// Cuts a byte stream into frames, one format at a time, warning about (and skipping) garbage
/// between frames, truncated frames and frames whose size differs from the stream's.
public final class FrameSplitter {
    public let format: FrameFormat
    private let input: ByteInput
    private let warn: (String) -> Void
    /// The size of the first good frame (or the one announced by the header / the caller).
    public private(set) var frameSize: (width: Int, height: Int)?
    private var rawPixelFormat = RawPixelFormat.gray
    private var y4m: Y4MLayout?
    /// The number the next frame will get.
    private var nextNumber = 1
    /// Frames skipped as bad (truncated, wrong size, damaged).
    public private(set) var badFrames = 0
    /// Frames per second announced by the stream (Y4M), if any.
    public private(set) var announcedRate: Double?

    /// Splits `input`. `format` nil: recognised from the first bytes (skipping leading garbage);
    /// `rawSize` is required for `.raw`. Throws when the format cannot be recognised.
    public init(input: ByteInput, format: FrameFormat?, rawSize: (width: Int, height: Int)? = nil,
                rawPixelFormat: RawPixelFormat = .gray, warn: @escaping (String) -> Void) throws(ShelfScanError) {
        self.input = input
        self.warn = warn
        if let format {
            self.format = format
        } else if !input.ensure(1) {
            self.format = rawSize == nil ? .mjpeg : .raw  // empty input: any splitter reports no frames
        } else if let sniffed = Self.detect(input) {
            self.format = sniffed
        } else if rawSize != nil {
            self.format = .raw
        } else {
            throw ShelfScanError(.unsupportedFormat, "standard input: not MJPEG, PGM/PPM or Y4M frames; for raw frames give --size WxH and --pixel-format gray|rgb24")
        }
        if self.format == .raw {
            guard let rawSize, rawSize.width > 0, rawSize.height > 0 else {
                throw ShelfScanError(.invalidArgument, "raw frames need --size WxH (and --pixel-format gray|rgb24)")
            }
            frameSize = rawSize
            self.rawPixelFormat = rawPixelFormat
        }
        if self.format == .y4m { try readY4MHeader() }
    }

    /// The next good frame, or nil at the end of the stream.
    public func next() -> SplitFrame? {
        while true {
            guard input.ensure(1) else { return nil }
            let outcome: Outcome
            switch format {
            case .mjpeg: outcome = nextJPEG()
            case .pnm: outcome = nextPNM()
            case .y4m: outcome = nextY4M()
            case .raw: outcome = nextRaw()
            }
            switch outcome {
            case .end: return nil
            case .skipped: continue
            case .frame(let frame):
                if let size = frameSize, size != (frame.width, frame.height) {
                    badFrames += 1
                    warn("frame \(frame.number): \(frame.width)x\(frame.height), not the stream's \(size.width)x\(size.height); skipped")
                    continue
                }
                frameSize = (frame.width, frame.height)
                return frame
            }
        }
    }

    private enum Outcome { case frame(SplitFrame), skipped, end }

    private func claimNumber() -> Int {
        defer { nextNumber += 1 }
        return nextNumber
    }

    private func truncated(_ number: Int, have: Int, what: String) -> Outcome {
        badFrames += 1
        warn("frame \(number): truncated at the end of input (\(have) bytes of \(what)); skipped")
        input.skip(input.available)
        return .end
    }

    /// Skips bytes up to the next frame start that `find` locates, warning once; `.end` when none.
    private func resync(_ find: () -> Int?, why: String) -> Outcome? {
        let number = nextNumber
        if let offset = find() {
            if offset > 0 {
                warn("frame \(number): \(offset) bytes of \(why) before it skipped")
                input.skip(offset)
            }
            return nil
        }
        let junk = input.available
        input.skip(junk)
        if junk > 0 { warn("frame \(number): \(junk) bytes of \(why) at the end of input skipped") }
        return .end
    }

    // MARK: Detection

    /// Recognises the format at the start, or after garbage within the first 64 KB.
    private static func detect(_ input: ByteInput) -> FrameFormat? {
        // Only as many bytes as the signatures need: a live pipe may not send more for a while.
        input.ensure(10)
        if let format = FrameFormat.sniff(input.withAvailable { Array($0.prefix(10)) }) { return format }
        var best: (FrameFormat, Int)?
        let searches: [(FrameFormat, (Int) -> Int?)] = [
            (.mjpeg, { input.find([0xFF, 0xD8, 0xFF], within: $0) }),
            (.y4m, { input.find(Array("YUV4MPEG2".utf8), within: $0) }),
            (.pnm, { findPNMStart(input, within: $0) }),
        ]
        for (format, search) in searches {
            if let offset = search(best.map { $0.1 + 10 } ?? 64 << 10), offset < best?.1 ?? .max { best = (format, offset) }
        }
        return best?.0
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    static func findPNMStart(_ input: ByteInput, from: Int = 0, within limit: Int = .max) -> Int? {
        input.find([UInt8(ascii: "P")], from: from, within: limit) { i in
            guard let kind = input.byte(at: i + 1), kind == UInt8(ascii: "5") || kind == UInt8(ascii: "6"),
                  let space = input.byte(at: i + 2), isSpace(space),
                  let next = input.byte(at: i + 3) else { return false }
            return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) || next == UInt8(ascii: "#") || isSpace(next)
        }
    }

    // MARK: JPEG

    /// Walks one JPEG: marker segments by their lengths (so thumbnails inside APP1 are skipped
    /// whole), entropy-coded data until a real marker, until EOI.
    private func nextJPEG() -> Outcome {
        if !(input.byte(at: 0) == 0xFF && input.byte(at: 1) == 0xD8 && input.byte(at: 2) == 0xFF) {
            if let end = resync({ input.find([0xFF, 0xD8, 0xFF]) }, why: "garbage") { return end }
        }
        let number = claimNumber()
        var i = 2
        var width = 0, height = 0
        while true {
            guard let b = input.byte(at: i), let marker = input.byte(at: i + 1) else {
                return truncated(number, have: input.available, what: "JPEG")
            }
            guard b == 0xFF else { return damaged(number, at: i) }
            switch marker {
            case 0xFF: i += 1; continue  // fill byte
            case 0xD9:
                let bytes = input.take(i + 2)
                guard width > 0, height > 0 else {
                    badFrames += 1
                    warn("frame \(number): JPEG without a frame header; skipped")
                    return .skipped
                }
                return .frame(SplitFrame(number: number, width: width, height: height, payload: .jpeg(bytes)))
            case 0xD8:
                // A new image starts inside this one: this one was cut short.
                badFrames += 1
                warn("frame \(number): truncated (a new JPEG starts after \(i) bytes); skipped")
                input.skip(i)
                return .skipped
            case 0x01, 0xD0...0xD7: i += 2; continue
            default: break
            }
            guard let hi = input.byte(at: i + 2), let lo = input.byte(at: i + 3) else {
                return truncated(number, have: input.available, what: "JPEG")
            }
            let length = Int(hi) << 8 | Int(lo)
            guard length >= 2 else { return damaged(number, at: i) }
            let isSOF = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isSOF, length >= 7, let h1 = input.byte(at: i + 5), let h0 = input.byte(at: i + 6),
               let w1 = input.byte(at: i + 7), let w0 = input.byte(at: i + 8) {
                height = Int(h1) << 8 | Int(h0)
                width = Int(w1) << 8 | Int(w0)
            }
            i += 2 + length
            if marker == 0xDA {
                guard let end = entropyEnd(from: i) else {
                    return truncated(number, have: input.available, what: "JPEG")
                }
                i = end
            }
        }
    }

    /// The offset of the marker that ends entropy-coded data starting at `from` (byte stuffing
    /// `FF 00`, restart markers and fill bytes belong to the data); nil at the end of the stream.
    private func entropyEnd(from: Int) -> Int? {
        var i = from
        while true {
            if input.available < i + 2 && !input.ensure(i + 2) { return nil }
            let found: Int? = input.withAvailable { bytes in
                var j = i
                let last = bytes.count - 1
                while j < last {
                    if bytes[j] == 0xFF {
                        let next = bytes[j + 1]
                        if next != 0x00 && next != 0xFF && !(0xD0...0xD7).contains(next) { return j }
                        j += next == 0xFF ? 1 : 2
                    } else {
                        j += 1
                    }
                }
                i = j
                return nil
            }
            if let found { return found }
            // Wait for one more byte only: the frame must be cut as soon as its EOI arrives.
            if !input.ensure(max(i + 2, input.available + 1)) { return nil }
        }
    }

    private func damaged(_ number: Int, at offset: Int) -> Outcome {
        badFrames += 1
        warn("frame \(number): damaged JPEG structure at byte \(offset); skipped")
        input.skip(max(2, offset))
        return .skipped
    }

    // MARK: PGM / PPM

    private func nextPNM() -> Outcome {
        if FrameFormat.sniff(input.withAvailable { Array($0.prefix(3)) }) != .pnm || !input.ensure(3) {
            if let end = resync({ Self.findPNMStart(input) }, why: "garbage") { return end }
        }
        let number = claimNumber()
        let color = input.byte(at: 1) == UInt8(ascii: "6")
        var i = 2
        var fields: [Int] = []
        while fields.count < 3 {
            guard var b = input.byte(at: i) else { return truncated(number, have: input.available, what: "PNM header") }
            if b == UInt8(ascii: "#") {
                while let c = input.byte(at: i), c != 0x0A { i += 1 }
                i += 1
                continue
            }
            if Self.isSpace(b) { i += 1; continue }
            var value = 0
            var digits = 0
            while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b), digits < 7 {
                value = value * 10 + Int(b - UInt8(ascii: "0"))
                digits += 1
                i += 1
                guard let c = input.byte(at: i) else { return truncated(number, have: input.available, what: "PNM header") }
                b = c
            }
            guard digits > 0, digits < 7 else {
                badFrames += 1
                warn("frame \(number): unreadable PGM/PPM header; skipped")
                input.skip(2)
                return .skipped
            }
            fields.append(value)
        }
        i += 1  // the single whitespace byte after maxval
        let (width, height, maxval) = (fields[0], fields[1], fields[2])
        guard width > 0, height > 0, width * height <= 100_000_000, (1...65535).contains(maxval) else {
            badFrames += 1
            warn("frame \(number): PGM/PPM header says \(width)x\(height), maxval \(maxval); skipped")
            input.skip(2)
            return .skipped
        }
        let sampleBytes = maxval > 255 ? 2 : 1
        let channels = color ? 3 : 1
        let size = width * height * channels * sampleBytes
        guard input.ensure(i + size) else {
            return truncated(number, have: input.available, what: "\(i + size)")
        }
        input.skip(i)
        let gray = input.withAvailable { bytes in
            Self.gray(from: bytes, width: width, height: height, channels: channels, sampleBytes: sampleBytes, maxval: maxval)
        }
        input.skip(size)
        return .frame(SplitFrame(number: number, width: width, height: height, payload: .gray(gray)))
    }

    /// Luminance (BT.601 weights) of packed samples, big-endian when 16-bit, scaled to 0-255.
    static func gray(from bytes: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int,
                     sampleBytes: Int, maxval: Int = 255) -> GrayBytes {
        let count = width * height
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, n in
            if channels == 1 && sampleBytes == 1 {
                _ = out.initialize(from: bytes.prefix(count))
            } else if channels == 3 && sampleBytes == 1 {
                var s = 0
                for p in 0..<count {
                    let r = UInt32(bytes[s]), g = UInt32(bytes[s + 1]), b = UInt32(bytes[s + 2])
                    out[p] = UInt8(truncatingIfNeeded: (77 * r + 150 * g + 29 * b) >> 8)
                    s += 3
                }
            } else {
                for p in 0..<count {
                    var sum = 0
                    for c in 0..<channels {
                        let s = (p * channels + c) * sampleBytes
                        sum += Int(bytes[s]) << 8 | Int(bytes[s + 1])
                    }
                    out[p] = UInt8(min(255, sum / channels * 255 / maxval))
                }
            }
            n = count
        }
        if sampleBytes == 1 && maxval != 255 {
            return GrayBytes(width: width, height: height, pixels: pixels.map { UInt8(min(255, Int($0) * 255 / maxval)) })
        }
        return GrayBytes(width: width, height: height, pixels: pixels)
    }

    // MARK: Raw

    private func nextRaw() -> Outcome {
        let (width, height) = frameSize!
        let size = width * height * rawPixelFormat.bytesPerPixel
        let number = claimNumber()
        guard input.ensure(size) else {
            return truncated(number, have: input.available, what: "\(size)")
        }
        let gray = input.withAvailable { Self.gray(from: $0, width: width, height: height, channels: rawPixelFormat.bytesPerPixel, sampleBytes: 1) }
        input.skip(size)
        return .frame(SplitFrame(number: number, width: width, height: height, payload: .gray(gray)))
    }

    // MARK: Y4M

    /// Plane sizes from the stream header.
    struct Y4MLayout {
        let width: Int
        let height: Int
        let sampleBytes: Int
        /// Bytes after the Y plane (chroma, alpha).
        let otherBytes: Int

        init?(width: Int, height: Int, colorspace: String) {
            guard width > 0, height > 0 else { return nil }
            self.width = width
            self.height = height
            var tag = colorspace
            var bits = 8
            if tag.hasPrefix("mono") {
                bits = Int(tag.dropFirst(4)) ?? 8
                tag = "mono"
            } else if let p = tag.firstIndex(of: "p"), let depth = Int(tag[tag.index(after: p)...]) {
                bits = depth
                tag = String(tag[..<p])
            }
            sampleBytes = bits > 8 ? 2 : 1
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            let samples: Int
            switch tag {
            case "mono": samples = 0
            case "420", "420jpeg", "420mpeg2", "420paldv": samples = 2 * cw * ch
            case "422": samples = 2 * cw * height
            case "411": samples = 2 * ((width + 3) / 4) * height
            case "444": samples = 2 * width * height
            case "444alpha": samples = 3 * width * height
            default: return nil
            }
            otherBytes = samples * sampleBytes
        }
    }

    private func readY4MHeader() throws(ShelfScanError) {
        if let offset = input.find(Array("YUV4MPEG2".utf8), within: 64 << 10), offset > 0 {
            warn("frame 1: \(offset) bytes of garbage before the Y4M header skipped")
            input.skip(offset)
        }
        guard let line = readLine(limit: 4096), line.hasPrefix("YUV4MPEG2") else {
            throw ShelfScanError(.unsupportedFormat, "standard input: Y4M header missing or unreadable")
        }
        var width = 0, height = 0, colorspace = "420jpeg"
        for field in line.split(separator: " ").dropFirst() {
            let value = String(field.dropFirst())
            switch field.first {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "C": colorspace = value
            case "F":
                let parts = value.split(separator: ":").compactMap { Double($0) }
                if parts.count == 2, parts[0] > 0, parts[1] > 0 { announcedRate = parts[0] / parts[1] }
            default: break
            }
        }
        guard let layout = Y4MLayout(width: width, height: height, colorspace: colorspace) else {
            throw ShelfScanError(.unsupportedFormat, "standard input: Y4M header '\(line)' has no usable size or an unknown colour space C\(colorspace)")
        }
        y4m = layout
        frameSize = (width, height)
    }

    /// A line up to `\n` (consumed with it), or nil when none ends within `limit` bytes.
    private func readLine(limit: Int) -> String? {
        var i = 0
        while i < limit, let b = input.byte(at: i) {
            if b == 0x0A {
                let bytes = input.take(i + 1)
                return String(decoding: bytes.dropLast(), as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    private func nextY4M() -> Outcome {
        guard let layout = y4m else { return .end }
        let frameTag = Array("FRAME".utf8)
        let atFrame = input.ensure(6) && input.withAvailable { Array($0.prefix(5)) } == frameTag
            && (input.byte(at: 5) == 0x0A || input.byte(at: 5) == 0x20)
        if !atFrame {
            let found = { self.input.find(frameTag) { i in
                let b = self.input.byte(at: i + 5)
                return b == 0x0A || b == 0x20
            } }
            if let end = resync(found, why: "garbage") { return end }
        }
        let number = claimNumber()
        // FRAME may carry parameters; they do not change the plane sizes.
        guard readLine(limit: 4096) != nil else {
            return truncated(number, have: input.available, what: "Y4M frame header")
        }
        let ySize = layout.width * layout.height * layout.sampleBytes
        let size = ySize + layout.otherBytes
        guard input.ensure(size) else {
            return truncated(number, have: input.available, what: "\(size)")
        }
        let gray: GrayBytes
        if layout.sampleBytes == 1 {
            gray = GrayBytes(width: layout.width, height: layout.height, pixels: input.take(ySize))
            input.skip(layout.otherBytes)
        } else {
            // Little-endian samples of more than 8 bits: keep the top 8 (assumes 10-bit, the usual).
            let samples = input.take(ySize)
            var pixels = [UInt8](repeating: 0, count: layout.width * layout.height)
            for p in pixels.indices {
                pixels[p] = UInt8(min(255, (Int(samples[2 * p + 1]) << 8 | Int(samples[2 * p])) >> 2))
            }
            gray = GrayBytes(width: layout.width, height: layout.height, pixels: pixels)
            input.skip(layout.otherBytes)
        }
        return .frame(SplitFrame(number: number, width: layout.width, height: layout.height, payload: .gray(gray)))
    }
}
