import Foundation

/// What kind of photo to expect, which decides the stages a scan runs.
public enum ScanMode: String, Sendable, CaseIterable, Codable {
    /// Decide from the image: barcodes first; text (spines, stacks, covers) when no book barcode settles it.
    case auto
    /// A shelf or a stack: spines are found and read.
    case shelf
    /// A front cover: the large horizontal text is read.
    case cover
    /// Barcodes only (the fast path: no text recognition).
    case barcode
}

/// Options for a scan.
public struct ScanOptions: Sendable {
    public var mode: ScanMode = .auto
    public var barcodes = BarcodeOptions()
    /// Folder holding the Tesseract model (nil: the project's Models/, see `ModelLocator`).
    public var tessdata: String?
    /// Text matches scoring below this are not reported as books (see the README's calibration;
    /// `SHELFSCAN_MIN_SCORE`, for measuring).
    public var minimumMatchScore = Double(ProcessInfo.processInfo.environment["SHELFSCAN_MIN_SCORE"] ?? "") ?? 0.6
    /// Books reported per image at most (nil: all), and the lowest confidence reported.
    public var top: Int?
    public var minimumConfidence = 0.0
    public var limits = ImageLimits()
    /// Images scanned at once (one worker per core by default).
    public var concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Seconds of recognition per OCR worker one image may spend beyond its first readings
    /// (`ReadBudget`); nil: no limit. `SHELFSCAN_READ_BUDGET` (seconds or `off`) sets the default.
    public var readBudget: Double? = ReadBudget.seconds(from: ProcessInfo.processInfo.environment, fallback: nil)
    /// Where the title matcher's index of the library is kept between runs (nil: built every run).
    public var indexCache: IndexCache?

    public init() {}
}

/// The scan pipeline: image -> barcodes -> ISBNs -> library lookup -> ranked books.
public struct ShelfScanner: Sendable {
    public let options: ScanOptions
    /// The library books are looked up in; nil means "no library": every book is reported as not in it.
    public let library: LibraryDatabase?
    /// Catalogue lookups for books the library does not describe; nil: none.
    public let metadata: MetadataService?

    /// Tesseract engines and the title matcher, made on first use and shared by every scan.
    let text: TextResources

    public init(options: ScanOptions = ScanOptions(), library: LibraryDatabase?, metadata: MetadataService? = nil) {
        self.options = options
        self.library = library
        self.metadata = metadata
        self.text = TextResources(tessdata: options.tessdata, library: library, indexCache: options.indexCache)
    }

    /// Fills in title, authors and the rest for books known only by ISBN, from the catalogues
    /// (through the cache). Books the lookups cannot describe stay as they are.
    public func describe(_ result: ImageResult) async -> ImageResult {
        guard let metadata else { return result }
        let unknown = result.books.filter { $0.title == nil }.compactMap(\.isbn13)
        guard !unknown.isEmpty else { return result }
        let start = ContinuousClock.now
        let outcomes = await metadata.lookup(isbns: unknown)
        var books = result.books
        for i in books.indices {
            guard books[i].title == nil, let isbn = books[i].isbn13, case .found(let m)? = outcomes[isbn] else { continue }
            books[i].title = m.title
            books[i].subtitle = books[i].subtitle ?? m.subtitle
            if books[i].authors.isEmpty { books[i].authors = m.authors }
            books[i].publisher = books[i].publisher ?? m.publisher
            books[i].year = books[i].year ?? m.year
            books[i].coverURL = books[i].coverURL ?? m.coverURL
            books[i].source = m.sources.first?.rawValue
        }
        var timings = result.timings
        timings.lookup = start.millisecondsElapsed
        timings.total += timings.lookup
        var described = result
        described.books = books
        described.timings = timings
        described.lookupProblems = outcomes.values.compactMap {
            if case .unavailable(let why) = $0 { return why } else { return nil }
        }
        return described
    }

