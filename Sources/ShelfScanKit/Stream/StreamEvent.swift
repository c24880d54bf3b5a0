import Foundation

/// What a stream reports: a book as it is confirmed, and the figures when the stream ends.
public enum StreamEvent: Sendable {
    case book(BookSighting)
    case stats(StreamStats)

    /// One JSON object (no newline), the `--format jsonl` line.
    public var json: String {
        switch self {
        case .book(let b): ResultJSON.string(b)
        case .stats(let s): ResultJSON.string(s)
        }
    }

    /// One line for people (no newline).
    public var text: String {
        switch self {
        case .book(let b):
            let book = b.book
            let title = book.title ?? "(unknown title)"
            let by = book.authors.isEmpty ? "" : " by " + book.authors.joined(separator: ", ")
            let isbn = book.isbn13.map { "  ISBN \($0)" } ?? ""
            let place = book.inLibrary ? "in library #\(book.libraryId ?? 0)" : "not in library"
            return String(format: "frame %d  %7.2f s  ", b.frame, b.time) + "\(title)\(by)\(isbn)  [\(place)]  \(b.via.rawValue)"
                + String(format: "  %.0f ms", b.latencyMs)
        case .stats(let s):
            func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0) } ?? "-" }
            return "\(s.booksReported) book\(s.booksReported == 1 ? "" : "s"); \(s.framesRead) frames read, \(s.framesProcessed) processed, "
                + "\(s.framesDropped) dropped, \(s.framesSkipped) bad; " + String(format: "%.1f fps over %.1f s", s.fps, s.seconds)
                + "; latency p50 \(ms(s.latencyMs.p50)), p95 \(ms(s.latencyMs.p95)); OCR read \(s.ocrFrames) frame\(s.ocrFrames == 1 ? "" : "s")"
        }
    }
}

/// `{"event":"book", ...}`: a book confirmed in the stream.
public struct BookSighting: Encodable, Sendable {
    public enum Via: String, Encodable, Sendable { case barcode, text }
    /// The frame that confirmed it (1-based, counting every frame read).
    public let frame: Int
    /// Stream time of that frame, seconds.
    public let time: Double
    /// From the frame's arrival to this event, milliseconds.
    public let latencyMs: Double
    /// Which path confirmed it.
    public let via: Via
    /// The same model `shelfscan photo.jpg --format json` prints.
    public let book: BookEntity

    enum CodingKeys: String, CodingKey { case event, frame, time, latencyMs, via, book }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("book", forKey: .event)
        try c.encode(frame, forKey: .frame)
        try c.encode((time * 1000).rounded() / 1000, forKey: .time)
        try c.encode((latencyMs * 10).rounded() / 10, forKey: .latencyMs)
        try c.encode(via, forKey: .via)
        var rounded = book
        rounded.confidence = (book.confidence * 100).rounded() / 100
        try c.encode(rounded, forKey: .book)
    }
}

/// `{"event":"stats", ...}`: the closing figures of a stream.
public struct StreamStats: Encodable, Sendable {
    /// Percentiles in milliseconds (nil when there was nothing to measure).
    public struct Percentiles: Encodable, Sendable {
        public let p50: Double?
        public let p95: Double?
        public let count: Int

        init(_ h: LatencyHistogram) {
            p50 = h.percentile(0.5).map { ($0 * 10).rounded() / 10 }
            p95 = h.percentile(0.95).map { ($0 * 10).rounded() / 10 }
            count = h.count
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(p50, forKey: .p50)
            try c.encode(p95, forKey: .p95)
            try c.encode(count, forKey: .count)
        }

        enum CodingKeys: String, CodingKey { case p50, p95, count }
    }

    public let format: FrameFormat?
    public let width: Int?
    public let height: Int?
    /// Good frames cut from the input.
    public let framesRead: Int
    /// Frames whose barcodes were read.
    public let framesProcessed: Int
    /// Frames dropped unprocessed because a newer one arrived first (realtime mode).
    public let framesDropped: Int
    /// Bad frames skipped with a warning (truncated, wrong size, undecodable).
    public let framesSkipped: Int
    /// Frames handed to OCR.
    public let ocrFrames: Int
    public let booksReported: Int
    /// Wall time from the first frame's arrival to the end, seconds.
    public let seconds: Double
    /// Frames processed per second of `seconds`.
    public let fps: Double
    /// From a frame's arrival to its book event.
    public let latencyMs: Percentiles
    /// From a frame's arrival to the end of its barcode pass (every processed frame).
    public let frameLatencyMs: Percentiles
    /// True when the stream was stopped by Ctrl-C (SIGINT) rather than ending.
    public let interrupted: Bool

    enum CodingKeys: String, CodingKey {
        case event, format, width, height, framesRead, framesProcessed, framesDropped, framesSkipped, ocrFrames
        case booksReported, seconds, fps, latencyMs, frameLatencyMs, interrupted
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("stats", forKey: .event)
        try c.encode(format, forKey: .format)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(framesRead, forKey: .framesRead)
        try c.encode(framesProcessed, forKey: .framesProcessed)
        try c.encode(framesDropped, forKey: .framesDropped)
        try c.encode(framesSkipped, forKey: .framesSkipped)
        try c.encode(ocrFrames, forKey: .ocrFrames)
        try c.encode(booksReported, forKey: .booksReported)
        try c.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
        try c.encode((fps * 10).rounded() / 10, forKey: .fps)
        try c.encode(latencyMs, forKey: .latencyMs)
        try c.encode(frameLatencyMs, forKey: .frameLatencyMs)
        try c.encode(interrupted, forKey: .interrupted)
    }
}
