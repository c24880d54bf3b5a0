import Foundation
import Testing
@testable import ShelfScanKit

enum PipelineSamples {
    static let nineteen84 = Fixtures.sample("barcodes/isbn-1984-clean.png")  // 9780451524935
    static let odyssey = Fixtures.sample("barcodes/isbn-odyssey-ean5-clean.png")  // 9780143039952 51700
    static let grocery = Fixtures.sample("barcodes/ean13-grocery-clean.png")  // 5901234123457
    static let blank = Fixtures.sample("barcodes/none-blank-table.jpg")
    static let large = Fixtures.sample("barcodes/isbn-gatsby-large.jpg")  // 3000x2250, 9780743273565

    /// Collects a result stream.
    static func collect(_ stream: AsyncStream<ImageResult>) async -> [ImageResult] {
        var results: [ImageResult] = []
        for await result in stream { results.append(result) }
        return results
    }
}

@Suite("Scan pipeline")
struct ShelfScannerTests {
    @Test("a book in the library is reported as such, with the library's details")
    func bookInLibrary() throws {
        let library = try LibraryDatabase.inMemory()
        let row = try library.add(SampleBooks.nineteen84)
        let result = ShelfScanner(library: library).scan(path: PipelineSamples.nineteen84)
        #expect(result.error == nil)
        #expect(result.succeeded)
        #expect(result.image == PipelineSamples.nineteen84)
        #expect(result.width == 640 && result.height == 480 && result.format == .png)
        try #require(result.books.count == 1, "books: \(result.books.map(\.isbn13))")
        let book = result.books[0]
        #expect(book.isbn13 == "9780451524935")
        #expect(book.isbn10 == "0451524934")
        #expect(book.inLibrary)
        #expect(book.libraryId == row.id)
        #expect(book.title == "1984")
        #expect(book.authors == ["George Orwell"])
        #expect(book.readingStatus == .currentlyReading)
        #expect((0...1).contains(book.confidence))
        let barcode = try #require(result.barcodes.first { $0.digits == "9780451524935" })
        try #require(book.evidence.count == 1)
        #expect(book.evidence[0].kind == .barcode)
        #expect(book.evidence[0].box == barcode.box)
        #expect(book.evidence[0].text == barcode.text)
        #expect(book.evidence[0].symbology == .ean13)
    }

    @Test("a book not in the library: not in it, no title", arguments: [true, false])
    func bookNotInLibrary(_ withLibrary: Bool) throws {
        let library = withLibrary ? try SampleBooks.library([SampleBooks.odyssey]) : nil
        let result = ShelfScanner(library: library).scan(path: PipelineSamples.nineteen84)
        try #require(result.books.count == 1)
        let book = result.books[0]
        #expect(book.isbn13 == "9780451524935")
        #expect(!book.inLibrary)
        #expect(book.libraryId == nil)
        #expect(book.title == nil)
        #expect(book.readingStatus == nil)
        #expect((0...1).contains(book.confidence))
    }

    @Test("a catalogue row names the book but does not put it in the library")
    func catalogueRow() throws {
        var catalogue = SampleBooks.nineteen84
        catalogue.owned = false
        catalogue.readingStatus = nil
        let library = try SampleBooks.library([catalogue])
        let book = try #require(ShelfScanner(library: library).scan(path: PipelineSamples.nineteen84).books.first)
        #expect(!book.inLibrary)
        #expect(book.libraryId == nil)
        #expect(book.title == "1984")
    }

    @Test("the add-on is part of the evidence")
    func addOnEvidence() throws {
        let result = ShelfScanner(library: nil).scan(path: PipelineSamples.odyssey)
        let book = try #require(result.books.first)
        #expect(book.evidence.first?.addOn == "51700")
        #expect(book.evidence.first?.text == "9780143039952 51700")
    }

    @Test("codes that are not books are listed as barcodes, not books")
    func notABook() throws {
        let result = ShelfScanner(library: nil).scan(path: PipelineSamples.grocery)
        #expect(result.books.isEmpty)
        #expect(result.barcodes.map(\.digits) == ["5901234123457"])
        #expect(result.barcodes.first?.kind == .product)
    }

    @Test("an image already in memory scans like its file")
    func scanLoaded() throws {
        let loaded = try ImageLoader().decode(Fixtures.bytes(PipelineSamples.nineteen84), name: "frame-1")
        let result = ShelfScanner(library: nil).scan(loaded)
        #expect(result.image == "frame-1")
        #expect(result.books.map(\.isbn13) == ["9780451524935"])
    }

