import Foundation
import GRDB
import GRDBSQLite

/// The user's library: one SQLite file (WAL), migrated when opened, every write in a transaction.
public struct LibraryDatabase: Sendable {
    private let dbWriter: any DatabaseWriter
    /// The file path, or nil for an in-memory database.
    public let path: String?

    /// The default location: `$XDG_DATA_HOME/shelfscan/library.sqlite`, falling back to
    /// `~/.local/share/shelfscan/library.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return xdg + "/shelfscan/library.sqlite"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/shelfscan/library.sqlite"
    }

    /// Opens (creating it and its folder if needed) the library at `path` and migrates it.
    public static func open(path: String) throws(ShelfScanError) -> LibraryDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ShelfScanError(.database, "\(path): cannot create folder \(directory) (\(error.localizedDescription)); choose another with --library")
            }
        }
        do {
            var config = Configuration()
            config.busyMode = .timeout(10)
            let pool = try DatabasePool(path: path, configuration: config)
            return try LibraryDatabase(pool, path: path)
        } catch let error as ShelfScanError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw ShelfScanError(.database, "\(path): is not a SQLite database; move it aside or pass --library PATH")
        } catch {
            throw ShelfScanError(.database, "\(path): cannot open library (\(Self.describe(error))); check the path or pass --library PATH")
        }
    }

    /// An empty library in memory, for tests and for scans without a library file.
    public static func inMemory() throws(ShelfScanError) -> LibraryDatabase {
        do {
            return try LibraryDatabase(DatabaseQueue(), path: nil)
        } catch let error as ShelfScanError {
            throw error
        } catch {
            throw ShelfScanError(.database, "cannot create in-memory library: \(Self.describe(error))")
        }
    }

    private init(_ writer: any DatabaseWriter, path: String?) throws {
        dbWriter = writer
        self.path = path
        let migrator = Self.migrator
        let superseded = try writer.read { db in try migrator.hasBeenSuperseded(db) }
        if superseded {
            throw ShelfScanError(.database, "\(path ?? "library"): was written by a newer shelfscan; upgrade shelfscan to use it")
        }
        try migrator.migrate(writer)
    }

    /// Named migrations. They use raw schema calls, never app types, so old steps keep working
    /// when `Book` changes.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-books") { db in
            try db.create(table: "books") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("isbn13", .text)
                t.column("isbn10", .text)
                t.column("title", .text).notNull().defaults(to: "")
                t.column("subtitle", .text)
                t.column("authors", .text).notNull().defaults(to: "[]")
                t.column("publisher", .text)
                t.column("year", .integer)
                t.column("pageCount", .integer)
                t.column("language", .text)
                t.column("categories", .text).notNull().defaults(to: "[]")
                t.column("description", .text)
                t.column("coverURL", .text)
                t.column("source", .text).notNull().defaults(to: "manual")
                t.column("dateAdded", .datetime).notNull()
                t.column("readingStatus", .text)
                    .check(sql: "readingStatus IN ('want-to-read', 'currently-reading', 'read')")
                t.column("rating", .integer).check(sql: "rating BETWEEN 1 AND 5")
                t.column("notes", .text)
                t.column("owned", .boolean).notNull().defaults(to: true)
            }
            // One row per ISBN: a re-scan or re-import can never duplicate a book.
            try db.execute(sql: "CREATE UNIQUE INDEX books_isbn13 ON books(isbn13) WHERE isbn13 IS NOT NULL")
            try db.create(index: "books_owned", on: "books", columns: ["owned"])
        }
        migrator.registerMigration("v1-books-fts") { db in
            // Trigram tokens match inside words and survive OCR slips; queries need 3+ characters.
            try db.create(virtualTable: "books_fts", using: FTS5()) { t in
                t.synchronize(withTable: "books")
                t.tokenizer = FTS5TokenizerDescriptor(components: ["trigram"])
                t.column("title")
                t.column("authors")
            }
        }
        migrator.registerMigration("v2-lookup-cache") { db in
            // Every catalogue answer, keyed by source and normalised query; misses too (found = 0).
            try db.create(table: "lookup_cache") { t in
                t.primaryKey("key", .text)
                t.column("found", .boolean).notNull()
                t.column("body", .text).notNull()
                t.column("fetchedAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
            }
            // Library books whose metadata could not be fetched yet (`shelfscan enrich` retries).
            try db.create(table: "enrich_queue") { t in
                t.primaryKey("bookId", .integer).references("books", onDelete: .cascade)
                t.column("reason", .text).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("lastError", .text)
                t.column("queuedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v3-import") { db in
            try db.alter(table: "books") { t in
                t.add(column: "copies", .integer).notNull().defaults(to: 1)
            }
            // Files a bulk import has finished, by content hash: a re-run skips them, so a killed
            // import resumes where it stopped. For ISBN lists, how many lines are done.
            try db.create(table: "import_files") { t in
                t.primaryKey("hash", .text)
                t.column("path", .text).notNull()
                t.column("outcome", .text).notNull()
                t.column("linesDone", .integer).notNull().defaults(to: 0)
                t.column("finished", .boolean).notNull().defaults(to: false)
                t.column("importedAt", .datetime).notNull()
            }
        }
        return migrator
    }

    /// The names of the migrations applied to this database, in order.
    public func appliedMigrations() throws(ShelfScanError) -> [String] {
        try read { db in try Self.migrator.appliedMigrations(db) }
    }

    // MARK: Writes

    /// Adds a book. A book whose ISBN is already owned is refused with `.invalidArgument`
    /// naming the existing row, so nothing is ever duplicated. A reference-catalogue row with the
    /// same ISBN becomes the owned book, keeping catalogue details the new record lacks.
    @discardableResult
    public func add(_ book: Book) throws(ShelfScanError) -> Book {
        try write { db in
            if let isbn = book.isbn13, let existing = try Book.filter(Book.Columns.isbn13 == isbn).fetchOne(db) {
                guard !existing.owned else {
                    throw ShelfScanError(.invalidArgument, "ISBN \(isbn) is already in the library as #\(existing.id ?? 0) \"\(existing.title)\"")
                }
                let adopted = MetadataMerge.adopt(existing, as: book)
                try adopted.update(db)
                return adopted
            }
            var copy = book
            try copy.insert(db)
            return copy
        }
    }

    /// Removes the book with row id `id`; returns the removed book.
    @discardableResult
    public func remove(id: Int64) throws(ShelfScanError) -> Book {
        try write { db in
            guard let book = try Book.fetchOne(db, key: id) else {
                throw ShelfScanError(.notFound, "no book #\(id) in the library; see `shelfscan library list`")
            }
            try book.delete(db)
            return book
        }
    }

    // MARK: Reads

    /// The book with row id `id`.
    public func book(id: Int64) throws(ShelfScanError) -> Book? {
        try read { db in try Book.fetchOne(db, key: id) }
    }

    /// Books by ISBN-13, keyed by ISBN-13; ISBNs not present are absent from the result.
    public func books(isbn13 list: [String]) throws(ShelfScanError) -> [String: Book] {
        guard !list.isEmpty else { return [:] }
        return try read { db in
            let rows = try Book.filter(list.contains(Book.Columns.isbn13)).fetchAll(db)
            return Dictionary(rows.compactMap { b in b.isbn13.map { ($0, b) } }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Owned books, newest first, optionally only those with a given reading status.
    public func list(status: ReadingStatus? = nil, limit: Int? = nil) throws(ShelfScanError) -> [Book] {
        try read { db in
            var request = Book.filter(Book.Columns.owned == true)
            if let status { request = request.filter(Book.Columns.readingStatus == status.rawValue) }
            request = request.order(Book.Columns.dateAdded.desc, Book.Columns.id.desc)
            if let limit { request = request.limit(limit) }
            return try request.fetchAll(db)
        }
    }

    /// Every row, owned books and reference-catalogue entries alike, in id order: what the
    /// title matcher matches spines against.
    ///
    /// Decoded row by row by hand, straight off SQLite's statement (`StatementColumns`),
    /// rather than through `Codable` or GRDB's rows: for a 25,000-row catalogue `Codable` took
    /// about 0.3 s of one core before every scan (a `JSONDecoder` per row for the authors and
    /// categories), GRDB's rows about 0.1 s more than the statement (fiftieth session).
    public func matchableBooks() throws(ShelfScanError) -> [Book] {
        try read { db in
            var books: [Book] = []
            books.reserveCapacity(try Book.fetchCount(db))
            let statement = try db.makeStatement(sql: "SELECT \(Book.matchColumns.joined(separator: ", ")) FROM books ORDER BY id")
            var columns = StatementColumns(statement.sqliteStatement)
            while true {
                let code = sqlite3_step(statement.sqliteStatement)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                books.append(try Book(matchColumns: &columns))
            }
            return books
        }
    }

    /// Removes the reference catalogue (rows with `owned == false`); owned books stay.
    /// Returns how many rows were removed.
    @discardableResult
    public func clearCatalog() throws(ShelfScanError) -> Int {
        try write { db in try Book.filter(Book.Columns.owned == false).deleteAll(db) }
    }

    /// Number of books (owned ones, or all rows including the reference catalogue).
    public func count(ownedOnly: Bool = true) throws(ShelfScanError) -> Int {
        try read { db in
            ownedOnly ? try Book.filter(Book.Columns.owned == true).fetchCount(db) : try Book.fetchCount(db)
        }
    }

    /// Title/author search: an ISBN finds its book; otherwise every word (3+ characters) must appear
    /// in the title or authors (trigram index, so inside words too); shorter words use LIKE.
    public func search(_ query: String, includeCatalog: Bool = false, limit: Int = 50) throws(ShelfScanError) -> [Book] {
        if let isbn = ISBN(query) {
            return try books(isbn13: [isbn.isbn13]).values.filter { includeCatalog || $0.owned }
        }
        let words = query.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !words.isEmpty else { return [] }
        return try read { db in
            var sql = "SELECT books.* FROM books"
            var clauses: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            let long = words.filter { $0.count >= 3 }
            if !long.isEmpty {
                sql += " JOIN books_fts ON books_fts.rowid = books.id AND books_fts MATCH ?"
                // Each word is a quoted FTS5 string: punctuation in user input cannot break the query.
                arguments.append(long.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND "))
            }
            for word in words where word.count < 3 {
                clauses.append("(books.title LIKE ? OR books.authors LIKE ?)")
                arguments.append("%\(word)%")
                arguments.append("%\(word)%")
            }
            if !includeCatalog { clauses.append("books.owned = 1") }
            if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
            sql += long.isEmpty ? " ORDER BY books.title" : " ORDER BY books_fts.rank"
            sql += " LIMIT \(max(1, limit))"
            return try Book.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        }
    }

    // MARK: Catalogue cache and enrichment queue

    /// A cached catalogue answer that has not expired: the records (empty for a cached miss).
    public func cachedLookup(_ key: String, now: Date = Date()) throws(ShelfScanError) -> [BookMetadata]? {
        let row = try read { db in
            try Row.fetchOne(db, sql: "SELECT body FROM lookup_cache WHERE key = ? AND expiresAt > ?", arguments: [key, now])
        }
        guard let body: String = row?["body"] else { return nil }
        // An unreadable entry (written by another version) is a miss, not an error.
        return try? JSONDecoder().decode([BookMetadata].self, from: Data(body.utf8))
    }

    /// Several cached answers in one read (keys without a live entry are absent).
    public func cachedLookups(_ keys: [String], now: Date = Date()) throws(ShelfScanError) -> [String: [BookMetadata]] {
        guard !keys.isEmpty else { return [:] }
        return try read { db in
            var found: [String: [BookMetadata]] = [:]
            let decoder = JSONDecoder()
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = Array(keys[start..<min(start + 500, keys.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                var arguments = StatementArguments(chunk)
                arguments += [now]
                let rows = try Row.fetchAll(db, sql: "SELECT key, body FROM lookup_cache WHERE key IN (\(marks)) AND expiresAt > ?",
                                            arguments: arguments)
                for row in rows {
                    let body: String = row["body"]
                    if let records = try? decoder.decode([BookMetadata].self, from: Data(body.utf8)) { found[row["key"]] = records }
                }
            }
            return found
        }
    }

    /// Stores a catalogue answer (an empty list for "no such book") for `lifetime` seconds.
    public func storeLookup(_ key: String, _ records: [BookMetadata], lifetime: TimeInterval, now: Date = Date()) throws(ShelfScanError) {
        let body = (try? JSONEncoder().encode(records)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO lookup_cache (key, found, body, fetchedAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [key, !records.isEmpty, body, now, now.addingTimeInterval(lifetime)])
        }
    }

    /// Queues a library book for `shelfscan enrich` (once; a second call records the new reason).
    public func queueForEnrichment(bookId: Int64, reason: String) throws(ShelfScanError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO enrich_queue (bookId, reason, queuedAt) VALUES (?, ?, ?)
                    ON CONFLICT(bookId) DO UPDATE SET reason = excluded.reason
                    """, arguments: [bookId, reason, Date()])
        }
    }

    /// The queued books, oldest first.
    public func enrichmentQueue() throws(ShelfScanError) -> [(book: Book, reason: String, attempts: Int)] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT bookId, reason, attempts FROM enrich_queue ORDER BY queuedAt, bookId")
            return try rows.compactMap { row -> (Book, String, Int)? in
                guard let book = try Book.fetchOne(db, key: row["bookId"] as Int64) else { return nil }
                return (book, row["reason"], row["attempts"])
            }
        }
    }

    /// The queued books' ids and ISBN-13s only: cheap for a queue of 100,000.
    public func enrichmentQueueISBNs() throws(ShelfScanError) -> [(bookId: Int64, isbn13: String?)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT q.bookId, b.isbn13 FROM enrich_queue q JOIN books b ON b.id = q.bookId ORDER BY q.queuedAt, q.bookId
                """).map { ($0["bookId"], $0["isbn13"]) }
        }
    }

    /// Records enrichment outcomes in one transaction: an enriched book saved and dequeued, a
    /// book no catalogue knows dequeued, or (with `failure`) the attempt counted and the book left queued.
    public func finishEnrichments(_ outcomes: [(bookId: Int64, enriched: Book?, failure: String?)]) throws(ShelfScanError) {
        guard !outcomes.isEmpty else { return }
        try write { db in
            for (bookId, enriched, failure) in outcomes {
                if let enriched { try enriched.update(db) }
                if let failure {
                    try db.execute(sql: "UPDATE enrich_queue SET attempts = attempts + 1, lastError = ? WHERE bookId = ?",
                                   arguments: [failure, bookId])
                } else {
                    try db.execute(sql: "DELETE FROM enrich_queue WHERE bookId = ?", arguments: [bookId])
                }
            }
        }
    }

    // MARK: Bulk import

    /// What importing one ISBN did.
    public enum ImportOutcome: Sendable, Equatable {
        /// A new library book (`described` when a catalogue row already described it).
        case imported(bookId: Int64, described: Bool)
        case alreadyPresent(bookId: Int64)
        /// `countCopies`: one more copy of a book already present.
        case copyAdded(bookId: Int64, copies: Int)
    }

    /// Where an import stands with one input file (by content hash).
    public struct ImportState: Sendable {
        public let linesDone: Int
        public let finished: Bool
    }

    /// The recorded state of an input, if an import has seen it.
    public func importState(hash: String) throws(ShelfScanError) -> ImportState? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT linesDone, finished FROM import_files WHERE hash = ?", arguments: [hash])
                .map { ImportState(linesDone: $0["linesDone"], finished: $0["finished"]) }
        }
    }

    /// Adds ISBNs and records the input's progress in ONE transaction: after a crash, either both
    /// happened or neither did, so a re-run neither loses nor duplicates anything. New books are
    /// stored by ISBN and queued for enrichment; owned ones are reported (or counted as copies).
    public func importBooks(_ isbns: [ISBN], source: String, status: ReadingStatus?, countCopies: Bool,
                            input: (hash: String, path: String, outcome: String, linesDone: Int, finished: Bool)?)
        throws(ShelfScanError) -> [ImportOutcome]
    {
        try write { db in
            var outcomes: [ImportOutcome] = []
            let now = Date()
            // Raw, cached statements: this loop runs for every line of a 100,000-line list.
            let find = try db.cachedStatement(sql: "SELECT id, owned, copies FROM books WHERE isbn13 = ?")
            let insert = try db.cachedStatement(sql: """
                INSERT INTO books (isbn13, isbn10, title, authors, categories, source, dateAdded, readingStatus, owned, copies)
                VALUES (?, ?, '', '[]', '[]', ?, ?, ?, 1, 1)
                """)
            let queue = try db.cachedStatement(sql: "INSERT OR IGNORE INTO enrich_queue (bookId, reason, queuedAt) VALUES (?, ?, ?)")
            for isbn in isbns {
                if let row = try Row.fetchOne(find, arguments: [isbn.isbn13]) {
                    let id: Int64 = row["id"]
                    if row["owned"] as Bool {
                        if countCopies {
                            let copies = (row["copies"] as Int) + 1
                            try db.execute(sql: "UPDATE books SET copies = ? WHERE id = ?", arguments: [copies, id])
                            outcomes.append(.copyAdded(bookId: id, copies: copies))
                        } else {
                            outcomes.append(.alreadyPresent(bookId: id))
                        }
                        continue
                    }
                    // A reference-catalogue row becomes the owned book.
                    try db.execute(sql: "UPDATE books SET owned = 1, readingStatus = ?, dateAdded = ? WHERE id = ?",
                                   arguments: [status?.rawValue, now, id])
                    let title = try String.fetchOne(db, sql: "SELECT title FROM books WHERE id = ?", arguments: [id]) ?? ""
                    outcomes.append(.imported(bookId: id, described: !title.isEmpty))
                    continue
                }
                try insert.execute(arguments: [isbn.isbn13, isbn.isbn10, source, now, status?.rawValue])
                let id = db.lastInsertedRowID
                try queue.execute(arguments: [id, "imported by ISBN", now])
                outcomes.append(.imported(bookId: id, described: false))
            }
            if let input {
                try db.execute(
                    sql: """
                        INSERT INTO import_files (hash, path, outcome, linesDone, finished, importedAt) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(hash) DO UPDATE SET path = excluded.path, outcome = excluded.outcome,
                            linesDone = excluded.linesDone, finished = excluded.finished, importedAt = excluded.importedAt
                        """, arguments: [input.hash, input.path, input.outcome, input.linesDone, input.finished, now])
            }
            return outcomes
        }
    }

    /// Adds books in one transaction, skipping any already owned (same ISBN, or, without an
    /// ISBN, the same normalised title and first author). Returns, per book, whether it was added.
    public func addUnlessPresent(_ books: [Book]) throws(ShelfScanError) -> [Bool] {
        try write { db in
            var added: [Bool] = []
            // Title keys of owned books (and of those added here), with their ISBNs: read once,
            // compared in Swift (SQLite's lower() folds ASCII letters only).
            var known: [String: [String?]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT title, authors, isbn13 FROM books WHERE owned = 1") {
                let authorsJSON: String = row["authors"] ?? "[]"
                let authors = (try? JSONDecoder().decode([String].self, from: Data(authorsJSON.utf8))) ?? []
                let key = Self.titleKey(title: row["title"] ?? "", firstAuthor: authors.first)
                if !key.isEmpty { known[key, default: []].append(row["isbn13"]) }
            }
            for book in books {
                let key = Self.titleKey(book)
                if let isbn = book.isbn13, var existing = try Book.filter(Book.Columns.isbn13 == isbn).fetchOne(db) {
                    // Owned already, or a catalogue row offered again as a catalogue row.
                    if existing.owned || !book.owned { added.append(false); continue }
                    existing = MetadataMerge.adopt(existing, as: book)
                    try existing.update(db)
                    if !key.isEmpty { known[key, default: []].append(isbn) }
                    added.append(true)
                    continue
                }
                // Same title and first author is the same book only when an ISBN is missing on
                // either side: two editions with their own ISBNs are two books.
                if !key.isEmpty, let isbns = known[key], isbns.contains(where: { $0 == nil || book.isbn13 == nil }) {
                    added.append(false)
                    continue
                }
                var copy = book
                try copy.insert(db)
                if !key.isEmpty, copy.owned { known[key, default: []].append(copy.isbn13) }
                added.append(true)
            }
            return added
        }
    }

    /// Normalised title and first author, for finding the same book without an ISBN.
    static func titleKey(_ b: Book) -> String {
        titleKey(title: b.title, firstAuthor: b.authors.first)
    }

    static func titleKey(title: String, firstAuthor: String?) -> String {
        guard !title.isEmpty else { return "" }
        return MetadataService.normalise(title) + "|" + MetadataService.normalise(firstAuthor ?? "")
    }

    // MARK: Plumbing

    private func read<T>(_ body: (Database) throws -> T) throws(ShelfScanError) -> T {
        do {
            return try dbWriter.read(body)
        } catch {
            throw Self.wrap(error, path)
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(ShelfScanError) -> T {
        do {
            // `write` wraps the body in a transaction: all of it lands, or none of it.
            return try dbWriter.write(body)
        } catch {
            throw Self.wrap(error, path)
        }
    }

    private static func wrap(_ error: any Error, _ path: String?) -> ShelfScanError {
        if let error = error as? ShelfScanError { return error }
        return ShelfScanError(.database, "\(path ?? "library"): \(describe(error))")
    }

    private static func describe(_ error: any Error) -> String {
        if let db = error as? DatabaseError { return db.message ?? "\(db.resultCode)" }
        return "\(error)"
    }
}
