import CLeptonica
import Foundation

/// `WIDTHxHEIGHT`, as `--size 640x480` gives it.
public struct FrameSize: Sendable, Equatable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `640x480`; nil unless both sides are positive whole numbers.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w * h <= 100_000_000 else { return nil }
        self.init(width: w, height: h)
    }
}

/// Options for scanning a stream of frames.
public struct StreamOptions: Sendable {
    /// The frame layout; nil: recognised from the first bytes.
    public var format: FrameFormat?
    /// Raw frames: their size and pixel format (giving a size implies raw frames).
    public var rawSize: FrameSize?
    public var rawPixelFormat = RawPixelFormat.gray
    /// Frames a book must be seen in before it is reported.
    public var confirmations = 2
    /// Seconds of stream time out of view after which a book may be reported again.
    public var forgetAfter = 10.0
    /// True: keep up with a live source by dropping stale frames. False: process every frame.
    public var realtime = true
    /// Read text (spines, covers) on selected frames in the background.
    public var ocr = true
    /// The stream's frame rate, which sets stream time (frame number / rate). Nil: the rate a Y4M
    /// header announces; else wall-clock time since the first frame in realtime mode, and 30 fps
    /// when every frame is processed (a file has no clock of its own).
    public var frameRate: Double?
    /// The barcode reader's retry passes (for blur, tilt, glare) run on at most one frame in this
    /// many when the direct pass finds nothing: on a scene with barcode-like stripes and no code they
    /// cost 5-8 times the direct pass, and the next frames show the same scene anyway. 1: every frame.
    public var retryEvery = 3
    /// Barcode options and, for the text path, the mode (`.auto`, `.shelf`, `.cover`) and tessdata.
    public var scan = ScanOptions()

    public init() {
        // Video frames: the direct pass and one region retry, not the whole-image remedies that
        // cost tens of milliseconds on frames without a barcode (most of them).
        scan.barcodes.maxRegions = 1
        scan.barcodes.wholeImageRetryPixels = 0
    }
}

/// Finds books in a stream of frames: barcodes on every processed frame, text on selected frames
/// in the background, each book reported once after it is confirmed.
///
/// Three threads: a reader cuts frames from the input and hands over the newest (older unprocessed
/// frames are dropped in realtime mode); the caller's thread reads barcodes; an OCR thread reads
/// the newest frame worth it, one at a time, so barcode latency never waits for OCR.
///
/// `@unchecked Sendable`: the mutable state (tracker, counters, histograms, `finished`) is only
/// touched while `lock` is held; events are emitted under the same lock, so they never interleave.
public final class StreamScanner: @unchecked Sendable {
    public let options: StreamOptions
    private let library: LibraryDatabase?
    private let textScanner: ShelfScanner?
    private let onEvent: @Sendable (StreamEvent) -> Void
    private let onWarning: @Sendable (String) -> Void

    private let lock = NSLock()
    private var tracker: SightingTracker
    private var bookLatency = LatencyHistogram()
    private var frameLatency = LatencyHistogram()
    private var framesRead = 0
    private var framesProcessed = 0
    private var framesSkipped = 0
    private var ocrFrames = 0
    private var booksReported = 0
    private var firstArrival: ContinuousClock.Instant?
    private var finished = false
    private var ocrWantsAnotherLook = false
    private var ocrSelector = OCRFrameSelector()
    private var format: FrameFormat?
    private var frameSize: (width: Int, height: Int)?
    private var frames: FrameMailbox<TimedFrame>?

    /// `onEvent` and `onWarning` (one line, no prefix) are called from the scanner's threads, one
    /// at a time.
    public init(options: StreamOptions, library: LibraryDatabase?,
                onEvent: @escaping @Sendable (StreamEvent) -> Void, onWarning: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.library = library
        self.onEvent = onEvent
        self.onWarning = onWarning
        tracker = SightingTracker(confirmations: options.confirmations, forgetAfter: options.forgetAfter)
        if options.ocr && options.scan.mode != .barcode {
            textScanner = ShelfScanner(options: options.scan, library: library)
        } else {
            textScanner = nil
        }
        Leptonica.silence()
    }

    struct TimedFrame: Sendable {
        let frame: SplitFrame
        let arrival: ContinuousClock.Instant
        /// Stream time, seconds.
        let time: Double
    }

    struct OCRJob: Sendable {
        let number: Int
        let arrival: ContinuousClock.Instant
        let time: Double
        let image: PixImage
        let quality: FrameQuality
    }