    /// Scans one image file. Never throws: a failure is reported in the result's `error`.
    public func scan(path: String) -> ImageResult {
        let start = ContinuousClock.now
        text.workers.beginPhoto()
        defer { text.workers.endPhoto() }
        // The matcher is built while the photo is decoded and first read (`PendingMatcher`).
        if options.mode != .barcode {
            text.matchers()
            text.workers.prewarm()
        }
        var timings = StageTimings()
        let loaded: LoadedImage
        do {
            loaded = try ImageLoader(limits: options.limits).load(path: path)
        } catch {
            timings.decode = start.millisecondsElapsed
            timings.total = timings.decode
            return ImageResult(image: path, width: 0, height: 0, format: nil, orientation: nil, books: [], barcodes: [],
                               error: ScanFailure(error), timings: timings)
        }
        timings.decode = start.millisecondsElapsed
        return scan(loaded, timings: timings, start: start)
    }

    /// Scans an already decoded image (a frame from a stream, an image in memory).
    public func scan(_ loaded: LoadedImage) -> ImageResult {
        text.workers.beginPhoto()
        defer { text.workers.endPhoto() }
        return scan(loaded, timings: StageTimings(), start: .now)
    }

    private func scan(_ loaded: LoadedImage, timings: StageTimings, start: ContinuousClock.Instant) -> ImageResult {
        var timings = timings
        let image = loaded.image
        func failed(_ error: ShelfScanError) -> ImageResult {
            timings.total = start.millisecondsElapsed
            return ImageResult(image: loaded.name, width: image.width, height: image.height, format: loaded.format,
                               orientation: loaded.orientation, books: [], barcodes: [],
                               error: ScanFailure(error), timings: timings)
        }
        // The spines are found on the other core while the barcodes are read (wasted when a
        // barcode settles the photo: about 40 ms of that core on a 12 MP photo).
        let findSpines = options.mode == .auto || options.mode == .shelf
        let barcodeSlot = ResultSlots<(Result<BarcodeReadout, ShelfScanError>, Double)>(count: 1)
        let spineSlot = ResultSlots<(Result<SpineFinder.Layout, ShelfScanError>, Double)>(count: 1)
        let barcodeOptions = options.barcodes
        DispatchQueue.concurrentPerform(iterations: findSpines ? 2 : 1) { i in
            let clock = ContinuousClock.now
            if i == 0 {
                let r = Result<BarcodeReadout, ShelfScanError> { () throws(ShelfScanError) in try BarcodeReader(options: barcodeOptions).read(image) }
                barcodeSlot.set(0, (r, clock.millisecondsElapsed))
            } else {
                let r = Result<SpineFinder.Layout, ShelfScanError> { () throws(ShelfScanError) in try SpineFinder().spines(in: image) }
                spineSlot.set(0, (r, clock.millisecondsElapsed))
            }
        }
        let readout: BarcodeReadout
        switch barcodeSlot.values[0]! {
        case (.success(let r), let ms): readout = r; timings.barcodes = ms
        case (.failure(let error), _): return failed(ShelfScanError(error.code, "\(loaded.name): \(error.message)"))
        }

        let stage = ContinuousClock.now
        var books: [BookEntity]
        do {
            books = try BookRanker(library: library).books(from: readout.barcodes)
        } catch {
            return failed(error)
        }
        timings.matching = stage.millisecondsElapsed

        // Text: always unless barcodes only were asked for. In auto mode any verified barcode
        // settles it: the photo is a back cover or a product (a magazine, a grocery item), where
        // there are no spines and a blurb's words would only add noise. `--mode shelf|cover`
        // reads the text anyway.
        var unidentified: [UnidentifiedText] = []
        var regions: [BoundingBox] = []
        var outlines: [[Point]?] = []
        var lines: [ReadLine] = []
        let settledByBarcode = options.mode == .auto && !readout.barcodes.isEmpty
        if options.mode != .barcode && !settledByBarcode {
            do {
                var stage = TextStage(workers: text.workers, matchers: text.matchers(), minimumScore: options.minimumMatchScore)
                stage.reader.budget = options.readBudget.map { ReadBudget(seconds: $0, workers: text.workers.size) }
                var spines: (layout: SpineFinder.Layout, milliseconds: Double)?
                if let (found, ms) = spineSlot.values[0] { spines = (try found.get(), ms) }
                let found = try stage.run(image, mode: options.mode, spines: spines)
                timings.regions = found.regionsMilliseconds
                timings.ocr = found.ocrMilliseconds
                timings.matching += found.matchingMilliseconds
                books = Self.merge(barcodeBooks: books, textBooks: found.books)
                unidentified = found.unidentified
                regions = found.regions.map(\.box)
                outlines = found.regions.map(\.outline)
                lines = found.lines
            } catch {
                return failed(ShelfScanError(error.code, "\(loaded.name): \(error.message)"))
            }
        }
        books = books.filter { $0.confidence >= options.minimumConfidence }
        // Only now: while the text stage decides, each line read is known by its own box. Lines
        // matched with a book's but bearing no trace of it are not shown as its evidence.
        for i in books.indices { books[i].evidence = TextStage.FoundWords(books[i]).telling(Evidence.distinct(books[i].evidence)) }
        if let top = options.top { books = Array(books.prefix(max(0, top))) }
        timings.total = start.millisecondsElapsed
        var result = ImageResult(image: loaded.name, width: image.width, height: image.height, format: loaded.format,
                                 orientation: loaded.orientation, books: books, barcodes: readout.barcodes,
                                 unidentified: unidentified, error: nil, timings: timings)
        result.regions = regions
        result.regionOutlines = outlines
        result.lines = lines
        return result
    }

