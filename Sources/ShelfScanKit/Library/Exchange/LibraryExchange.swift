import Foundation

/// Library export and import in the formats people move between apps with.
public enum LibraryExchange {
    /// Goodreads' export columns, in its order.
    public static let goodreadsColumns = [
        "Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
        "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
        "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
        "Spoiler", "Private Notes", "Read Count", "Owned Copies",
    ]

    /// The library as a Goodreads export: ISBNs wrapped as `="0439023483"` the way Goodreads
    /// writes them (so spreadsheets keep leading zeros). The format has no subtitle, description,
    /// categories, language or cover: use the plain CSV or JSON export to keep those.
    public static func goodreadsCSV(_ books: [Book]) -> String {
        var out = CSV.row(goodreadsColumns)
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy/MM/dd"
        for b in books {
            let first = b.authors.first ?? ""
            let shelf = goodreadsShelf(b.readingStatus)
            out += CSV.row([
                b.id.map(String.init) ?? "", b.title, first, lastFirst(first), b.authors.dropFirst().joined(separator: ", "),
                "=\"\(b.isbn10 ?? "")\"", "=\"\(b.isbn13 ?? "")\"", String(b.rating ?? 0), "", b.publisher ?? "", "",
                b.pageCount.map(String.init) ?? "", b.year.map(String.init) ?? "", "", "", day.string(from: b.dateAdded),
                shelf, "", shelf, "", "", b.notes ?? "", b.readingStatus == .read ? "1" : "0", String(b.copies),
            ])
        }
        return out
    }

    /// Every field of every book, one row each (authors and categories joined with "; ").
    public static func plainCSV(_ books: [Book]) -> String {
        var out = CSV.row(["id", "isbn13", "isbn10", "title", "subtitle", "authors", "publisher", "year", "pages", "language",
                           "categories", "status", "rating", "copies", "date_added", "source", "cover_url", "notes", "description"])
        let iso = ISO8601DateFormatter()
        for b in books {
            out += CSV.row([b.id.map(String.init) ?? "", b.isbn13 ?? "", b.isbn10 ?? "", b.title, b.subtitle ?? "",
                            b.authors.joined(separator: "; "), b.publisher ?? "", b.year.map(String.init) ?? "",
                            b.pageCount.map(String.init) ?? "", b.language ?? "", b.categories.joined(separator: "; "),
                            b.readingStatus?.rawValue ?? "", b.rating.map(String.init) ?? "", String(b.copies),
                            iso.string(from: b.dateAdded), b.source, b.coverURL ?? "", b.notes ?? "", b.description ?? ""])
        }
        return out
    }

    static func goodreadsShelf(_ s: ReadingStatus?) -> String {
        switch s {
        case .read: "read"
        case .currentlyReading: "currently-reading"
        case .wantToRead, .none: "to-read"
        }
    }

    static func lastFirst(_ name: String) -> String {
        let parts = name.split(separator: " ")
        guard parts.count > 1 else { return name }
        return "\(parts.last!), \(parts.dropLast().joined(separator: " "))"
    }

    // MARK: Import

    /// What a CSV import did, row by row (row 1 is the header).
    public struct ImportResult: Codable, Sendable {
        public var imported: [Int] = []
        /// Rows whose book was already in the library (same ISBN, or same title and first author).
        public var duplicates: [Int] = []
        /// Rows skipped, with why.
        public var skipped: [String] = []
        /// Rows imported despite a problem (an ISBN with a wrong check digit, dropped).
        public var warnings: [String] = []
    }

    /// Reads a Goodreads export, or any CSV whose header names a title and/or an ISBN column
    /// (and optionally authors, rating, shelf/status, publisher, pages, year, notes, date added,
    /// copies), in any order and common spellings. Books already present (same ISBN, or same
    /// title and first author) are not added twice.
    /// With `owned: false` the rows become a reference catalogue: matched against, never listed.
    public static func importCSV(_ text: String, into library: LibraryDatabase, source: String = "import", owned: Bool = true)
        throws(ShelfScanError) -> ImportResult
    {
        let rows = CSVReader.rows(text)
        guard let header = rows.first else { throw ShelfScanError(.invalidArgument, "the CSV file is empty") }
        let columns = Columns(header)
        guard columns.title != nil || !columns.isbn.isEmpty else {
            throw ShelfScanError(.invalidArgument, "the CSV header names no title or ISBN column (found: \(header.joined(separator: ", ")))")
        }
        var result = ImportResult()
        var books: [(row: Int, book: Book)] = []
        for (index, row) in rows.enumerated().dropFirst() {
            let number = index + 1
            switch columns.book(from: row, source: source) {
            case .success(let (book, warning)):
                if let warning { result.warnings.append("row \(number): \(warning)") }
                var row = book
                if !owned { row.owned = false; row.readingStatus = nil }
                books.append((number, row))
            case .failure(let why):
                result.skipped.append("row \(number): \(why)")
            }
        }
        let outcome = try library.addUnlessPresent(books.map(\.book))
        for ((number, _), added) in zip(books, outcome) {
            if added { result.imported.append(number) } else { result.duplicates.append(number) }
        }
        return result
    }

    /// Header positions of the fields we read.
    struct Columns {
        var title: Int?, subtitle: Int?, author: Int?, additionalAuthors: Int?, isbn: [Int] = []
        /// The author column is named in the plural: commas separate authors, not surname and name.
        var authorList = false
        var rating: Int?, shelf: Int?, publisher: Int?, pages: Int?, year: Int?, notes: Int?, dateAdded: Int?, copies: Int?