    /// Reads `input` to its end, emitting events, and returns the closing figures (also emitted as
    /// the last event). Blocks the calling thread. Throws only when the stream's format cannot be
    /// recognised; bad frames are warnings.
    @discardableResult
    public func run(input: ByteInput) throws(ShelfScanError) -> StreamStats {
        let warn = onWarning
        if !input.ensure(1) { warn("no frames: standard input is empty") }
        let splitter = try FrameSplitter(
            input: input, format: options.format, rawSize: options.rawSize.map { ($0.width, $0.height) },
            rawPixelFormat: options.rawPixelFormat, warn: warn)
        lock.withLock { format = splitter.format }
        let rate = options.frameRate ?? splitter.announcedRate ?? (options.realtime ? nil : 30)

        let mailbox = options.realtime ? FrameMailbox<TimedFrame>(capacity: 1, policy: .newest)
                                       : FrameMailbox<TimedFrame>(capacity: 2, policy: .every)
        lock.withLock { frames = mailbox }
        let readerDone = DispatchSemaphore(value: 0)
        let handoff = SplitterHandoff(splitter)
        let reader = Thread { [self] in
            let splitter = handoff.splitter
            var first: ContinuousClock.Instant?
            var badSoFar = 0
            while let frame = splitter.next() {
                let now = ContinuousClock.now
                if first == nil { first = now }
                let time = rate.map { Double(frame.number - 1) / $0 } ?? (now - first!).seconds
                lock.withLock {
                    framesRead += 1
                    framesSkipped += splitter.badFrames - badSoFar
                    if firstArrival == nil { firstArrival = now }
                }
                badSoFar = splitter.badFrames
                if !mailbox.put(TimedFrame(frame: frame, arrival: now, time: time)) { break }
            }
            lock.withLock { framesSkipped += splitter.badFrames - badSoFar }
            mailbox.close()
            readerDone.signal()
        }
        reader.name = "shelfscan stream reader"
        reader.start()

        let ocrMailbox = FrameMailbox<OCRJob>(capacity: 1, policy: .newest)
        let ocrDone = DispatchSemaphore(value: 0)
        if let textScanner {
            let ocrThread = Thread { [self] in
                while let job = ocrMailbox.take() {
                    let run = lock.withLock {
                        guard ocrSelector.shouldRead(job.quality, wantsAnotherLook: ocrWantsAnotherLook) else { return false }
                        ocrFrames += 1
                        ocrWantsAnotherLook = false
                        return true
                    }
                    guard run else { continue }
                    let loaded = LoadedImage(name: "frame \(job.number)", format: .pnm, orientation: nil, image: job.image)
                    let result = textScanner.scan(loaded)
                    if let error = result.error {
                        warn("frame \(job.number): text not read: \(error.message)")
                        continue
                    }
                    record(result.books, frame: job.number, time: job.time, arrival: job.arrival, via: .text, fromOCR: true)
                }
                ocrDone.signal()
            }
            ocrThread.name = "shelfscan stream OCR"
            ocrThread.stackSize = 16 << 20
            ocrThread.start()
        } else {
            ocrDone.signal()
        }

        let thorough = BarcodeReader(options: options.scan.barcodes)
        var quick = thorough
        quick.options.retries = false
        var sinceRetry = Int.max
        let ranker = BookRanker(library: library)
        while let timed = mailbox.take() {
            if isFinished { break }
            let number = timed.frame.number
            let image: PixImage
            do {
                image = try Self.decode(timed.frame)
            } catch {
                lock.withLock { framesSkipped += 1 }
                warn("frame \(number): \(error.message); skipped")
                continue
            }
            var books: [BookEntity] = []
            do {
                var codes = try quick.read(image).barcodes
                sinceRetry = sinceRetry == .max ? .max : sinceRetry + 1
                if codes.isEmpty && thorough.options.retries && sinceRetry >= options.retryEvery {
                    sinceRetry = 0
                    codes = try thorough.read(image).barcodes
                }
                books = try ranker.books(from: codes)
            } catch {
                warn("frame \(number): barcodes not read: \(error.message)")
            }
            record(books, frame: number, time: timed.time, arrival: timed.arrival, via: .barcode, fromOCR: false)
            lock.withLock {
                framesProcessed += 1
                frameLatency.record(milliseconds: (ContinuousClock.now - timed.arrival).milliseconds)
                if frameSize == nil { frameSize = (timed.frame.width, timed.frame.height) }
            }
            // Text only where no barcode settled the frame, and only on frames worth the seconds.
            if textScanner != nil && books.isEmpty, let gray = try? Self.gray(of: timed.frame, image: image) {
                let quality = FrameQuality(gray)
                if lock.withLock({ ocrSelector.offer(quality) }) {
                    ocrMailbox.put(OCRJob(number: number, arrival: timed.arrival, time: timed.time, image: image, quality: quality))
                }
            }
        }
        ocrMailbox.close()
        ocrDone.wait()
        readerDone.wait()
        return finish(interrupted: false) ?? stats(interrupted: false)
    }

