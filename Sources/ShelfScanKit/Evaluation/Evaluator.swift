import Foundation

/// Runs the scan pipeline over a labelled corpus and scores it.
public struct Evaluator: Sendable {
    public let directory: String
    public let scanner: ShelfScanner

    public init(directory: String, scanner: ShelfScanner) {
        self.directory = directory
        self.scanner = scanner
    }

    /// The outcome of an evaluation run.
    public struct Report: Codable, Sendable {
        public let directory: String
        /// Barcodes, per image, per set (first folder of the image path) and in total.
        public let images: [BarcodeImageScore]
        public let sets: [String: BarcodeTotals]
        public let total: BarcodeTotals
        /// Books, the same way.
        public let books: [BookImageScore]
        public let bookSets: [String: BookTotals]
        public let bookTotal: BookTotals
        public let calibration: [CalibrationBin]
        public let stages: [StageSummary]
    }

    /// Scans every image in the truth file. `progress` is called after each image.
    /// `result` is called with each image's truth and result (for pictures of the findings).
    public func run(progress: (@Sendable (Int, Int) -> Void)? = nil,
                    result onResult: ((TruthRecord, ImageResult) -> Void)? = nil) async throws(ShelfScanError) -> Report {
        let truth = try TruthRecord.load(directory: directory)
        let paths = truth.map { directory + "/" + $0.image }
        var scores: [BarcodeImageScore] = []
        var bookScores: [BookImageScore] = []
        var timings: [StageTimings] = []
        var index = 0
        for await result in scanner.scan(paths: paths) {
            scores.append(BarcodeImageScore(truth: truth[index], result: result))
            bookScores.append(BookImageScore(truth: truth[index], result: result))
            timings.append(result.timings)
            onResult?(truth[index], result)
            index += 1
            progress?(index, truth.count)
        }
        return Self.report(directory: directory, barcodes: scores, books: bookScores, timings: timings)
    }

    /// Sums per-image scores into a report (also used on hand-made scores by the tests).
    public static func report(directory: String, barcodes: [BarcodeImageScore], books: [BookImageScore],
                              timings: [StageTimings]) -> Report {
        Report(directory: directory, images: barcodes,
               sets: Dictionary(grouping: barcodes, by: \.set).mapValues(BarcodeTotals.init), total: BarcodeTotals(barcodes),
               books: books, bookSets: Dictionary(grouping: books, by: \.set).mapValues(BookTotals.init),
               bookTotal: BookTotals(books), calibration: CalibrationBin.table(books.flatMap(\.returned)),
               stages: StageSummary.table(timings))
    }

    /// A library holding the corpus's own labelled books, the default for matching. One row per
    /// book: by ISBN, else by title and authors, so two books of one title by different authors
    /// (Evelyn Waugh's and Terry Pratchett's *Men at Arms*) are both the reader's; a label
    /// naming no author is the book of that title already held, when there is one.
    public static func corpusLibrary(directory: String) throws(ShelfScanError) -> LibraryDatabase {
        let library = try LibraryDatabase.inMemory()
        var seen = Set<String>()
        var titled = Set<String>()
        var books: [Book] = []
        for record in try TruthRecord.load(directory: directory) {
            for labelled in record.books {
                let isbn = labelled.isbn13.flatMap { ISBN($0) }
                let title = TitleKey.of(labelled.title)
                let authors = (labelled.authors ?? []).map { MatchText.authorWords($0).sorted().joined(separator: " ") }
                if isbn == nil, authors.isEmpty, titled.contains(title) { continue }
                guard seen.insert(isbn?.isbn13 ?? title + "|" + authors.joined(separator: ";")).inserted else { continue }
                titled.insert(title)
                books.append(Book(isbn: isbn, title: labelled.title, authors: labelled.authors ?? [], source: "truth"))
            }
        }
        _ = try library.addUnlessPresent(books)
        return library
    }
}

