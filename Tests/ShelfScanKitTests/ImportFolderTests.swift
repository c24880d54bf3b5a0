import Foundation
import Testing
@testable import ShelfScanKit

/// Line ends of a list file.
enum ImportLineEnd: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case lf = "\n", crlf = "\r\n"
    var testDescription: String { self == .lf ? "LF" : "CRLF" }
}

@Suite("Import: BulkImporter on photo folders and lists", .timeLimit(.minutes(10)))
struct ImportFolderTests {
    /// What the barcode reader itself finds in each image, decoded here independently of the importer.
    static func decode(_ paths: [String]) throws -> [String: [Barcode]] {
        var codes: [String: [Barcode]] = [:]
        for path in paths {
            codes[path] = try BarcodeReader().read(ImageLoader().load(path: path).image).barcodes
        }
        return codes
    }

    @Test("SampleImages into a fresh library: books, not-books and empty photos each reported once; a second run skips everything")
    func sampleImagesTwice() async throws {
        let dir = try TemporaryDirectory()
        let library = try LibraryDatabase.open(path: dir.file("library.sqlite"))
        let (images, lists, problems) = BulkImporter.expand([Fixtures.sampleImages])
        #expect(lists.isEmpty, "truth.jsonl and README.md are not ISBN lists")
        #expect(problems.isEmpty)
        let truth = try TruthRecord.load(directory: Fixtures.sampleImages)
        let truthByPath = Dictionary(uniqueKeysWithValues: truth.map { (Fixtures.sample($0.image), $0) })
        #expect(Set(truthByPath.keys).isSubset(of: Set(images)), "every image of truth.jsonl is found in the folder")
        #expect(images == images.sorted(), "name order")

        let report = await BulkImporter(library: library).importImages(images)
        let decoded = try Self.decode(images)
        let found = ImportCheck.categories(report)

        #expect(report.images == images.count)
        #expect(report.skipped.isEmpty)
        #expect(report.unreadable.isEmpty, "\(report.unreadable.map { $0.message ?? $0.source })")
        #expect(report.badChecksum.isEmpty && report.notAnISBN.isEmpty && report.copiesAdded.isEmpty)
        // Every image exactly once across the lists (SampleImages has one code per photo).
        for path in images {
            #expect(found[path]?.count == 1, "\(path): \(found[path]?.map(\.category) ?? [])")
        }
        #expect(Set(found.keys) == Set(images))

        var decodedISBNs = Set<String>()
        for path in images {
            let codes = try #require(decoded[path])
            let entries = found[path] ?? []
            guard let code = codes.first else {
                #expect(entries.map(\.category) == ["noBarcode"], "\(path)")
                continue
            }
            #expect(codes.count == 1, "\(path): \(codes.map(\.text))")
            if let isbn = code.isbn13 {
                decodedISBNs.insert(isbn)
                #expect(entries.allSatisfy { ["imported", "alreadyPresent"].contains($0.category) && $0.item.isbn13 == isbn },
                        "\(path): read \(isbn), reported \(entries.map { "\($0.category) \($0.item.isbn13 ?? "-")" })")
                // The reader's ISBN is the one the photo shows.
                if let record = truthByPath[path] {
                    #expect(record.books.compactMap(\.isbn13).contains(isbn), "\(path): read \(isbn)")
                }
            } else {
                #expect(entries.map(\.category) == ["notABook"], "\(path)")
                #expect(entries.first?.item.code == code.text && entries.first?.item.kind == code.kind.rawValue,
                        "\(path): \(entries.first?.item.code ?? "-") \(entries.first?.item.kind ?? "-")")
            }
        }
        // Truth: codes that are no books are never imported; the clean ones are read and reported.
        for record in truth where record.books.isEmpty {
            let path = Fixtures.sample(record.image)
            let categories = found[path]?.map(\.category) ?? []
            #expect(!categories.contains("imported") && !categories.contains("alreadyPresent"), "\(path): \(categories)")
            if record.kind == TruthRecord.Kind.none { #expect(categories == ["noBarcode"], "\(path)") }
        }
        for (name, code, kind) in [("ean13-grocery-clean.png", "5901234123457", "product"), ("upca-grocery-clean.png", "0036000291452", "product"),
                                   ("ean8-clean.png", "96385074", "product"), ("upce-clean.png", "0042100005264", "product"),
                                   ("issn-magazine-ean2.jpg", "9771234567003 05", "serial")] {
            let entries = found[Fixtures.sample("barcodes/" + name)] ?? []
            #expect(entries.map(\.category) == ["notABook"] && entries.first?.item.code == code && entries.first?.item.kind == kind,
                    "\(name): \(entries.map { "\($0.category) \($0.item.code ?? "-") \($0.item.kind ?? "-")" })")
        }
        // The clean book photos at least are read, so the test cannot pass on a reader that reads nothing.
        for (name, isbn) in [("isbn-1984-clean.png", "9780451524935"), ("isbn-odyssey-ean5-clean.png", "9780143039952"),
                             ("isbn979-oiseau-clean.png", "9791023505214"), ("isbn-dracula-ean2-clean.png", "9780393970128")] {
            #expect(found[Fixtures.sample("barcodes/" + name)]?.first?.item.isbn13 == isbn, "\(name)")
        }

        // Each ISBN imported once; its other photos point at the same book.
        let importedISBNs = report.imported.compactMap(\.isbn13)
        #expect(importedISBNs.count == Set(importedISBNs).count, "imported twice: \(importedISBNs.sorted())")
        #expect(Set(importedISBNs) == decodedISBNs)
        let ids = Dictionary(report.imported.map { ($0.isbn13 ?? "", $0.bookId) }, uniquingKeysWith: { a, _ in a })
        for item in report.alreadyPresent {
            #expect(item.bookId != nil && ids[item.isbn13 ?? ""] == item.bookId, "\(item.source)")
        }

        // The library: one owned, undescribed, queued book per ISBN.
        let books = try library.list()
        #expect(Set(books.compactMap(\.isbn13)) == decodedISBNs)
        #expect(books.count == decodedISBNs.count)
        #expect(books.allSatisfy { $0.owned && $0.copies == 1 && $0.readingStatus == .wantToRead && $0.title.isEmpty })
        #expect(try library.enrichmentQueue().count == decodedISBNs.count)
        #expect(try library.count(ownedOnly: false) == decodedISBNs.count)
        // Every photo is recorded as finished, by its content hash.
        for path in images {
            let state = try library.importState(hash: ContentHash.of(try Fixtures.bytes(path)))
            #expect(state?.finished == true, "\(path)")
        }
        let records = try ImportCheck.importFiles(dir.file("library.sqlite"))
        #expect(records.count == images.count)
        #expect(Set(records.map(\.path)) == Set(images))

        // A second run: everything skipped by hash, nothing decoded, nothing changed.
        let again = await BulkImporter(library: library).importImages(images)
        #expect(again.skipped.sorted() == images.sorted())
        #expect(again.images == 0)
        #expect(again.imported.isEmpty && again.alreadyPresent.isEmpty && again.notABook.isEmpty && again.noBarcode.isEmpty
                && again.unreadable.isEmpty && again.copiesAdded.isEmpty)
        #expect(try library.list() == books)
        #expect(try library.count(ownedOnly: false) == decodedISBNs.count)
        #expect(try ImportCheck.importFiles(dir.file("library.sqlite")) == records)
    }

    @Test("--copies: the same ISBN three times in a list makes three copies; without it, one book and two reports")
    func copies() async throws {
        let dir = try TemporaryDirectory()
        // The Odyssey as ISBN-13, hyphenated, and ISBN-10: the same book three times.
        let list = try dir.write("isbns.txt", Array("9780143039952\n978-0-14-303995-2\n0143039954\n".utf8))
        var options = ImportOptions()
        options.countCopies = true
        let counted = try LibraryDatabase.open(path: dir.file("counted.sqlite"))
        let report = BulkImporter(library: counted, options: options).importList(list)
        #expect(report.imported.map(\.isbn13) == ["9780143039952"])
        #expect(report.copiesAdded.map(\.isbn13) == ["9780143039952", "9780143039952"])
        #expect(report.copiesAdded.map(\.message) == ["2 copies", "3 copies"])
        #expect(report.copiesAdded.map(\.source) == ["\(list):2", "\(list):3"])
        #expect(report.alreadyPresent.isEmpty)
        #expect(report.lines == 3)
        let book = try #require(try counted.list().first)
        #expect(try counted.count() == 1)
        #expect(book.copies == 3)
        // Run again: the finished list is skipped, the copies are not counted twice.
        let again = BulkImporter(library: counted, options: options).importList(list)
        #expect(again.skipped == [list])
        #expect(try counted.list().first?.copies == 3)

        // Two different photos of one book count as two copies.
        let photo = try Fixtures.bytes(Fixtures.sample("barcodes/isbn-1984-clean.png"))
        let first = try dir.write("a.png", photo), second = try dir.write("b.png", photo + [0x0A])
        let photos = await BulkImporter(library: counted, options: options).importImages([first, second])
        #expect(photos.imported.count + photos.copiesAdded.count == 2)
        #expect(photos.imported.map(\.isbn13) == ["9780451524935"])
        #expect(try counted.books(isbn13: ["9780451524935"])["9780451524935"]?.copies == 2)

        // Without --copies: one book, one copy, two lines reported as already present.
        let plain = try LibraryDatabase.open(path: dir.file("plain.sqlite"))
        let once = BulkImporter(library: plain).importList(list)
        #expect(once.imported.count == 1 && once.alreadyPresent.count == 2 && once.copiesAdded.isEmpty)
        #expect(try plain.list().map(\.copies) == [1])
    }

    @Test("--dry-run reports what would happen and writes nothing: no books, no import records")
    func dryRun() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("library.sqlite")
        let library = try LibraryDatabase.open(path: path)
        // Already owned: reported as present by the dry run too.
        try library.add(Book(isbn: ISBN("9780143039952"), title: "The Odyssey", authors: ["Homer"]))
        let images = ["isbn-1984-clean.png", "isbn979-oiseau-clean.png", "isbn-odyssey-ean5-clean.png", "ean13-grocery-clean.png",
                      "none-blank-table.jpg"].map { Fixtures.sample("barcodes/" + $0) }
        let list = try dir.write("list.txt", Array("9780439023481\n0-439-02348-3\n9780143039953\n5901234123457\n".utf8))
        var options = ImportOptions()
        options.dryRun = true
        let importer = BulkImporter(library: library, options: options)
        var report = await importer.importImages(images)
        report.append(importer.importList(list))

        #expect(report.dryRun)
        #expect(Set(report.imported.compactMap(\.isbn13)) == ["9780451524935", "9791023505214", "9780439023481"])
        #expect(report.imported.count == 3)
        #expect(Set(report.alreadyPresent.map(\.source)) == [images[2], "\(list):2"])
        #expect(report.notABook.map(\.code) == ["5901234123457", "5901234123457"])
        #expect(report.badChecksum.map(\.code) == ["9780143039953"])
        #expect(report.noBarcode.map(\.source) == [images[4]])

        // Nothing was written.
        #expect(try library.count(ownedOnly: false) == 1)
        #expect(try library.enrichmentQueue().isEmpty)
        for input in images + [list] {
            #expect(try library.importState(hash: ContentHash.of(try Fixtures.bytes(input))) == nil, "\(input)")
        }
        #expect(try ImportCheck.importFiles(path).isEmpty)

        // So the real run that follows does everything the dry run announced.
        let real = BulkImporter(library: library)
        var done = await real.importImages(images)
        done.append(real.importList(list))
        #expect(done.skipped.isEmpty)
        #expect(Set(done.imported.compactMap(\.isbn13)) == Set(report.imported.compactMap(\.isbn13)))
        #expect(try library.count() == 4)
        #expect(try ImportCheck.importFiles(path).count == images.count + 1)
    }

    /// A list with LF line ends (Unix) or CRLF (Windows, and RFC 4180 CSV as Excel writes it).
    @Test("an ISBN list: every line read, bad lines reported with file:line, progress recorded as finished",
          arguments: ImportLineEnd.allCases)
    func listReport(lineEnd: ImportLineEnd) throws {
        let dir = try TemporaryDirectory()
        let text = ["ISBN", "9780143039952", "", "0-439-02348-3", "9780143039953", "036000291452", "12345", "9780143039952", ""]
            .joined(separator: lineEnd.rawValue)
        let list = try dir.write("books.csv", Array(text.utf8))
        let library = try LibraryDatabase.open(path: dir.file("library.sqlite"))
        var options = ImportOptions()
        options.batchSize = 2
        let report = BulkImporter(library: library, options: options).importList(list)
        #expect(report.imported.map(\.source) == ["\(list):2", "\(list):4"])
        #expect(report.imported.map(\.isbn13) == ["9780143039952", "9780439023481"])
        #expect(report.alreadyPresent.map(\.source) == ["\(list):8"])
        #expect(report.badChecksum.map(\.source) == ["\(list):5"])
        #expect(report.notABook.map(\.code) == ["0036000291452"])
        #expect(report.notAnISBN.map(\.code) == ["12345"])
        #expect(report.lines == 6)
        let state = try library.importState(hash: ContentHash.of(try Fixtures.bytes(list)))
        #expect(state?.finished == true)
        #expect(try library.count() == 2)
    }

    @Test("a list an earlier run stopped in the middle of continues after the last line it finished")
    func listResumes() throws {
        let dir = try TemporaryDirectory()
        let isbns = (1...5).map { ImportCheck.isbn13(body: "97800000100\($0)") }
        let list = try dir.write("isbns.txt", Array((isbns.joined(separator: "\n") + "\n").utf8))
        let library = try LibraryDatabase.open(path: dir.file("library.sqlite"))
        // What a run killed after its first batch (two lines) leaves behind.
        let hash = ContentHash.of(try Fixtures.bytes(list))
        _ = try library.importBooks(isbns.prefix(2).map { ISBN($0)! }, source: "import", status: .wantToRead, countCopies: true,
                                    input: (hash, list, "list", 2, false))
        #expect(try library.importState(hash: hash)?.linesDone == 2)

        var options = ImportOptions()
        options.countCopies = true
        options.batchSize = 2
        let report = BulkImporter(library: library, options: options).importList(list)
        #expect(report.imported.map(\.source) == ["\(list):3", "\(list):4", "\(list):5"])
        #expect(report.copiesAdded.isEmpty, "lines already done are not read again")
        #expect(try library.count() == 5)
        #expect(try library.list().allSatisfy { $0.copies == 1 })
        let state = try library.importState(hash: hash)
        #expect(state?.finished == true)
        #expect(state?.linesDone == 6, "five lines and the empty one after the last newline")
    }
}