    @Test("scan(paths:) keeps the input order; a missing file becomes an error result")
    func streamOrder() async throws {
        let dir = try TemporaryDirectory()
        let missing = dir.file("missing.jpg")
        // The big photo first, so that with two workers the small ones after it finish earlier.
        let paths = [PipelineSamples.large, missing, PipelineSamples.nineteen84, PipelineSamples.odyssey, PipelineSamples.blank]
        var options = ScanOptions()
        options.concurrency = 2
        let results = await PipelineSamples.collect(ShelfScanner(options: options, library: nil).scan(paths: paths))
        #expect(results.map(\.image) == paths)
        try #require(results.count == paths.count)
        let failure = try #require(results[1].error)
        #expect(failure.code == .fileNotFound)
        #expect(failure.message.contains(missing))
        #expect(results[1].books.isEmpty && results[1].width == 0)
        for i in [0, 2, 3, 4] {
            #expect(results[i].error == nil, "\(paths[i]): \(results[i].error?.message ?? "")")
        }
        #expect(results[0].books.map(\.isbn13) == ["9780743273565"])
        #expect(results[2].books.map(\.isbn13) == ["9780451524935"])
        #expect(results[3].books.map(\.isbn13) == ["9780143039952"])
        #expect(results[4].books.isEmpty)
    }

    @Test("scan(paths:) with no paths finishes with no results")
    func emptyStream() async {
        let results = await PipelineSamples.collect(ShelfScanner(library: nil).scan(paths: []))
        #expect(results.isEmpty)
    }
}