    /// Barcode books first; a book also read as text gains that evidence instead of appearing twice.
    static func merge(barcodeBooks: [BookEntity], textBooks: [BookEntity]) -> [BookEntity] {
        var merged = barcodeBooks
        for book in textBooks {
            if let isbn = book.isbn13, let i = merged.firstIndex(where: { $0.isbn13 == isbn }) {
                merged[i].evidence += book.evidence
                merged[i].confidence = max(merged[i].confidence, book.confidence)
                if merged[i].title == nil { merged[i].title = book.title; merged[i].authors = book.authors }
            } else {
                merged.append(book)
            }
        }
        return merged.sorted { $0.confidence > $1.confidence }
    }

    /// Scans many files, `options.concurrency` at a time, yielding results in input order.
    /// One bad file never stops the others.
    public func scan(paths: [String]) -> AsyncStream<ImageResult> {
        let width = max(1, options.concurrency)
        return AsyncStream { continuation in
            let task = Task {
                await withTaskGroup(of: (Int, ImageResult).self) { group in
                    var next = 0
                    var pending: [Int: ImageResult] = [:]
                    var emitted = 0
                    func launch() {
                        let index = next
                        let path = paths[index]
                        group.addTask { (index, await self.describe(self.scan(path: path))) }
                        next += 1
                    }
                    while next < paths.count && next < width { launch() }
                    for await (index, result) in group {
                        pending[index] = result
                        while let ready = pending.removeValue(forKey: emitted) {
                            continuation.yield(ready)
                            emitted += 1
                        }
                        if next < paths.count && !Task.isCancelled { launch() }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Turns verified book barcodes into ranked book entities, looked up in the library.
struct BookRanker {
    let library: LibraryDatabase?

    func books(from barcodes: [Barcode]) throws(ShelfScanError) -> [BookEntity] {
        let bookCodes = barcodes.filter { $0.isbn13 != nil }
        guard !bookCodes.isEmpty else { return [] }
        let known = try library?.books(isbn13: bookCodes.compactMap(\.isbn13)) ?? [:]
        var seen: [String: Int] = [:]
        var entities: [BookEntity] = []
        for code in bookCodes {
            let isbn13 = code.isbn13!
            if let index = seen[isbn13] {
                // The same book twice in one photo (two copies, or one barcode read twice): one entity.
                entities[index].evidence.append(Evidence(barcode: code))
                continue
            }
            let row = known[isbn13]
            let inLibrary = row?.owned ?? false
            seen[isbn13] = entities.count
            let title = row.flatMap { $0.title.isEmpty ? nil : $0.title }
            entities.append(BookEntity(
                title: title, subtitle: row?.subtitle,
                authors: row?.authors ?? [], isbn13: isbn13, isbn10: code.isbn10,
                inLibrary: inLibrary, libraryId: inLibrary ? row?.id : nil,
                readingStatus: inLibrary ? row?.readingStatus : nil,
                source: title == nil ? nil : "library", publisher: row?.publisher, year: row?.year, coverURL: row?.coverURL,
                confidence: Self.confidence(code), evidence: [Evidence(barcode: code)]))
        }
        // Best first: confidence, then the larger (nearer, more central) barcode.
        return entities.sorted {
            if $0.confidence != $1.confidence { return $0.confidence > $1.confidence }
            let a = $0.evidence[0].box, b = $1.evidence[0].box
            return a.width * a.height > b.width * b.height
        }
    }

    /// A verified check digit seen by several scan lines is almost never wrong; a single-line
    /// decode is the kind ZBar occasionally gets wrong with a valid checksum.
    static func confidence(_ code: Barcode) -> Double {
        code.scanLines >= 3 ? 0.99 : (code.scanLines == 2 ? 0.95 : 0.85)
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds from this instant to now.
    var millisecondsElapsed: Double {
        let d = ContinuousClock.now - self
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

/// What the text stage keeps between images: one Tesseract engine per worker and the title
/// matcher over the library (built once: loading a large catalogue costs more than one photo).
///
/// `@unchecked Sendable`: `cached` is only touched under `lock`; `OCRWorkers` and `BookMatcher`
/// are themselves safe to share.
final class TextResources: @unchecked Sendable {
    let workers: OCRWorkers
    private let library: LibraryDatabase?
    private let lock = NSLock()
    private var pending: PendingMatcher?

    private let indexCache: IndexCache?

    init(tessdata: String?, library: LibraryDatabase?, indexCache: IndexCache? = nil) {
        workers = OCRWorkers(tessdata: tessdata)
        self.library = library
        self.indexCache = indexCache
    }

    /// The matcher over the library, its building started by the first call (and again after a
    /// build that failed: a library busy for a moment fails one image, not the rest of a batch).
    @discardableResult
    func matchers() -> PendingMatcher {
        lock.lock()
        defer { lock.unlock() }
        if let pending, !pending.failed { return pending }
        let library = self.library, cache = indexCache
        let made = PendingMatcher { () throws(ShelfScanError) -> BookMatcher in
            let source = if let library { library } else { try LibraryDatabase.inMemory() }
            return try BookMatcher(library: source, cache: cache)
        }
        pending = made
        return made
    }
}

/// A title matcher built on a thread of its own, waited for where it is first needed: a
/// catalogue of 25,000 books takes about 1.5 s to load and index, which a photo's decoding and
/// first reading (which need no matcher) now hide in part, instead of coming before them.
///
/// `@unchecked Sendable`: `result` is only touched under `condition`.
final class PendingMatcher: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<BookMatcher, ShelfScanError>?

    /// A matcher already built.
    init(_ matcher: BookMatcher) {
        result = .success(matcher)
    }

    /// Starts `build` on a thread of its own.
    init(building build: @escaping @Sendable () throws(ShelfScanError) -> BookMatcher) {
        let thread = Thread { [self] in
            let built = Result<BookMatcher, ShelfScanError> { () throws(ShelfScanError) -> BookMatcher in try build() }
            condition.lock()
            result = built
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// Whether the build has ended in an error (false while it runs).
    var failed: Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .failure? = result { return true }
        return false
    }

    /// The matcher, once built (or the error building it met).
    func get() throws(ShelfScanError) -> BookMatcher {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }
}