@Suite("Import: the shared barcode corpus",
       .enabled(if: FileManager.default.fileExists(atPath: Fixtures.sharedCorpora + "/barcodes/truth.jsonl"),
                "../shared/corpora/barcodes is not beside the repository"),
       .timeLimit(.minutes(10)))
struct ImportSharedCorpusTests {
    static let corpus = Fixtures.sharedCorpora + "/barcodes"

    @Test("ZXing's photos: book ISBNs as books, grocery and magazine codes as not-a-book, every false-positive photo as no barcode")
    func corpus() async throws {
        let dir = try TemporaryDirectory()
        let library = try LibraryDatabase.open(path: dir.file("library.sqlite"))
        let (images, lists, problems) = BulkImporter.expand([Self.corpus])
        #expect(lists.isEmpty, "the N.txt sidecars of a photo folder are not ISBN lists")
        #expect(problems.isEmpty)
        let truth = try TruthRecord.load(directory: Self.corpus)
        #expect(images.count == truth.count)

        let report = await BulkImporter(library: library).importImages(images)
        let found = ImportCheck.categories(report)
        #expect(report.images == images.count)
        #expect(report.unreadable.isEmpty)
        for path in images { #expect(found[path]?.count == 1, "\(path): \(found[path]?.map(\.category) ?? [])") }

        var booksRead = 0, bookImages = 0, othersRead = 0, otherImages = 0
        for record in truth {
            let path = Self.corpus + "/" + record.image
            let categories = found[path]?.map(\.category) ?? []
            guard let main = record.expectedCodes.first?.main else {
                // kind none: falsepositives-2.
                #expect(categories == ["noBarcode"], "\(path): \(found[path]?.map { "\($0.category) \($0.item.code ?? $0.item.isbn13 ?? "")" } ?? [])")
                continue
            }
            switch CodeKind.of(main) {
            case .book:
                bookImages += 1
                let entry = found[path]?.first
                if ["imported", "alreadyPresent"].contains(entry?.category ?? "") {
                    booksRead += 1
                    #expect(entry?.item.isbn13 == main, "\(path)")
                } else {
                    #expect(categories == ["noBarcode"], "\(path): \(categories)")
                }
            case .product, .serial, .internalUse:
                otherImages += 1
                #expect(categories == ["notABook"] || categories == ["noBarcode"], "\(path): \(categories)")
                if categories == ["notABook"] {
                    othersRead += 1
                    let item = try #require(found[path]?.first?.item)
                    #expect(item.kind == CodeKind.of(String((item.code ?? "").prefix(while: { $0 != " " }))).rawValue, "\(path)")
                }
            case .music, .bookPrice:
                // A Japanese book shows its ISBN beside the 192 price code truth lists: either is fine.
                continue
            }
        }
        #expect(truth.filter { $0.image.hasPrefix("falsepositives-2/") }.count == 25)
        // Not a test of the reader's accuracy, but of its being used: most codes are read.
        #expect(booksRead * 2 > bookImages, "\(booksRead) of \(bookImages) book photos read")
        #expect(othersRead * 2 > otherImages, "\(othersRead) of \(otherImages) other codes read")
        let isbns = Set(report.imported.compactMap(\.isbn13))
        #expect(Set(try library.list().compactMap(\.isbn13)) == isbns)
        #expect(Set(report.alreadyPresent.compactMap(\.isbn13)).isSubset(of: isbns))
    }
}