extension Evaluator.Report {
    /// A Markdown summary: per-set table, totals, and the images that went wrong.
    public var markdown: String {
        var out = "## Barcodes: \(directory)\n\n"
        out += "| set | images | main codes | add-ons | book ISBNs | misreads | false positives | errors | median ms | p95 ms |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        func row(_ name: String, _ t: BarcodeTotals) -> String {
            "| \(name) | \(t.images) | \(t.correctMain)/\(t.expectedMain) | \(t.correctAddOns)/\(t.expectedAddOns) | "
                + "\(t.correctISBNs)/\(t.expectedISBNs) | \(t.misreads) | \(t.falsePositives) | \(t.errors) | "
                + "\(String(format: "%.1f", t.medianMilliseconds)) | \(String(format: "%.1f", t.p95Milliseconds)) |\n"
        }
        for name in sets.keys.sorted() { out += row(name, sets[name]!) }
        out += row("**total**", total)
        let wrong = images.filter { !$0.misreads.isEmpty || $0.falsePositives > 0 }
        if !wrong.isEmpty {
            out += "\nWrong codes:\n"
            for s in wrong { out += "- \(s.image): reported \(s.misreads.joined(separator: ", ")) (expected \(s.expected.joined(separator: ", ")))\n" }
        }
        let partners = images.filter { !$0.unlabelledPartners.isEmpty }
        if !partners.isEmpty {
            out += "\nCodes the label leaves out, read beside a labelled one (a Japanese book's ISBN and price code; not misreads):\n"
            for s in partners { out += "- \(s.image): reported \(s.unlabelledPartners.joined(separator: ", ")) (labelled \(s.expected.joined(separator: ", ")))\n" }
        }
        let failed = images.filter { $0.error != nil }
        if !failed.isEmpty {
            out += "\nUnreadable images:\n"
            for s in failed { out += "- \(s.error!)\n" }
        }
        out += booksMarkdown
        return out
    }
}

extension Evaluator.Report {
    /// Books per set, calibration, stage times and the worst images.
    var booksMarkdown: String {
        func pct(_ x: Double) -> String { String(format: "%.2f", x) }
        var out = "\n## Books: \(directory)\n\n"
        out += "| set | images | labelled | found | recall | returned | precision | F1 | invented/photo | unconfirmed/photo | top-1 |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        func row(_ name: String, _ t: BookTotals) -> String {
            let top = t.topOneImages == 0 ? "-" : "\(t.topOneCorrect)/\(t.topOneImages)"
            let invented = t.fullyLabelledImages == 0 ? "-" : pct(t.inventedPerImage)
            return "| \(name) | \(t.images) | \(t.labelled) | \(t.found) | \(pct(t.recall)) | \(t.returned) | \(pct(t.precision)) | "
                + "\(pct(t.f1)) | \(invented) | \(pct(t.unconfirmedPerImage)) | \(top) |\n"
        }
        for name in bookSets.keys.sorted() { out += row(name, bookSets[name]!) }
        out += row("**total**", bookTotal)
        out += "\nConfidence calibration (books returned):\n\n| confidence | books | correct | accuracy |\n|---|---:|---:|---:|\n"
        for bin in calibration where bin.count > 0 {
            out += "| \(pct(bin.lower))-\(pct(bin.upper)) | \(bin.count) | \(bin.correct) | \(bin.accuracy.map(pct) ?? "-") |\n"
        }
        out += "\nTime per image (ms):\n\n| stage | median | p95 |\n|---|---:|---:|\n"
        for s in stages { out += "| \(s.stage) | \(String(format: "%.1f", s.median)) | \(String(format: "%.1f", s.p95)) |\n" }
        let worst = books.filter { !$0.labelled.isEmpty || $0.unconfirmed > 0 }
            .sorted { ($0.found - $0.labelled.count - 2 * $0.unconfirmed) < ($1.found - $1.labelled.count - 2 * $1.unconfirmed) }
            .prefix(8).filter { $0.found < $0.labelled.count || $0.unconfirmed > 0 }
        if !worst.isEmpty {
            out += "\nWorst images:\n"
            for w in worst {
                let extra = w.returned.filter { !$0.correct }.map { $0.title ?? $0.isbn13 ?? "?" }
                out += "- \(w.image): found \(w.found) of \(w.labelled.count)" + (extra.isEmpty ? "" : "; not labelled: \(extra.joined(separator: ", "))") + "\n"
            }
        }
        return out
    }
}
