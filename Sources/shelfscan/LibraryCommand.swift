import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan library ...`: the user's own books.
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Add, list, show, search and remove books in your library.",
        subcommands: [Add.self, List.self, Show.self, Search.self, Remove.self, Export.self, ImportCSV.self])

    enum ListFormat: String, ExpressibleByArgument { case table, json, csv }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a book by ISBN, or by title and author.",
            discussion: "Examples: `shelfscan library add 9780140268867`, `shelfscan library add --title \"The Odyssey\" --author Homer`.")

        @Argument(help: "ISBN-10 or ISBN-13 (hyphens allowed).")
        var isbn: String?

        @Option(help: "Title.") var title: String?
        @Option(help: "Subtitle.") var subtitle: String?
        @Option(name: .customLong("author"), help: "Author (repeat for several).") var authors: [String] = []
        @Option(help: "Publisher.") var publisher: String?
        @Option(help: "Year of publication.") var year: Int?
        @Option(help: "want-to-read, currently-reading or read.") var status: ReadingStatus = .wantToRead
        @Option(help: "Rating, 1-5.") var rating: Int?
        @Option(help: "Notes.") var notes: String?
        @Flag(help: "Save the cover beside the library, in Covers/<book id>.jpg.") var covers = false
        @OptionGroup var library: LibraryOptions
        @OptionGroup var lookups: MetadataArguments

        func validate() throws {
            if isbn == nil && (title ?? "").isEmpty {
                throw ValidationError("give an ISBN or --title (and --author)")
            }
            if let rating, !(1...5).contains(rating) { throw ValidationError("--rating must be 1 to 5") }
        }

        func run() async throws {
            var parsed: ISBN?
            if let isbn {
                guard let valid = ISBN(isbn) else {
                    throw CLIError("\(isbn): not a valid ISBN (wrong length, characters or check digit); check the digits")
                }
                parsed = valid
            }
            // An ISBN alone: the catalogues describe the book (or it is queued for `enrich`).
            if let parsed, (title ?? "").isEmpty, authors.isEmpty {
                let db = try library.open()
                let service = await MetadataService(options: lookups.options, cache: db)
                let enricher = LibraryEnricher(library: db, metadata: service, coversFolder: covers ? library.coversFolder : nil)
                do {
                    let added = try await enricher.add(isbn: parsed, status: status, source: "manual")
                    if case .alreadyPresent = added { throw CLIError(AddReport.line(added)) }
                    print(AddReport.line(added))
                    return
                } catch let error as ShelfScanError {
                    throw CLIError(error.message)
                }
            }
            let book = Book(isbn: parsed, title: title ?? "", subtitle: subtitle, authors: authors, publisher: publisher,
                            year: year, source: "manual", readingStatus: status, rating: rating, notes: notes)
            do {
                let added = try library.open().add(book)
                print("added #\(added.id ?? 0): \(BookText.line(added))")
            } catch let error as ShelfScanError {
                throw CLIError(error.message)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the books in the library, newest first.")
        @Option(help: "Only books with this reading status.") var status: ReadingStatus?
        @Option(help: "At most this many.") var limit: Int?
        @Option(name: .shortAndLong, help: "table, json or csv.") var format: ListFormat = .table
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                guard let db = try library.openIfPresent() else {
                    if format == .table { print("the library is empty (\(library.path) does not exist yet)") }
                    else { BookText.print([], format: format) }
                    return
                }
                BookText.print(try db.list(status: status, limit: limit), format: format)
            } catch let error as ShelfScanError {
                throw CLIError(error.message)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one book by id or ISBN.")
        @Argument(help: "Book id (from `list`) or ISBN.") var key: String
        @Option(name: .shortAndLong, help: "table or json.") var format: ListFormat = .table
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                let book = try BookText.find(key, in: library.open())
                if format == .json { print(ResultJSON.string(book, pretty: true)); return }
                print(BookText.details(book))
            } catch let error as ShelfScanError {
                throw CLIError(error.message)
            }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Search titles and authors (fuzzy inside words).")
        @Argument(help: "Words of the title or author, or an ISBN.") var query: [String]
        @Option(name: .shortAndLong, help: "table, json or csv.") var format: ListFormat = .table
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                guard let db = try library.openIfPresent() else { BookText.print([], format: format); return }
                BookText.print(try db.search(query.joined(separator: " ")), format: format)
            } catch let error as ShelfScanError {
                throw CLIError(error.message)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a book by id or ISBN.")
        @Argument(help: "Book id (from `list`) or ISBN.") var key: String
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                let db = try library.open()
                let book = try BookText.find(key, in: db)
                try db.remove(id: book.id!)
                print("removed #\(book.id!): \(BookText.line(book))")
            } catch let error as ShelfScanError {
                throw CLIError(error.message)
            }
        }
    }
}

extension LibraryCommand {
    enum ExportFormat: String, ExpressibleByArgument { case goodreads, csv, json }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the library as a Goodreads export CSV, a plain CSV of every field, or JSON.")
        @Option(name: .shortAndLong, help: "goodreads, csv or json.") var format: ExportFormat = .goodreads
        @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of standard output.", valueName: "file")) var output: String?
        @OptionGroup var library: LibraryOptions

