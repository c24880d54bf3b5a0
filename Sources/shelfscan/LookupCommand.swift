import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan lookup ISBN | "title" [--author NAME]`: asks the catalogues directly.
struct Lookup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Look a book up in Open Library and Google Books, by ISBN or by title and author.")

    @Argument(help: "An ISBN-10/13, or a title.") var query: String
    @Option(help: "Author, with a title.") var author: String?
    @Flag(help: "Add what was found to the library (the first result of a title search).") var add = false
    @Flag(help: "Save the cover beside the library, in Covers/<book id>.jpg.") var covers = false
    @Option(name: .shortAndLong, help: "table or json.") var format: LibraryCommand.ListFormat = .table
    @OptionGroup var library: LibraryOptions
    @OptionGroup var lookups: MetadataArguments

    func run() async throws {
        let db = try library.open()
        let service = await MetadataService(options: lookups.options, cache: db)
        if let isbn = ISBN(query), author == nil {
            if add {
                let enricher = LibraryEnricher(library: db, metadata: service, coversFolder: covers ? library.coversFolder : nil)
                do {
                    let added = try await enricher.add(isbn: isbn, source: "lookup")
                    Swift.print(AddReport.line(added))
                } catch {
                    throw CLIError(describing: error)
                }
                return
            }
            switch await service.lookup(isbns: [isbn.isbn13])[isbn.isbn13] ?? .notFound {
            case .found(let m): Self.show([m], format: format)
            case .notFound: throw CLIError("ISBN \(isbn.isbn13): no catalogue knows this book")
            case .unavailable(let why): throw CLIError("ISBN \(isbn.isbn13): no answer (\(why))")
            }
            return
        }
        if query.allSatisfy({ $0.isNumber || $0 == "-" || $0 == "X" || $0 == "x" || $0 == " " }) && query.count >= 10 && author == nil {
            throw CLIError("\(query): not a valid ISBN (check digit or length); check the digits, or pass a title")
        }
        switch await service.search(title: query, author: author) {
        case .failure(let error): throw CLIError(error.message)
        case .success(let found):
            guard !found.isEmpty else { throw CLIError("\"\(query)\": no catalogue found a match; try fewer words or check the spelling") }
            Self.show(found, format: format)
            if add, let first = found.first {
                var book = MetadataMerge.book(from: first)
                book.source = first.sources.first?.rawValue ?? "lookup"
                do {
                    let added = try db.add(book)
                    Swift.print("added #\(added.id ?? 0): \(BookText.line(added))")
                } catch {
                    throw CLIError(describing: error)
                }
            }
        }
    }

    static func show(_ books: [BookMetadata], format: LibraryCommand.ListFormat) {
        if format == .json { Swift.print(ResultJSON.string(books, pretty: true)); return }
        for (i, m) in books.enumerated() {
            let by = m.authors.isEmpty ? "" : " by " + m.authors.joined(separator: ", ")
            let details = [m.isbn13.map { "ISBN \($0)" }, m.publisher, m.year.map(String.init), m.pageCount.map { "\($0) pages" }]
                .compactMap { $0 }.joined(separator: ", ")
            Swift.print("\(i + 1). \(m.title)\(m.subtitle.map { ": \($0)" } ?? "")\(by)")
            if !details.isEmpty { Swift.print("   \(details)") }
            Swift.print("   source: \(m.sources.map(\.rawValue).joined(separator: "+"))\(m.coverURL.map { ", cover \($0)" } ?? "")")
        }
    }
}

/// `shelfscan enrich`: retries the lookups of books that were added without catalogue data.
struct Enrich: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch catalogue data for library books queued when they were added offline or a lookup failed.")

    @Flag(help: "Save covers beside the library, in Covers/<book id>.jpg.") var covers = false
    @OptionGroup var library: LibraryOptions
    @OptionGroup var lookups: MetadataArguments

    func run() async throws {
        guard let db = try library.openIfPresent() else { print("nothing to enrich: no library at \(library.path)"); return }
        let service = await MetadataService(options: lookups.options, cache: db)
        let enricher = LibraryEnricher(library: db, metadata: service, coversFolder: covers ? library.coversFolder : nil)
        let report: LibraryEnricher.QueueReport
        do { report = try await enricher.enrichQueue() } catch { throw CLIError(describing: error) }
        for b in report.enriched { print("enriched #\(b.id ?? 0): \(BookText.line(b))") }
        for b in report.notFound { print("not found #\(b.id ?? 0): ISBN \(b.isbn13 ?? "?") (no catalogue knows it; left as it is)") }
        for (b, why) in report.stillQueued { print("still queued #\(b.id ?? 0): ISBN \(b.isbn13 ?? "?") (\(why))") }
        print("\(report.enriched.count) enriched, \(report.notFound.count) not found, \(report.stillQueued.count) still queued")
        if !report.stillQueued.isEmpty { throw ExitCode.failure }
    }
}
