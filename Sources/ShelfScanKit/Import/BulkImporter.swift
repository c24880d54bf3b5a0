import Foundation

/// Options for `shelfscan import`.
public struct ImportOptions: Sendable {
    /// Count a book already present as one more copy instead of reporting it.
    public var countCopies = false
    /// Decode and classify, but write nothing.
    public var dryRun = false
    /// Reading status of new books.
    public var status: ReadingStatus? = .wantToRead
    /// Images decoded at once.
    public var concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// ISBN-list lines written per transaction.
    public var batchSize = 500
    public var limits = ImageLimits()
    public var barcodes = BarcodeOptions()

    public init() {}
}

/// What an import did, grouped so that the user can find the physical book behind each line.
public struct ImportReport: Codable, Sendable {
    /// One input item: a file, or a line of a list (`path:line`, `stdin:line`).
    public struct Item: Codable, Sendable {
        public var source: String
        public var isbn13: String?
        /// For codes that are not books, and lines with a bad check digit: what was read.
        public var code: String?
        public var kind: String?
        public var bookId: Int64?
        public var title: String?
        public var message: String?

        public init(source: String, isbn13: String? = nil, code: String? = nil, kind: String? = nil,
                    bookId: Int64? = nil, title: String? = nil, message: String? = nil) {
            self.source = source
            self.isbn13 = isbn13
            self.code = code
            self.kind = kind
            self.bookId = bookId
            self.title = title
            self.message = message
        }
    }

    public var dryRun = false
    public var imported: [Item] = []
    public var alreadyPresent: [Item] = []
    public var copiesAdded: [Item] = []
    public var notABook: [Item] = []
    public var badChecksum: [Item] = []
    public var noBarcode: [Item] = []
    /// Files that could not be read (missing, corrupt, not an image), with the reason.
    public var unreadable: [Item] = []
    /// List lines with digits that are no ISBN or EAN of any length.
    public var notAnISBN: [Item] = []
    /// Imported by ISBN alone and not described yet (offline, or the catalogues gave no answer):
    /// queued for `shelfscan enrich`.
    public var lookupFailed: [Item] = []
    /// Inputs an earlier run had finished: not decoded again.
    public var skipped: [String] = []
    public var images = 0
    public var lines = 0
    public var seconds = 0.0

    public init() {}

    /// Adds another report's items and counts to this one.
    public mutating func append(_ other: ImportReport) {
        imported += other.imported
        alreadyPresent += other.alreadyPresent
        copiesAdded += other.copiesAdded
        notABook += other.notABook
        badChecksum += other.badChecksum
        noBarcode += other.noBarcode
        unreadable += other.unreadable
        notAnISBN += other.notAnISBN
        lookupFailed += other.lookupFailed
        skipped += other.skipped
        images += other.images
        lines += other.lines
    }
}

/// Progress of an import, for a progress bar.
public struct ImportProgress: Sendable {
    public let done: Int
    public let total: Int
    public let elapsed: Double
}

/// Imports books in bulk from barcode photos, folders of them, ISBN lists and standard input.
///
/// Every input is written in one transaction together with the record that it is done (by
/// content hash), so an import killed at any moment and started again continues where it stopped,
/// re-decodes nothing and duplicates nothing. New books are stored by ISBN and queued; the
/// catalogue lookups run afterwards, batched (`LibraryEnricher.enrichQueue`).
public struct BulkImporter: Sendable {
    public let library: LibraryDatabase
    public let options: ImportOptions