        func run() throws {
            let books: [Book]
            do { books = try library.openIfPresent()?.list().reversed() ?? [] } catch { throw CLIError(describing: error) }
            let text: String
            switch format {
            case .goodreads: text = LibraryExchange.goodreadsCSV(books)
            case .csv: text = LibraryExchange.plainCSV(books)
            case .json: text = ResultJSON.string(books, pretty: true) + "\n"
            }
            guard let output else { print(text, terminator: ""); return }
            // Written beside and renamed, so an interrupted export never leaves half a file.
            let temporary = output + ".part"
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
                _ = try? FileManager.default.removeItem(atPath: output)
                try FileManager.default.moveItem(atPath: temporary, toPath: output)
            } catch {
                throw CLIError("\(output): cannot write the export (\(error.localizedDescription))")
            }
            StandardError.line("exported \(books.count) books to \(output)")
        }
    }

    struct ImportCSV: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Read a Goodreads export, or any CSV with title/author/ISBN columns, into the library.",
            discussion: "Goodreads shelves become reading status; books already present (same ISBN, or same title and first author) are not added twice.")
        @Argument(help: ArgumentHelp("The CSV file.", valueName: "file")) var file: String
        @OptionGroup var library: LibraryOptions

        func run() throws {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError("\(file): cannot be read; check the path")
            }
            let result: LibraryExchange.ImportResult
            do {
                result = try LibraryExchange.importCSV(String(decoding: data, as: UTF8.self), into: library.open(), source: "import")
            } catch {
                throw CLIError("\(file): \(CLIError(describing: error).description)")
            }
            print("\(result.imported.count) imported, \(result.duplicates.count) already in the library, \(result.skipped.count) skipped")
            for line in result.warnings + result.skipped { print("  \(line)") }
        }
    }
}

/// How books are shown on the command line.
enum BookText {
    static func line(_ b: Book) -> String {
        let title = b.title.isEmpty ? "(untitled)" : b.title
        let by = b.authors.isEmpty ? "" : " by " + b.authors.joined(separator: ", ")
        let isbn = b.isbn13.map { "  ISBN \($0)" } ?? ""
        return "\(title)\(by)\(isbn)"
    }

    static func details(_ b: Book) -> String {
        var rows: [(String, String?)] = [
            ("id", b.id.map(String.init)), ("title", b.title), ("subtitle", b.subtitle),
            ("authors", b.authors.isEmpty ? nil : b.authors.joined(separator: ", ")),
            ("ISBN-13", b.isbn13), ("ISBN-10", b.isbn10), ("publisher", b.publisher), ("year", b.year.map(String.init)),
            ("pages", b.pageCount.map(String.init)), ("language", b.language),
            ("categories", b.categories.isEmpty ? nil : b.categories.joined(separator: ", ")),
            ("status", b.readingStatus?.rawValue), ("rating", b.rating.map { String(repeating: "*", count: $0) }),
            ("notes", b.notes), ("cover", b.coverURL), ("source", b.source),
            ("added", ISO8601DateFormatter().string(from: b.dateAdded)),
        ]
        if let d = b.description { rows.append(("description", d)) }
        return rows.compactMap { key, value in value.map { "\(key.padding(toLength: 11, withPad: " ", startingAt: 0)) \($0)" } }
            .joined(separator: "\n")
    }

    static func print(_ books: [Book], format: LibraryCommand.ListFormat) {
        switch format {
        case .json:
            Swift.print(ResultJSON.string(books, pretty: true))
        case .csv:
            var out = CSV.row(["id", "title", "authors", "isbn13", "isbn10", "year", "status", "rating"])
            for b in books {
                out += CSV.row([b.id.map(String.init) ?? "", b.title, b.authors.joined(separator: "; "), b.isbn13 ?? "",
                                b.isbn10 ?? "", b.year.map(String.init) ?? "", b.readingStatus?.rawValue ?? "",
                                b.rating.map(String.init) ?? ""])
            }
            Swift.print(out, terminator: "")
        case .table:
            if books.isEmpty { Swift.print("no books"); return }
            for b in books {
                let status = b.readingStatus.map { "  [\($0.rawValue)]" } ?? ""
                Swift.print("#\(b.id ?? 0)  \(line(b))\(status)")
            }
        }
    }

    /// A book by row id or ISBN; a clear error when there is none.
    static func find(_ key: String, in db: LibraryDatabase) throws(ShelfScanError) -> Book {
        if let isbn = ISBN(key) {
            if let b = try db.books(isbn13: [isbn.isbn13])[isbn.isbn13] { return b }
            throw ShelfScanError(.notFound, "ISBN \(isbn.isbn13) is not in the library; see `shelfscan library search`")
        }
        guard let id = Int64(key.trimmingCharacters(in: CharacterSet(charactersIn: "#"))) else {
            throw ShelfScanError(.invalidArgument, "\(key): neither a book id nor a valid ISBN; see `shelfscan library list`")
        }
        guard let b = try db.book(id: id) else {
            throw ShelfScanError(.notFound, "no book #\(id) in the library; see `shelfscan library list`")
        }
        return b
    }
}
