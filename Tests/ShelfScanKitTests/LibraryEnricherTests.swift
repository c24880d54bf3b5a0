import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Library enricher: adding by ISBN, the enrich queue, covers", .timeLimit(.minutes(1)))
struct LibraryEnricherTests {
    typealias H = MetadataHarness

    static let odyssey = ISBN(CatalogueJSON.odysseyISBN)!
    static let nineteen84 = ISBN(CatalogueJSON.nineteen84ISBN)!
    static let gatsby = ISBN(CatalogueJSON.gatsbyISBN)!

    /// A real JPEG, as a cover server would send it.
    static func jpegBytes() throws -> [UInt8] {
        try Fixtures.bytes(Fixtures.sample("barcodes/isbn-janeeyre-jpeg30.jpg"))
    }

    static func enricher(_ server: TestHTTPServer, library: LibraryDatabase, offline: Bool = false,
                         covers: String? = nil) async -> LibraryEnricher {
        var options = H.options(server, timeout: 2)
        options.offline = offline
        return LibraryEnricher(library: library, metadata: await H.service(options, cache: library, servers: [server]),
                               coversFolder: covers)
    }

    @Test("online: the book is added described by the catalogue")
    func addOnline() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let library = try LibraryDatabase.inMemory()
        let enricher = await Self.enricher(server, library: library)
        let added = try await enricher.add(isbn: Self.odyssey, status: .currentlyReading)
        guard case .described(let book) = added else { Issue.record("expected .described, got \(added)"); return }
        #expect(book.id != nil)
        let stored = try #require(try library.books(isbn13: [CatalogueJSON.odysseyISBN])[CatalogueJSON.odysseyISBN])
        #expect(stored.title == "The Odyssey" && stored.authors == ["Homer"] && stored.publisher == "Penguin Classics")
        #expect(stored.isbn10 == "0143039954" && stored.year == 2006)
        #expect(stored.source == "openlibrary" && stored.readingStatus == .currentlyReading && stored.owned)
        #expect(try library.enrichmentQueue().isEmpty)

        // Google-only book: described from Google.
        guard case .described(let b) = try await enricher.add(isbn: Self.nineteen84) else { Issue.record("1984 not described"); return }
        #expect(b.title == "1984" && b.source == "googlebooks")

