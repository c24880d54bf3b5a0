import Foundation
import Testing
@testable import ShelfScanKit

/// The text path on the rendered corpus: spine finding, reading direction, matching, end to end.
/// Floors are the product's promise on clean rendered shelves (most books, none invented), not
/// today's figures.
@Suite("Text path: spines, covers and stacks", .timeLimit(.minutes(5)))
struct TextPipelineTests {
    static let truth: [String: TruthRecord] = {
        let records = (try? TruthRecord.load(directory: Fixtures.sampleImages)) ?? []
        return Dictionary(records.map { ($0.image, $0) }, uniquingKeysWith: { a, _ in a })
    }()

    static func labelled(_ image: String) throws -> Set<String> {
        let record = try #require(truth[image], "\(image) is not in SampleImages/truth.jsonl")
        return Set(record.books.map { TitleKey.of($0.title) })
    }

    /// A scanner over the corpus's own labelled books (eval's default library).
    static func scanner(mode: ScanMode = .auto) throws -> ShelfScanner {
        var options = ScanOptions()
        options.mode = mode
        return ShelfScanner(options: options, library: try Evaluator.corpusLibrary(directory: Fixtures.sampleImages))
    }

    /// Scans a SampleImages file off the concurrency pool.
    static func scan(_ image: String, mode: ScanMode = .auto) async throws -> ImageResult {
        let scanner = try scanner(mode: mode)
        return try await offPool { scanner.scan(path: Fixtures.sample(image)) }
    }

    @Test("spine finder: a two-row shelf gives two rows of regions inside the photo, about one per book")
    func twoRows() async throws {
        let image = "shelves/shelf-2rows-perspective.jpg"
        let photo = try ImageLoader().load(path: Fixtures.sample(image)).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        let books = try Self.labelled(image).count
        #expect(Set(layout.regions.map(\.row)) == [0, 1])
        #expect(layout.regions.allSatisfy { $0.layout == .spine })
        #expect(layout.regions.count >= books / 2 && layout.regions.count <= books * 2,
                "\(layout.regions.count) regions for \(books) books")
        for region in layout.regions {
            let b = region.box
            #expect(b.x >= 0 && b.y >= 0 && b.x + b.width <= photo.width && b.y + b.height <= photo.height, "\(b)")
            #expect(b.height > b.width, "a standing spine is taller than wide: \(b)")
        }
        // The two rows do not overlap much: row 1 starts below the middle of row 0.
        let row0 = layout.regions.filter { $0.row == 0 }.map(\.box), row1 = layout.regions.filter { $0.row == 1 }.map(\.box)
        let middle0 = row0.map { $0.y + $0.height / 2 }.max()!, top1 = row1.map(\.y).min()!
        #expect(top1 > middle0)
    }

    @Test("spine finder: books lying in a stack are found as lying spines")
    func stack() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("stacks/stack-6-books.jpg")).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        #expect(layout.lyingEdges > layout.standingEdges)
        #expect(!layout.regions.isEmpty)
        #expect(layout.regions.allSatisfy { $0.layout == .lyingSpine && $0.box.width > $0.box.height })
    }

    @Test("a front cover has no shelf: the spine finder finds (almost) no spine edges")
    func coverHasNoSpines() async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("covers/cover-dune.jpg")).image
        let layout = try await offPool { try SpineFinder().spines(in: photo) }
        #expect(layout.regions.count <= 3, "\(layout.regions.count) regions on a cover")
    }

    /// Both shelves are labelled (notes) as at least 89% one way: 15 of 15 top to bottom, 24 of 27
    /// bottom to top. Books read the other way may be the minority's, so three quarters suffice.
    @Test("reading direction: an English shelf reads top to bottom, a European one bottom to top",
          arguments: [("shelves/shelf-1row-english-ttb.jpg", "top-to-bottom"),
                      ("shelves/shelf-2rows-spanish-catalan-french-btt.jpg", "bottom-to-top")])
    func direction(_ image: String, _ expected: String) async throws {
        let result = try await Self.scan(image, mode: .shelf)
        let orientations = result.books.flatMap(\.evidence).compactMap(\.orientation)
        try #require(orientations.count >= 3, "too few books read: \(result.books.map(\.title))")
        let agreeing = orientations.filter { $0 == expected }.count
        #expect(agreeing * 4 >= orientations.count * 3, "\(orientations)")
    }

    @Test("a shelf photo: most of its books, each once, none that is not on the shelf, with text evidence",
          arguments: ["shelves/shelf-1row-english-ttb.jpg", "shelves/shelf-1row-mixed.jpg"])
    func shelf(_ image: String) async throws {
        let labelled = try Self.labelled(image)
        let result = try await Self.scan(image)
        #expect(result.error == nil)
        let found = result.books.compactMap(\.title).map(TitleKey.of)
        let invented = found.filter { !labelled.contains($0) }
        #expect(invented.isEmpty, "not on the shelf: \(invented)")
        #expect(Set(found).count == found.count, "a book twice: \(found)")
        #expect(Set(found).count * 2 >= labelled.count, "found \(found.count) of \(labelled.count): \(found)")
        for book in result.books {
            let text = try #require(book.evidence.first { $0.kind == .text })
            #expect((0...100).contains(text.ocrConfidence ?? -1))
            #expect((0.0...1.0).contains(text.matchScore ?? -1))
            #expect(text.box.width > 0 && text.box.x + text.box.width <= result.width)
            #expect((0.0...1.0).contains(book.confidence))
        }
        #expect(zip(result.books, result.books.dropFirst()).allSatisfy { $0.confidence >= $1.confidence }, "ranked by confidence")
    }

    @Test("a front cover: auto mode reads it as a cover and names the book first")
    func cover() async throws {
        let image = "covers/cover-dune.jpg"
        let labelled = try Self.labelled(image)
        let result = try await Self.scan(image)
        let first = try #require(result.books.first, "no book found on \(image)")
        #expect(labelled.contains(TitleKey.of(first.title ?? "")))
    }

    @Test("a photo without books gives no book", arguments: ["none"])
    func noBooks(_ set: String) async throws {
        let images = Self.truth.keys.filter { $0.hasPrefix(set + "/") }.sorted()
        try #require(!images.isEmpty)
        for image in images {
            let result = try await Self.scan(image)
            #expect(result.books.isEmpty, "\(image): \(result.books.map(\.title))")
        }
    }

    @Test("--mode barcode reads no text: a shelf gives no book and no OCR time")
    func barcodeMode() async throws {
        let result = try await Self.scan("shelves/shelf-1row-english-ttb.jpg", mode: .barcode)
        #expect(result.books.isEmpty)
        #expect(result.timings.ocr == 0)
    }
}
