import ArgumentParser
import Dispatch
import Foundation
import ShelfScanKit

/// `shelfscan stream`: books in camera frames piped on standard input, each reported once.
struct Stream: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report books in a stream of frames on standard input (webcam, screen recording, video file).",
        discussion: """
            Frames: concatenated JPEG (ffmpeg -f image2pipe -c:v mjpeg -), PGM/PPM (-c:v pgm|ppm), \
            Y4M (-f yuv4mpegpipe), or raw frames with --size WxH --pixel-format gray|rgb24.
            Example: ffmpeg -f v4l2 -i /dev/video0 -f image2pipe -c:v mjpeg - | shelfscan stream
            """)

    enum Format: String, ExpressibleByArgument { case text, jsonl }

    @Option(name: .shortAndLong, help: "Output: jsonl (one event per line; the default when standard output is not a terminal) or text.")
    var format: Format?

    @Option(name: .customLong("input-format"), help: "Frame layout: mjpeg, pnm, y4m or raw (default: recognised from the first bytes).")
    var inputFormat: FrameFormat?

    @Option(help: ArgumentHelp("Raw frames' size, e.g. 640x480 (implies raw frames).", valueName: "WxH"))
    var size: String?

    @Option(help: "Raw frames' pixels: gray or rgb24.")
    var pixelFormat: RawPixelFormat = .gray

    @Option(help: "Frames a book must be seen in before it is reported.")
    var confirm = 2

    @Option(help: ArgumentHelp("Seconds (of stream time) out of view after which a book may be reported again.", valueName: "seconds"))
    var forgetAfter = 10.0

    @Option(help: ArgumentHelp("true: drop stale frames to keep up with a live source; false: process every frame (files).", valueName: "bool"))
    var realtime = true

    @Flag(help: "Process every frame, dropping none (same as --realtime false).")
    var allFrames = false

    @Option(help: ArgumentHelp("The stream's frame rate, for stream time (default: Y4M's own, else the clock; 30 with --all-frames).", valueName: "fps"))
    var fps: Double?

    @Option(help: ArgumentHelp("Run the barcode retry passes on at most one frame in N that the direct pass finds nothing in (1: every frame).", valueName: "N"))
    var retryEvery = 3

    @Flag(help: "Barcodes only: no text recognition.")
    var noOcr = false

    @Option(help: "What the text path reads: auto, shelf (spines) or cover.")
    var mode: ScanMode = .auto

    @Option(help: ArgumentHelp("Folder holding eng.traineddata (default: the project's Models/).", valueName: "dir"))
    var tessdata: String?

    @Option(help: ReadBudgetArgument.help)
    var readBudget: ReadBudgetArgument?

    @Flag(help: "Add confirmed books to the library (described by the catalogues when they can be).")
    var add = false

    @OptionGroup var library: LibraryOptions

    @OptionGroup var lookups: MetadataArguments

    func validate() throws {
        if confirm < 1 { throw ValidationError("--confirm must be at least 1") }
        if retryEvery < 1 { throw ValidationError("--retry-every must be at least 1") }
        if forgetAfter < 0 { throw ValidationError("--forget-after must not be negative") }
        if let fps, fps <= 0 { throw ValidationError("--fps must be positive") }
        if let size, FrameSize(parsing: size) == nil { throw ValidationError("--size: '\(size)' is not WIDTHxHEIGHT, e.g. 640x480") }
        if inputFormat == .raw && size == nil { throw ValidationError("raw frames need --size WxH") }
    }

    func run() async throws {
        var options = StreamOptions()
        options.scan.indexCache = IndexCache.standard()
        options.format = inputFormat ?? (size != nil ? .raw : nil)
        options.rawSize = size.flatMap(FrameSize.init(parsing:))
        options.rawPixelFormat = pixelFormat
        options.confirmations = confirm
        options.forgetAfter = forgetAfter
        options.realtime = realtime && !allFrames
        options.frameRate = fps
        options.retryEvery = retryEvery
        options.ocr = !noOcr
        options.scan.mode = mode
        if let readBudget { options.scan.readBudget = readBudget.seconds }
        if let tessdata {
            do { options.scan.tessdata = try ModelLocator.tessdata(explicit: tessdata) } catch { throw CLIError(error.message) }
        }
        if options.ocr, mode != .barcode, let warning = ModelLocator.secondModelWarning(explicit: options.scan.tessdata) {
            StandardError.line("shelfscan: warning: \(warning)")
        }
        let db = add ? try library.open() : try library.openIfPresent()
        let asText = format.map { $0 == .text } ?? (isatty(1) == 1)

        // --add: confirmed books go to a task that adds them while the stream goes on.
        let (additions, addQueue) = AsyncStream<BookEntity>.makeStream()
        var adder: Task<Void, Never>?
        if add, let db {
            let metadata = await MetadataService(options: lookups.options, cache: db)
            let enricher = LibraryEnricher(library: db, metadata: metadata)
            adder = Task {
                for await book in additions {
                    guard let isbn = book.isbn13.flatMap({ ISBN($0) }) else { continue }
                    do {
                        StandardError.line("shelfscan: \(AddReport.line(try await enricher.add(isbn: isbn)))")
                    } catch {
                        StandardError.line("shelfscan: error: could not add ISBN \(isbn.isbn13): \(CLIError(describing: error).description)")
                    }
                }
            }
        }

        let scanner = StreamScanner(
            options: options, library: db,
            onEvent: { event in
                Self.emit(asText ? event.text : event.json)
                if add, case .book(let sighting) = event, !sighting.book.inLibrary { addQueue.yield(sighting.book) }
            },
            onWarning: { StandardError.line("shelfscan: warning: \($0)") })

        // Ctrl-C: the stats event, then exit 0. The source is kept alive by this scope.
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        // Weak: Dispatch releases a handler on one of its threads after `cancel`, and the
        // scanner's last reference (its Tesseract engines) must go here, not race `exit`.
        interrupt.setEventHandler { [weak scanner] in
            scanner?.interrupt()
            // _exit, not exit: the OCR thread may be inside Tesseract, whose static destructors
            // must not run under it. Events went straight to the descriptor; nothing is buffered.
            _exit(0)
        }
        interrupt.resume()
        defer { interrupt.cancel() }

        let outcome: Result<StreamStats, ShelfScanError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(ShelfScanError) {
                    continuation.resume(returning: .success(try scanner.run(input: ByteInput(fileDescriptor: 0))))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.stackSize = 16 << 20
            thread.start()
        }
        addQueue.finish()
        await adder?.value
        if case .failure(let error) = outcome { throw CLIError(error.message) }
    }

    /// Writes one line straight to the descriptor: events must not wait in a buffer. A reader
    /// that has gone away (EPIPE) ends the stream.
    static func emit(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { Foundation.exit(0) }
            offset += n
        }
    }
}

extension FrameFormat: ExpressibleByArgument {}
extension RawPixelFormat: ExpressibleByArgument {}