    public init(library: LibraryDatabase, options: ImportOptions = ImportOptions()) {
        self.library = library
        self.options = options
    }

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "tif", "tiff", "webp", "gif", "pnm", "pgm", "ppm", "pbm", "bmp"]
    static let listExtensions: Set<String> = ["txt", "csv", "tsv", "lst", "isbn"]

    /// Image files and ISBN lists under `paths`: files as given (lists by their .txt/.csv/.tsv
    /// extension), folders recursively for images only, in name order (sidecar text files in a
    /// photo folder are not ISBN lists). What cannot be used is reported.
    public static func expand(_ paths: [String]) -> (images: [String], lists: [String], problems: [ImportReport.Item]) {
        var images: [String] = [], lists: [String] = [], problems: [ImportReport.Item] = []
        let fm = FileManager.default
        func classify(_ path: String, explicit: Bool) {
            let ext = (path as NSString).pathExtension.lowercased()
            if explicit && listExtensions.contains(ext) { lists.append(path) } else if imageExtensions.contains(ext) || explicit { images.append(path) }
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append(.init(source: path, message: "\(path): no such file or folder; check the path"))
                continue
            }
            guard isDirectory.boolValue else { classify(path, explicit: true); continue }
            let files = (fm.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
            for relative in files {
                let full = (path as NSString).appendingPathComponent(relative)
                var dir: ObjCBool = false
                if fm.fileExists(atPath: full, isDirectory: &dir), !dir.boolValue, !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                    classify(full, explicit: false)
                }
            }
        }
        return (images, lists, problems)
    }

    // MARK: Images

    /// Imports barcode photos, `options.concurrency` at a time; results in input order.
    public func importImages(_ paths: [String], progress: (@Sendable (ImportProgress) -> Void)? = nil) async -> ImportReport {
        let start = ContinuousClock.now
        var report = ImportReport()
        report.dryRun = options.dryRun
        let width = max(1, options.concurrency)
        await withTaskGroup(of: (Int, ImportReport).self) { group in
            var next = 0, done = 0
            func launch() {
                let index = next, path = paths[index]
                group.addTask { (index, self.importImage(path)) }
                next += 1
            }
            while next < paths.count && next < width { launch() }
            var pending: [Int: ImportReport] = [:]
            var emitted = 0
            for await (index, partial) in group {
                pending[index] = partial
                while let ready = pending.removeValue(forKey: emitted) {
                    report.append(ready)
                    emitted += 1
                }
                done += 1
                progress?(ImportProgress(done: done, total: paths.count, elapsed: start.millisecondsElapsed / 1000))
                if next < paths.count { launch() }
            }
        }
        report.seconds = start.millisecondsElapsed / 1000
        return report
    }

    /// One photo: skipped when an earlier run finished it, else decoded and written in one transaction.
    func importImage(_ path: String) -> ImportReport {
        var report = ImportReport()
        report.dryRun = options.dryRun
        let loader = ImageLoader(limits: options.limits)
        guard let data = FileManager.default.contents(atPath: path) else {
            do { _ = try loader.load(path: path) } catch {
                report.unreadable.append(.init(source: path, message: error.message))
                return report
            }
            report.unreadable.append(.init(source: path, message: "\(path): cannot be read; check its permissions"))
            return report
        }
        let bytes = [UInt8](data)
        let hash = ContentHash.of(bytes)
        do {
            if let state = try library.importState(hash: hash), state.finished {
                report.skipped.append(path)
                return report
            }
            report.images = 1
            let image = try loader.decode(bytes, name: path).image
            let codes = try BarcodeReader(options: options.barcodes).read(image).barcodes
            let books = codes.compactMap { $0.isbn13.flatMap { ISBN($0) } }
            for code in codes where code.kind != .book {
                report.notABook.append(.init(source: path, code: code.text, kind: code.kind.rawValue))
            }
            if codes.isEmpty { report.noBarcode.append(.init(source: path)) }
            let outcome = codes.isEmpty ? "no barcode" : (books.isEmpty ? "not a book" : "books")
            try record(books, source: path, into: &report, input: (hash, path, outcome, 0, true))
        } catch {
            report.unreadable.append(.init(source: path, message: error.message))
            // A file that will never decode is recorded as done too: a re-run need not try again.
            if !options.dryRun, error.code != .database {
                _ = try? library.importBooks([], source: "barcode", status: options.status, countCopies: false,
                                             input: (hash, path, "unreadable", 0, true))
            }
        }
        return report
    }

    // MARK: ISBN lists

    /// Imports a text or CSV file of ISBNs, resuming after the last line an earlier run finished.
    public func importList(_ path: String) -> ImportReport {
        var report = ImportReport()
        report.dryRun = options.dryRun
        guard let data = FileManager.default.contents(atPath: path) else {
            report.unreadable.append(.init(source: path, message: "\(path): cannot be read; check the path and permissions"))
            return report
        }
        let bytes = [UInt8](data)
        let hash = ContentHash.of(bytes)
        var firstLine = 0
        do {
            if let state = try library.importState(hash: hash) {
                if state.finished { report.skipped.append(path); return report }
                firstLine = state.linesDone
            }
        } catch {
            report.unreadable.append(.init(source: path, message: error.message))
            return report
        }
        let lines = Self.lines(String(decoding: bytes, as: UTF8.self))
        var start = firstLine
        while start < lines.count {
            let end = min(lines.count, start + options.batchSize)
            let batch = Array(lines[start..<end]).enumerated().map { (number: start + $0.offset + 1, text: $0.element) }
            do {
                try importLines(batch, source: path, into: &report, input: (hash, path, "list", end, end == lines.count))
            } catch {
                report.unreadable.append(.init(source: "\(path):\(start + 1)", message: error.message))
                return report
            }
            start = end
        }
        if lines.isEmpty, !options.dryRun {
            _ = try? library.importBooks([], source: "list", status: options.status, countCopies: false, input: (hash, path, "list", 0, true))
        }
        return report
    }

    /// Lines of a text file whatever its line ends: "\r\n" is one Character in Swift, so splitting
    /// on "\n" alone would read a Windows file as a single line.
    static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Imports numbered lines (from a list or standard input) in one transaction.
    public func importLines(_ lines: [(number: Int, text: String)], source: String, into report: inout ImportReport,
                            input: (hash: String, path: String, outcome: String, linesDone: Int, finished: Bool)? = nil) throws(ShelfScanError) {
        var isbns: [ISBN] = []
        var sources: [String] = []
        for line in lines {
            let where_ = "\(source):\(line.number)"
            switch ISBNLine.parse(line.text) {
            case .isbn(let isbn):
                report.lines += 1
                isbns.append(isbn)
                sources.append(where_)
            case .notABook(let code, let kind):
                report.lines += 1
                report.notABook.append(.init(source: where_, code: code, kind: kind.rawValue))
            case .badChecksum(let text):
                report.lines += 1
                report.badChecksum.append(.init(source: where_, code: text))
            case .unreadable(let text):
                report.lines += 1
                report.notAnISBN.append(.init(source: where_, code: text))
            case .nothing:
                continue
            }
        }
        try record(isbns, sources: sources, into: &report, input: input)
    }

    // MARK: Writing

    private func record(_ isbns: [ISBN], source: String, into report: inout ImportReport,
                        input: (hash: String, path: String, outcome: String, linesDone: Int, finished: Bool)?) throws(ShelfScanError) {
        try record(isbns, sources: Array(repeating: source, count: isbns.count), into: &report, input: input)
    }

    private func record(_ isbns: [ISBN], sources: [String], into report: inout ImportReport,
                        input: (hash: String, path: String, outcome: String, linesDone: Int, finished: Bool)?) throws(ShelfScanError) {
        if options.dryRun {
            let present = try library.books(isbn13: isbns.map(\.isbn13))
            var seen = Set<String>()
            for (isbn, source) in zip(isbns, sources) {
                let item = ImportReport.Item(source: source, isbn13: isbn.isbn13, bookId: present[isbn.isbn13]?.id)
                if (present[isbn.isbn13]?.owned ?? false) || !seen.insert(isbn.isbn13).inserted {
                    report.alreadyPresent.append(item)
                } else {
                    report.imported.append(item)
                }
            }
            return
        }
        let outcomes = try library.importBooks(isbns, source: "import", status: options.status,
                                               countCopies: options.countCopies, input: input)
        for ((isbn, source), outcome) in zip(zip(isbns, sources), outcomes) {
            switch outcome {
            case .imported(let id, _): report.imported.append(.init(source: source, isbn13: isbn.isbn13, bookId: id))
            case .alreadyPresent(let id): report.alreadyPresent.append(.init(source: source, isbn13: isbn.isbn13, bookId: id))
            case .copyAdded(let id, let copies):
                report.copiesAdded.append(.init(source: source, isbn13: isbn.isbn13, bookId: id, message: "\(copies) copies"))
            }
        }
    }

    /// After the writes: looks the imported books up (batched, through the cache; only the cache
    /// when offline) and notes titles, or the reason a book stays queued.
    public func describeImported(_ report: inout ImportReport, with metadata: MetadataService) async {
        guard !options.dryRun else { return }
        let enricher = LibraryEnricher(library: library, metadata: metadata)
        guard let queue = try? await enricher.enrichQueue() else { return }
        let enriched = Dictionary(queue.enriched.compactMap { b in b.id.map { ($0, b) } }, uniquingKeysWith: { a, _ in a })
        let waiting = Dictionary(queue.stillQueued.compactMap { e in e.book.id.map { ($0, e.reason) } }, uniquingKeysWith: { a, _ in a })
        for i in report.imported.indices {
            guard let id = report.imported[i].bookId else { continue }
            if let book = enriched[id] {
                report.imported[i].title = book.title
            } else if let why = waiting[id] {
                var item = report.imported[i]
                item.message = why
                report.lookupFailed.append(item)
            } else if let book = try? library.book(id: id), !book.title.isEmpty {
                report.imported[i].title = book.title
            }
        }
    }
}
