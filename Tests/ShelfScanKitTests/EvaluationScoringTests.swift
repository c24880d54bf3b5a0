import Foundation
import Testing
@testable import ShelfScanKit

/// The scorer on hand-made truth and results whose right numbers are known.
@Suite("Evaluation scoring")
struct EvaluationScoringTests {
    static func truth(_ json: String) throws -> TruthRecord {
        try JSONDecoder().decode(TruthRecord.self, from: Data(json.utf8))
    }

    static func code(_ digits: String, addOn: String? = nil) -> Barcode {
        Barcode(symbology: .ean13, digits: digits, addOn: addOn, box: BoundingBox(x: 0, y: 0, width: 10, height: 10),
                scanLines: 10, pass: "direct")
    }

    static func book(_ title: String?, isbn: String? = nil, confidence: Double = 0.9) -> BookEntity {
        BookEntity(title: title, subtitle: nil, authors: [], isbn13: isbn, isbn10: nil, inLibrary: false, libraryId: nil,
                   readingStatus: nil, source: nil, publisher: nil, year: nil, coverURL: nil, confidence: confidence, evidence: [])
    }

    static func result(_ books: [BookEntity], _ codes: [Barcode] = []) -> ImageResult {
        ImageResult(image: "x", width: 10, height: 10, format: .png, orientation: nil, books: books, barcodes: codes,
                    error: nil, timings: StageTimings())
    }

    static let shelf = """
        {"image": "shelves/a.jpg", "kind": "shelf", "books": [{"title": "The Hobbit: There and Back Again", "authors": ["J.R.R. Tolkien"], "isbn13": null},
         {"title": "Dune", "authors": ["Frank Herbert"], "isbn13": null}, {"title": "El Quijote", "authors": [], "isbn13": null}],
         "barcodes": [], "unlabelled_regions": false, "notes": ""}
        """

    @Test("a perfect run: every book found, nothing invented, titles compared as the truth format says")
    func perfect() throws {
        let t = try Self.truth(Self.shelf)
        // Case, punctuation, leading article and subtitle differ from the labels; all still match.
        let s = BookImageScore(truth: t, result: Self.result([Self.book("HOBBIT"), Self.book("dune."), Self.book("Quijote")]))
        #expect(s.found == 3)
        #expect(s.invented == 0)
        #expect(s.unconfirmed == 0)
        let totals = BookTotals([s])
        #expect(totals.recall == 1)
        #expect(totals.precision == 1)
        #expect(totals.f1 == 1)
    }

    @Test("one invented and one missed book")
    func inventedAndMissed() throws {
        let t = try Self.truth(Self.shelf)
        let s = BookImageScore(truth: t, result: Self.result([Self.book("The Hobbit"), Self.book("Dune"), Self.book("Emma")]))
        #expect(s.found == 2)
        #expect(s.invented == 1)
        #expect(s.unconfirmed == 1)
        let totals = BookTotals([s])
        #expect(abs(totals.recall - 2.0 / 3.0) < 1e-9)
        #expect(abs(totals.precision - 2.0 / 3.0) < 1e-9)
        #expect(totals.inventedPerImage == 1)
    }

    @Test("the same book twice counts once; the second copy is unconfirmed")
    func duplicate() throws {
        let t = try Self.truth(Self.shelf)
        let s = BookImageScore(truth: t, result: Self.result([Self.book("Dune"), Self.book("Dune")]))
        #expect(s.found == 1)
        #expect(s.unconfirmed == 1)
    }

    @Test("an unlabelled region: extra books are unconfirmed, not invented")
    func unlabelledRegion() throws {
        var json = Self.shelf
        json = json.replacingOccurrences(of: "\"unlabelled_regions\": false", with: "\"unlabelled_regions\": true")
        let s = BookImageScore(truth: try Self.truth(json), result: Self.result([Self.book("Dune"), Self.book("Emma")]))
        #expect(s.invented == nil)
        #expect(s.unconfirmed == 1)
        let totals = BookTotals([s])
        #expect(totals.fullyLabelledImages == 0)
        #expect(totals.inventedPerImage == 0)
        #expect(totals.unconfirmedPerImage == 1)
    }