        // Adding again: nothing changes, no request.
        let count = server.requestCount
        guard case .alreadyPresent(let again) = try await enricher.add(isbn: Self.odyssey) else { Issue.record("not .alreadyPresent"); return }
        #expect(again.id == book.id)
        #expect(server.requestCount == count)
        #expect(try library.count() == 2)
    }

    @Test("offline: added by ISBN and queued; online later, enrichQueue describes it and empties the queue")
    func offlineThenEnrich() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let library = try LibraryDatabase.inMemory()
        let offline = await Self.enricher(server, library: library, offline: true)
        let added = try await offline.add(isbn: Self.odyssey)
        guard case .queued(let book, let reason) = added else { Issue.record("expected .queued, got \(added)"); return }
        #expect(reason.contains("offline"))
        #expect(book.title.isEmpty && book.isbn13 == CatalogueJSON.odysseyISBN && book.source == "barcode")
        #expect(try library.enrichmentQueue().map(\.book.id) == [book.id])
        #expect(server.requestCount == 0)

        // Offline enrich: still queued, the attempt counted.
        let offlineReport = try await offline.enrichQueue()
        #expect(offlineReport.enriched.isEmpty && offlineReport.stillQueued.count == 1)
        #expect(try library.enrichmentQueue().first?.attempts == 1)

        let online = await Self.enricher(server, library: library)
        let report = try await online.enrichQueue()
        #expect(report.enriched.map(\.title) == ["The Odyssey"])
        #expect(report.notFound.isEmpty && report.stillQueued.isEmpty)
        #expect(try library.enrichmentQueue().isEmpty)
        let stored = try #require(try library.book(id: book.id!))
        #expect(stored.title == "The Odyssey" && stored.authors == ["Homer"] && stored.source == "barcode")
    }

    @Test("enrichQueue: a book no catalogue knows leaves the queue and is reported")
    func enrichNotFound() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let library = try LibraryDatabase.inMemory()
        _ = try await Self.enricher(server, library: library, offline: true).add(isbn: Self.gatsby)
        let report = try await Self.enricher(server, library: library).enrichQueue()
        #expect(report.notFound.map(\.isbn13) == [CatalogueJSON.gatsbyISBN])
        #expect(report.enriched.isEmpty && report.stillQueued.isEmpty)
        #expect(try library.enrichmentQueue().isEmpty)
        #expect(try library.books(isbn13: [CatalogueJSON.gatsbyISBN])[CatalogueJSON.gatsbyISBN]?.title == "")
    }

    @Test("add online, no catalogue knows it: added by ISBN alone, not queued")
    func addUnknown() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let library = try LibraryDatabase.inMemory()
        let added = try await Self.enricher(server, library: library).add(isbn: Self.gatsby)
        guard case .unknown(let book) = added else { Issue.record("expected .unknown, got \(added)"); return }
        #expect(book.title.isEmpty && book.isbn13 == CatalogueJSON.gatsbyISBN)
        #expect(try library.enrichmentQueue().isEmpty)
    }

    @Test("catalogue down: the book is added and queued; enrich while still down keeps it queued, attempts counted")
    func serverDown() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        let library = try LibraryDatabase.inMemory()
        let enricher = await Self.enricher(server, library: library)
        server.stop()  // connection refused from now on

        let added = try await enricher.add(isbn: Self.odyssey)
        guard case .queued(let book, let reason) = added else { Issue.record("expected .queued, got \(added)"); return }
        #expect(reason.contains(server.host), "reason: \(reason)")
        for attempt in 1...2 {
            let report = try await enricher.enrichQueue()
            #expect(report.stillQueued.map(\.book.id) == [book.id])
            #expect(report.enriched.isEmpty && report.notFound.isEmpty)
            let queue = try library.enrichmentQueue()
            #expect(queue.count == 1 && queue.first?.attempts == attempt)
        }
    }

    @Test("covers: a JPEG cover is saved as <folder>/<id>.jpg")
    func coverSaved() async throws {
        let jpeg = try Self.jpegBytes()
        let server = try TestHTTPServer { _, _ in .status(404) }
        defer { server.stop() }
        server.setRoute(CatalogueRoutes.catalogue(
            coversURL: server.baseURL, cover: .respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: jpeg)))
        let dir = try TemporaryDirectory()
        let folder = dir.file("Covers")
        let library = try LibraryDatabase.inMemory()
        let added = try await Self.enricher(server, library: library, covers: folder).add(isbn: Self.odyssey)
        guard case .described(let book) = added else { Issue.record("expected .described, got \(added)"); return }
        let id = try #require(book.id)
        let path = "\(folder)/\(id).jpg"
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try Fixtures.bytes(path) == jpeg)
        #expect(!FileManager.default.fileExists(atPath: path + ".part"))
        #expect(server.requests.contains { $0.target == "/b/id/240726-L.jpg" })
    }

    @Test("covers: a cover URL answering HTML (or 404) saves nothing, and the book is still added")
    func coverNotAnImage() async throws {
        let server = try TestHTTPServer { _, _ in .status(404) }
        defer { server.stop() }
        server.setRoute(CatalogueRoutes.catalogue(
            coversURL: server.baseURL,
            cover: .respond(status: 200, headers: ["Content-Type": "text/html"], body: Array("<html><body>Not a cover</body></html>".utf8))))
        let dir = try TemporaryDirectory()
        let folder = dir.file("Covers")
        let library = try LibraryDatabase.inMemory()
        let enricher = await Self.enricher(server, library: library, covers: folder)
        guard case .described = try await enricher.add(isbn: Self.odyssey) else { Issue.record("not described"); return }
        #expect(server.requests.contains { CatalogueRoutes.isCover($0.target) })
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(files.isEmpty, "saved: \(files)")
    }

    @Test("covers: enrichQueue saves the cover of a book it describes")
    func coverOnEnrich() async throws {
        let jpeg = try Self.jpegBytes()
        let server = try TestHTTPServer { _, _ in .status(404) }
        defer { server.stop() }
        server.setRoute(CatalogueRoutes.catalogue(
            coversURL: server.baseURL, cover: .respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: jpeg)))
        let dir = try TemporaryDirectory()
        let library = try LibraryDatabase.inMemory()
        guard case .queued(let book, _) = try await Self.enricher(server, library: library, offline: true).add(isbn: Self.odyssey)
        else { Issue.record("not queued"); return }
        let report = try await Self.enricher(server, library: library, covers: dir.path).enrichQueue()
        #expect(report.enriched.count == 1)
        #expect(FileManager.default.fileExists(atPath: "\(dir.path)/\(book.id!).jpg"))
    }
}