@Suite("Output renderers")
struct RendererTests {
    /// Results for: a book in the library whose title holds a comma and quotes, a missing file,
    /// and a photo with no barcode.
    static func results() throws -> (results: [ImageResult], missing: String, libraryId: Int64, directory: TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let missing = dir.file("gone.jpg")
        let library = try LibraryDatabase.inMemory()
        let row = try library.add(Book(isbn: ISBN("9780451524935"), title: "Nineteen Eighty-Four, or \"1984\"",
                                       authors: ["George Orwell"], readingStatus: .read))
        let scanner = ShelfScanner(library: library)
        let results = [PipelineSamples.nineteen84, missing, PipelineSamples.blank].map { scanner.scan(path: $0) }
        return (results, missing, try #require(row.id), dir)
    }

    static func render(_ results: [ImageResult], as format: OutputFormat) -> String {
        let renderer = format.renderer()
        var out = renderer.header()
        for (i, r) in results.enumerated() { out += renderer.render(r, isFirst: i == 0) }
        return out + renderer.footer()
    }

    @Test("json: one valid document with every image")
    func json() throws {
        let (results, missing, libraryId, _) = try Self.results()
        let text = Self.render(results, as: .json)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let images = try #require(root["images"] as? [[String: Any]])
        #expect(images.count == 3)
        #expect(images.map { $0["image"] as? String } == results.map(\.image))

        let books = try #require(images[0]["books"] as? [[String: Any]])
        try #require(books.count == 1)
        #expect(books[0]["isbn13"] as? String == "9780451524935")
        #expect(books[0]["isbn10"] as? String == "0451524934")
        #expect(books[0]["inLibrary"] as? Bool == true)
        #expect((books[0]["libraryId"] as? NSNumber)?.int64Value == libraryId)
        #expect(books[0]["title"] as? String == "Nineteen Eighty-Four, or \"1984\"")
        #expect(books[0]["readingStatus"] as? String == "read")
        let confidence = try #require((books[0]["confidence"] as? NSNumber)?.doubleValue)
        #expect((0...1).contains(confidence))
        let evidence = try #require(books[0]["evidence"] as? [[String: Any]])
        #expect(evidence.first?["text"] as? String == "9780451524935")
        #expect(images[0]["error"] == nil || images[0]["error"] is NSNull)
        // Every image names the regions it searched for text (none on a barcode photo).
        #expect(images.allSatisfy { $0["regions"] is [Any] })
        var shelf = results[0]
        shelf.regions = [BoundingBox(x: 10, y: 20, width: 30, height: 400)]
        let decoded = try JSONDecoder().decode(ImageResult.self, from: JSONEncoder().encode(shelf))
        #expect(decoded.regions == shelf.regions)

        let error = try #require(images[1]["error"] as? [String: Any])
        #expect(error["code"] as? String == "fileNotFound")
        #expect((error["message"] as? String)?.contains(missing) == true)
        #expect((images[2]["books"] as? [Any])?.isEmpty == true)
    }

    @Test("json: an empty run is still a valid document")
    func jsonEmpty() throws {
        let text = Self.render([], as: .json)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((root["images"] as? [Any])?.isEmpty == true)
    }

    @Test("jsonl: one object per line, one line per image")
    func jsonl() throws {
        let (results, _, _, _) = try Self.results()
        let text = Self.render(results, as: .jsonl)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == results.count)
        for (line, result) in zip(lines, results) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["image"] as? String == result.image)
        }
    }

    @Test("csv: the header columns, one row per book, RFC 4180 quoting")
    func csv() throws {
        let (results, missing, libraryId, _) = try Self.results()
        let rows = CSVParser.parse(Self.render(results, as: .csv))
        let header = ["image", "rank", "title", "authors", "isbn13", "isbn10", "in_library", "library_id",
                      "reading_status", "confidence", "evidence", "error"]
        try #require(rows.count == 4, "rows: \(rows)")
        #expect(rows[0] == header)
        #expect(rows.allSatisfy { $0.count == header.count })
        let book = Dictionary(uniqueKeysWithValues: zip(header, rows[1]))
        #expect(book["image"] == PipelineSamples.nineteen84)
        #expect(book["rank"] == "1")
        #expect(book["title"] == "Nineteen Eighty-Four, or \"1984\"")
        #expect(book["isbn13"] == "9780451524935")
        #expect(book["in_library"] == "true")
        #expect(book["library_id"] == String(libraryId))
        #expect(book["reading_status"] == "read")
        let failed = Dictionary(uniqueKeysWithValues: zip(header, rows[2]))
        #expect(failed["image"] == missing)
        #expect(failed["error"]?.contains(missing) == true)
        #expect(rows[3][0] == PipelineSamples.blank)
        // The raw text quotes the title, doubling its quotes.
        #expect(Self.render(results, as: .csv).contains("\"Nineteen Eighty-Four, or \"\"1984\"\"\""))
    }

    @Test("csv: fields are quoted only when they must be")
    func csvField() {
        #expect(CSV.field("plain") == "plain")
        #expect(CSV.field("a,b") == "\"a,b\"")
        #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSV.field("two\nlines") == "\"two\nlines\"")
        #expect(CSV.row(["a", "b,c", ""]) == "a,\"b,c\",\n")
    }

    @Test("table: books with their place in the library, errors inline")
    func table() throws {
        let (results, missing, libraryId, _) = try Self.results()
        let text = Self.render(results, as: .table)
        #expect(text.contains("Nineteen Eighty-Four"))
        #expect(text.contains("in library #\(libraryId)"))
        #expect(text.contains("9780451524935"))
        // The error line names the file once, in the message itself.
        #expect(text.contains("error: \(missing)"))
        #expect(text.contains("no books found"))
    }

    @Test("table: the surest unidentified texts of an image, and how many more there are")
    func tableUnidentified() {
        let confidences: [Double] = [81, 95, 88, 90, 84, 97, 80, 82, 83, 85, 86, 87]
        let unidentified = confidences.enumerated().map { i, c in
            UnidentifiedText(text: "TITLE \(i)", box: BoundingBox(x: 10 * i, y: 0, width: 8, height: 300), ocrConfidence: c)
        }
        let result = ImageResult(image: "shelf.jpg", width: 100, height: 300, format: nil, orientation: nil, books: [],
                                 barcodes: [], unidentified: unidentified, error: nil, timings: StageTimings())
        let shown = Self.render([result], as: .table).split(separator: "\n").filter { $0.contains("unidentified text:") }
        #expect(shown.map { $0.split(separator: "\"")[1] } == ["TITLE 5", "TITLE 1", "TITLE 3", "TITLE 2", "TITLE 11", "TITLE 10", "TITLE 9", "TITLE 4", "TITLE 8", "TITLE 7"])
        #expect(shown.first?.contains("(OCR 97) at 50,0 8x300") == true)
        #expect(Self.render([result], as: .table).contains("(2 more unidentified texts: --format json lists them)"))
        var few = result
        few.unidentified = Array(unidentified.prefix(2))
        #expect(!Self.render([few], as: .table).contains("more unidentified"))
    }
}

/// A small RFC 4180 reader, to check the CSV renderer's output by parsing it back.
enum CSVParser {
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { field.append("\""); chars.removeFirst() } else { quoted = false }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\n" {
                row.append(field); field = ""
                rows.append(row); row = []
            } else {
                field.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