    @Test("barcodes: a misread, a missed add-on, and a false positive on a photo without a code")
    func barcodes() throws {
        let t = try Self.truth("""
            {"image": "b/1.png", "kind": "barcode", "books": [{"title": "The Odyssey", "authors": ["Homer"], "isbn13": "9780143039952"}],
             "barcodes": ["9780143039952 51700"], "unlabelled_regions": false}
            """)
        let right = BarcodeImageScore(truth: t, result: Self.result([], [Self.code("9780143039952", addOn: "51700")]))
        #expect(right.correctMain == 1 && right.correctAddOns == 1 && right.misreads.isEmpty && right.correctISBNs == 1)
        let misread = BarcodeImageScore(truth: t, result: Self.result([], [Self.code("9780143039969")]))
        #expect(misread.correctMain == 0)
        #expect(misread.misreads == ["9780143039969"])
        let noAddOn = BarcodeImageScore(truth: t, result: Self.result([], [Self.code("9780143039952")]))
        #expect(noAddOn.correctMain == 1 && noAddOn.correctAddOns == 0)
        let none = try Self.truth(#"{"image": "n/1.png", "kind": "none", "books": [], "barcodes": [], "unlabelled_regions": false}"#)
        let falsePositive = BarcodeImageScore(truth: none, result: Self.result([], [Self.code("5901234123457")]))
        #expect(falsePositive.falsePositives == 1)
        let totals = BarcodeTotals([right, misread, noAddOn, falsePositive])
        #expect(totals.correctMain == 2 && totals.expectedMain == 3 && totals.misreads == 2 && totals.falsePositives == 1)
    }

    @Test("a price code reported with its ISBN counts as a code read: right when labelled, a misread when wrong")
    func priceCodes() throws {
        let t = try Self.truth("""
            {"image": "b/2.png", "kind": "barcode", "books": [], "barcodes": ["9784872348880", "1920081045006"],
             "unlabelled_regions": false}
            """)
        var isbn = Self.code("9784872348880")
        isbn.priceCode = "1920081045006"
        let both = BarcodeImageScore(truth: t, result: Self.result([], [isbn]))
        #expect(both.correctMain == 2 && both.misreads.isEmpty)
        #expect(both.reported == ["9784872348880", "1920081045006"])
        isbn.priceCode = "1920081045013"
        let wrongPrice = BarcodeImageScore(truth: t, result: Self.result([], [isbn]))
        #expect(wrongPrice.correctMain == 1 && wrongPrice.misreads == ["1920081045013"])
        #expect(wrongPrice.unlabelledPartners.isEmpty)
    }

    @Test("a label naming one code of a Japanese book's ISBN / price-code pair leaves the other out: not a misread")
    func unlabelledPartner() throws {
        var isbn = Self.code("9784872348880")
        isbn.priceCode = "1920081045006"
        for (labelled, other) in [("9784872348880", "1920081045006"), ("1920081045006", "9784872348880")] {
            let t = try Self.truth("""
                {"image": "b/3.png", "kind": "barcode", "books": [], "barcodes": ["\(labelled)"], "unlabelled_regions": false}
                """)
            let s = BarcodeImageScore(truth: t, result: Self.result([], [isbn]))
            #expect(s.correctMain == 1 && s.misreads.isEmpty && s.unlabelledPartners == [other])
            #expect(BarcodeTotals([s]).misreads == 0 && BarcodeTotals([s]).unlabelledPartners == 1)
        }
        // A price code beside another ISBN than the labelled one is no partner of it.
        var stranger = Self.code("9780143039952")
        stranger.priceCode = "1920081045006"
        let t = try Self.truth("""
            {"image": "b/4.png", "kind": "barcode", "books": [], "barcodes": ["9784872348880"], "unlabelled_regions": false}
            """)
        let s = BarcodeImageScore(truth: t, result: Self.result([], [stranger]))
        #expect(s.misreads == ["9780143039952", "1920081045006"])
    }

    @Test("a book found by ISBN matches its label whatever title it carries; top-1 on single-book images")
    func isbnAndTopOne() throws {
        let t = try Self.truth("""
            {"image": "b/1.png", "kind": "barcode", "books": [{"title": "The Odyssey", "authors": ["Homer"], "isbn13": "9780143039952"}],
             "barcodes": ["9780143039952"], "unlabelled_regions": false}
            """)
        let s = BookImageScore(truth: t, result: Self.result([Self.book(nil, isbn: "9780143039952")]))
        #expect(s.found == 1 && s.topOneCorrect == true)
        let wrongFirst = BookImageScore(truth: t, result: Self.result([Self.book("Emma"), Self.book(nil, isbn: "9780143039952")]))
        #expect(wrongFirst.found == 1 && wrongFirst.topOneCorrect == false)
    }

    @Test("calibration bins count reported confidences against correctness")
    func calibration() {
        let books = [ScoredBook(title: "a", isbn13: nil, confidence: 0.99, correct: true),
                     ScoredBook(title: "b", isbn13: nil, confidence: 0.97, correct: false),
                     ScoredBook(title: "c", isbn13: nil, confidence: 0.6, correct: true)]
        let bins = CalibrationBin.table(books)
        let top = bins.first { $0.lower == 0.95 }!
        #expect(top.count == 2 && top.correct == 1 && top.accuracy == 0.5)
        #expect(bins.first { $0.lower == 0.5 }!.count == 1)
        #expect(bins.reduce(0) { $0 + $1.count } == 3)
    }

    @Test("the corpus library: one row per book, two books of one title by different authors both kept")
    func corpusLibraryRows() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corpuslib-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = [
            #"{"image": "a.jpg", "kind": "shelf", "books": [{"title": "Men at Arms", "authors": ["Evelyn Waugh"], "isbn13": null}, {"title": "The Hobbit", "authors": ["J.R.R. Tolkien"], "isbn13": null}], "barcodes": []}"#,
            #"{"image": "b.jpg", "kind": "shelf", "books": [{"title": "Men at Arms", "authors": ["Terry Pratchett"], "isbn13": null}, {"title": "The Hobbit", "authors": [], "isbn13": null}, {"title": "Men at Arms", "authors": ["Evelyn Waugh"], "isbn13": null}], "barcodes": []}"#,
        ]
        try lines.joined(separator: "\n").write(toFile: dir + "/truth.jsonl", atomically: true, encoding: .utf8)
        let books = try Evaluator.corpusLibrary(directory: dir).list()
        #expect(books.count == 3)
        #expect(Set(books.filter { $0.title == "Men at Arms" }.flatMap(\.authors)) == ["Evelyn Waugh", "Terry Pratchett"])
        #expect(books.filter { $0.title == "The Hobbit" }.map(\.authors) == [["J.R.R. Tolkien"]])
    }

    @Test("title keys: case, punctuation, diacritics, leading articles, subtitles", arguments: [
        ("The Hobbit: There and Back Again", "hobbit"), ("EL QUIJOTE", "quijote"), ("L'Étranger", "etranger"),
        ("A", "a"), ("Catch-22", "catch 22"), ("Les Misérables", "miserables"),
    ])
    func titleKeys(_ title: String, _ key: String) {
        #expect(TitleKey.of(title) == key)
    }
}