        init(_ header: [String]) {
            func key(_ s: String) -> String { s.lowercased().filter { $0.isLetter || $0.isNumber } }
            for (i, name) in header.enumerated() {
                switch key(name) {
                case "title", "booktitle", "name": title = title ?? i
                case "subtitle": subtitle = i
                case "author", "authorname", "creator", "writer": author = author ?? i
                case "authors", "authornames", "creators": author = author ?? i; authorList = author == i
                case "additionalauthors": additionalAuthors = i
                case "isbn13", "isbn", "isbn10", "ean", "ean13": isbn.append(i)
                // Derived ISBN columns ("isbn10_padded", "isbn13_from_isbn10"); not flags or
                // damaged copies ("isbn10_valid", "isbn13_original_float").
                case let k where k.hasPrefix("isbn") && !["valid", "float", "agree", "source", "type"].contains(where: k.contains):
                    isbn.append(i)
                case "myrating", "rating", "stars": rating = rating ?? i
                case "exclusiveshelf", "status", "readingstatus", "readstatus", "shelf": shelf = shelf ?? i
                case "publisher": publisher = i
                case "numberofpages", "pages", "pagecount": pages = pages ?? i
                case "yearpublished", "year", "publicationyear": year = year ?? i
                case "privatenotes", "notes", "note": notes = notes ?? i
                case "dateadded", "added": dateAdded = dateAdded ?? i
                case "ownedcopies", "copies": copies = copies ?? i
                default: break
                }
            }
        }

        func book(from row: [String], source: String) -> Result<(Book, String?), RowProblem> {
            // The CSV reader has already removed the quoting; a field's own quotes are kept.
            func value(_ i: Int?) -> String? {
                guard let i, i < row.count else { return nil }
                let v = row[i].trimmingCharacters(in: .whitespacesAndNewlines)
                return v.isEmpty ? nil : v
            }
            var warning: String?
            var parsedISBN: ISBN?
            for i in self.isbn {
                guard let raw = value(i).map(ISBNLine.unwrap), !raw.isEmpty else { continue }
                if let parsed = ISBN(raw) { parsedISBN = parsed; break }
                // A library catalogue's qualifier after the number: "9788425425035 (vol. 1)".
                let leading = String(raw.prefix { $0.isNumber || $0 == "-" || $0 == "X" || $0 == "x" })
                if leading.count < raw.count, let parsed = ISBN(leading) { parsedISBN = parsed; break }
                warning = "ISBN \(raw) has a wrong check digit or length; imported without it"
            }
            if parsedISBN != nil { warning = nil }
            let isbn = parsedISBN
            // A colon stays in the title: Goodreads titles carry colons of their own.
            let bookTitle = value(self.title) ?? ""
            let subtitle = value(self.subtitle)
            guard !bookTitle.isEmpty || isbn != nil else { return .failure(RowProblem("no title and no valid ISBN")) }
            var authors: [String] = []
            if let a = value(author) {
                let separator: Character? = a.contains(";") ? ";" : (authorList && a.contains(",") ? "," : nil)
                authors = separator.map { a.split(separator: $0).map { $0.trimmingCharacters(in: .whitespaces) } } ?? [Self.personName(a)]
                authors = authors.filter { !$0.isEmpty }
            }
            if let more = value(additionalAuthors) {
                authors += more.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            let rating = value(rating).flatMap { Int($0) }.flatMap { (1...5).contains($0) ? $0 : nil }
            var book = Book(isbn: isbn, title: bookTitle, subtitle: subtitle, authors: authors, publisher: value(publisher),
                            year: value(year).flatMap { JSONValue.year($0) }, pageCount: value(pages).flatMap { Int($0) },
                            source: source, dateAdded: value(dateAdded).flatMap(Self.date) ?? Date(),
                            readingStatus: Self.status(value(shelf)), rating: rating, notes: value(notes))
            book.copies = max(1, value(copies).flatMap { Int($0) } ?? 1)
            return .success((book, warning))
        }

        /// A library catalogue's "Surname, Given, 1919-2020" as "Given Surname"; other names as given
        /// ("King, Jr." style suffixes stay where they are).
        static func personName(_ name: String) -> String {
            var parts = name.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // Life dates: "1919-2020", "1952-", "n. 1960".
            if parts.count > 1, let last = parts.last, last.contains(where: \.isNumber),
               last.allSatisfy({ $0.isNumber || $0 == "-" || $0 == "." || $0 == " " || $0 == "?" || $0 == "n" || $0 == "m" }) {
                parts.removeLast()
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return parts.joined(separator: ", ") }
            let suffixes: Set<String> = ["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "md"]
            if suffixes.contains(parts[1].lowercased()) { return parts.joined(separator: ", ") }
            return parts[1] + " " + parts[0]
        }

        static func status(_ shelf: String?) -> ReadingStatus {
            switch shelf?.lowercased().replacingOccurrences(of: " ", with: "-") {
            case "read", "finished": .read
            case "currently-reading", "reading": .currentlyReading
            default: .wantToRead
            }
        }

        static func date(_ s: String) -> Date? {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            for format in ["yyyy/MM/dd", "yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ss'Z'"] {
                f.dateFormat = format
                if let d = f.date(from: s) { return d }
            }
            return nil
        }
    }

    struct RowProblem: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}
