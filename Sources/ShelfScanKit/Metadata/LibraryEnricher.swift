import Foundation

/// Puts catalogue data into the library: adding books by ISBN, and working off the queue of books
/// that could not be described when they were added.
public struct LibraryEnricher: Sendable {
    public let library: LibraryDatabase
    public let metadata: MetadataService
    /// Save cover images as `<covers folder>/<book id>.jpg`; nil: don't.
    public let coversFolder: String?

    public init(library: LibraryDatabase, metadata: MetadataService, coversFolder: String? = nil) {
        self.library = library
        self.metadata = metadata
        self.coversFolder = coversFolder
    }

    /// The outcome of adding one ISBN.
    public enum Added: Sendable {
        /// Added with catalogue data.
        case described(Book)
        /// Added by ISBN alone and queued for `shelfscan enrich` (offline or the lookup failed).
        case queued(Book, reason: String)
        /// Added by ISBN alone: no catalogue knows it.
        case unknown(Book)
        /// Already owned: nothing changed.
        case alreadyPresent(Book)
    }

    /// Adds the book with this ISBN, described by the catalogues when they can.
    public func add(isbn: ISBN, status: ReadingStatus? = .wantToRead, source: String = "barcode") async throws(ShelfScanError) -> Added {
        if let existing = try library.books(isbn13: [isbn.isbn13])[isbn.isbn13], existing.owned {
            return .alreadyPresent(existing)
        }
        let outcome = await metadata.lookup(isbns: [isbn.isbn13])[isbn.isbn13] ?? .notFound
        switch outcome {
        case .found(let m):
            var book = MetadataMerge.book(from: m, status: status)
            book.isbn13 = isbn.isbn13
            book.isbn10 = isbn.isbn10
            let added = try library.add(book)
            await saveCover(for: added)
            return .described(added)
        case .notFound:
            return .unknown(try library.add(Book(isbn: isbn, title: "", source: source, readingStatus: status)))
        case .unavailable(let why):
            let added = try library.add(Book(isbn: isbn, title: "", source: source, readingStatus: status))
            try library.queueForEnrichment(bookId: added.id!, reason: why)
            return .queued(added, reason: why)
        }
    }

    /// The result of working off the queue.
    public struct QueueReport: Sendable {
        public var enriched: [Book] = []
        public var notFound: [Book] = []
        public var stillQueued: [(book: Book, reason: String)] = []
    }

    /// Looks up every queued book again. Described books leave the queue; books no catalogue
    /// knows leave it too (reported); failures stay, with the attempt counted.
    public func enrichQueue() async throws(ShelfScanError) -> QueueReport {
        var report = QueueReport()
        let queue = try library.enrichmentQueueISBNs()
        let outcomes = await metadata.lookup(isbns: queue.compactMap(\.isbn13))
        var writes: [(bookId: Int64, enriched: Book?, failure: String?)] = []
        for (bookId, isbn) in queue {
            // Whole records are read only for books there is something to write into.
            func load() throws(ShelfScanError) -> Book? { try library.book(id: bookId) }
            switch isbn.flatMap({ outcomes[$0] }) ?? .notFound {
            case .found(let m):
                guard let book = try load() else { continue }
                let filled = MetadataMerge.fill(book, with: m)
                writes.append((bookId, filled, nil))
                report.enriched.append(filled)
            case .notFound:
                writes.append((bookId, nil, nil))
                if let book = try load() { report.notFound.append(book) }
            case .unavailable(let why):
                writes.append((bookId, nil, why))
                report.stillQueued.append((Book(id: bookId, isbn: isbn.flatMap { ISBN($0) }, title: ""), why))
            }
        }
        // One transaction for the whole queue: a 100,000-book import is enriched in one write.
        try library.finishEnrichments(writes)
        for book in report.enriched { await saveCover(for: book) }
        return report
    }

    /// Downloads the cover when a covers folder is set. The file name is the book's row id, so
    /// nothing the catalogue sends ends up in a path; only JPEG and PNG bodies are kept.
    func saveCover(for book: Book) async {
        guard let folder = coversFolder, let id = book.id, let url = book.coverURL,
              url.hasPrefix("https://") || url.hasPrefix("http://") else { return }
        guard let response = try? await metadata.fetcher.get(url, service: "cover server", accept: "image/jpeg, image/png"), response.status == 200,
              let format = ImageFormat.sniff(response.body), format == .jpeg || format == .png else { return }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/\(id).\(format == .png ? "png" : "jpg")"
        // Written beside and renamed: a crash never leaves half a cover under the real name.
        let temporary = path + ".part"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(response.body)) else { return }
        _ = try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.moveItem(atPath: temporary, toPath: path)
    }
}