    /// Stops reporting (Ctrl-C): emits the stats event, unless the stream already ended, and
    /// returns it. Later events are suppressed; the caller is expected to exit.
    @discardableResult
    public func interrupt() -> StreamStats? {
        let stats = finish(interrupted: true)
        lock.withLock { frames }?.close()
        return stats
    }

    private var isFinished: Bool { lock.withLock { finished } }

    private func finish(interrupted: Bool) -> StreamStats? {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return nil }
        finished = true
        let figures = statsLocked(interrupted: interrupted)
        onEvent(.stats(figures))
        return figures
    }

    private func stats(interrupted: Bool) -> StreamStats {
        lock.withLock { statsLocked(interrupted: interrupted) }
    }

    private func statsLocked(interrupted: Bool) -> StreamStats {
        let seconds = firstArrival.map { (ContinuousClock.now - $0).seconds } ?? 0
        let dropped = frames?.droppedCount ?? 0
        return StreamStats(
            format: format, width: frameSize?.width, height: frameSize?.height,
            framesRead: framesRead, framesProcessed: framesProcessed, framesDropped: dropped, framesSkipped: framesSkipped,
            ocrFrames: ocrFrames, booksReported: booksReported, seconds: seconds,
            fps: seconds > 0 ? Double(framesProcessed) / seconds : 0,
            latencyMs: .init(bookLatency), frameLatencyMs: .init(frameLatency), interrupted: interrupted)
    }

    /// The key a book is tracked by: its ISBN, else its title.
    static func key(_ book: BookEntity) -> String? {
        if let isbn = book.isbn13 { return isbn }
        return book.title.map { "title:" + $0.lowercased() }
    }

    private func record(_ books: [BookEntity], frame: Int, time: Double, arrival: ContinuousClock.Instant,
                        via: BookSighting.Via, fromOCR: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        let keyed = books.compactMap { b in Self.key(b).map { ($0, b) } }
        let confirmed = tracker.observe(keyed.map(\.0), frame: frame, time: time)
        if fromOCR { ocrWantsAnotherLook = keyed.contains { tracker.isPending($0.0) } }
        for key in confirmed {
            guard let book = keyed.first(where: { $0.0 == key })?.1 else { continue }
            let latency = (ContinuousClock.now - arrival).milliseconds
            bookLatency.record(milliseconds: latency)
            booksReported += 1
            let how: BookSighting.Via = book.evidence.contains { $0.kind == .barcode } ? .barcode : via
            onEvent(.book(BookSighting(frame: frame, time: time, latencyMs: latency, via: how, book: book)))
        }
    }

    // MARK: Pixels

    /// The frame as an 8-bit Leptonica image (JPEG decoded to luminance only: the chroma would be
    /// thrown away by the barcode reader anyway).
    static func decode(_ frame: SplitFrame) throws(ShelfScanError) -> PixImage {
        switch frame.payload {
        case .jpeg(let bytes):
            var warnings: Int32 = 0
            let pix = bytes.withUnsafeBufferPointer {
                pixReadMemJpeg($0.baseAddress, $0.count, 0, 1, &warnings, Int32(L_JPEG_READ_LUMINANCE))
            }
            return try PixImage.wrap(pix, "JPEG data is corrupt")
        case .gray(let gray):
            return try PixImage(gray: gray)
        }
    }

    /// Gray bytes of a frame, for the OCR frame selector.
    static func gray(of frame: SplitFrame, image: PixImage) throws(ShelfScanError) -> GrayBytes {
        if case .gray(let g) = frame.payload { return g }
        return try image.grayBytes()
    }
}

/// Moves the splitter (and its input) to the reader thread.
///
/// `@unchecked Sendable`: after the reader thread starts, only that thread touches the splitter.
private final class SplitterHandoff: @unchecked Sendable {
    let splitter: FrameSplitter
    init(_ splitter: FrameSplitter) { self.splitter = splitter }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
