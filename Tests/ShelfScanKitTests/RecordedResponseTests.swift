import Foundation
import Testing
@testable import ShelfScanKit

/// Real responses recorded by other projects, in `../shared/corpora/api-fixtures` (read in place,
/// never copied here). `manifest.tsv` says which request each file answers.
enum RecordedResponses {
    static let root = Fixtures.sharedCorpora + "/api-fixtures"

    static var available: Bool { FileManager.default.fileExists(atPath: root + "/manifest.tsv") }

    struct Entry {
        let file: String
        let api: String
        let request: String
        let outcome: String
        var name: String { ((file as NSString).lastPathComponent as NSString).deletingPathExtension }
    }

    static func manifest() throws -> [Entry] {
        let text = String(decoding: try Fixtures.bytes(root + "/manifest.tsv"), as: UTF8.self)
        // The manifest has CRLF line ends.
        let rows = text.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(rows.first)
        #expect(Array(header.prefix(4)) == ["file", "api", "request_answered", "outcome"])
        return rows.dropFirst().filter { $0.count >= 4 }.map { Entry(file: $0[0], api: $0[1], request: $0[2], outcome: $0[3]) }
    }

    static func json(_ entry: Entry) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try Fixtures.bytes(root + "/" + entry.file)))
    }

    static func object(_ entry: Entry) throws -> [String: Any] {
        try #require(try json(entry) as? [String: Any], "\(entry.file) is not a JSON object")
    }

    /// The ISBN in a request such as `...bibkeys=ISBN:9780316030571&...` or `...q=isbn:0521339057`.
    static func requestedISBN(_ request: String) -> ISBN? {
        for marker in ["ISBN:", "isbn:"] {
            guard let range = request.range(of: marker) else { continue }
            let digits = request[range.upperBound...].prefix { $0.isNumber || $0 == "X" }
            if let isbn = ISBN(digits) { return isbn }
        }
        return nil
    }
}

@Suite("Recorded catalogue responses", .enabled(if: RecordedResponses.available, "../shared/corpora/api-fixtures is absent: recorded-response tests skipped"),
       .timeLimit(.minutes(1)))
struct RecordedResponseTests {
    typealias R = RecordedResponses

    @Test("the manifest lists every file, and each is valid JSON")
    func manifestComplete() throws {
        let entries = try R.manifest()
        let listed = Set(entries.map(\.file))
        var onDisk: Set<String> = []
        for folder in ["google-books", "open-library"] {
            let files = try FileManager.default.contentsOfDirectory(atPath: R.root + "/" + folder).filter { $0.hasSuffix(".json") }
            onDisk.formUnion(files.map { "\(folder)/\($0)" })
        }
        #expect(listed == onDisk)
        #expect(entries.filter { $0.api == "google-books" }.count == 8)
        #expect(entries.count >= 26)
        for entry in entries { #expect(throws: Never.self, "\(entry.file)") { _ = try R.json(entry) } }
    }

    struct Expected {
        var title: String
        var subtitle: String? = nil
        var authors: [String] = []
        var publisher: String? = nil
        var year: Int? = nil
        var pages: Int? = nil
        var isbn13: String? = nil
        var isbn10: String? = nil
        var categories: [String]? = nil
        var cover: String? = nil
        var language: String? = nil

        func check(_ m: BookMetadata?, _ file: String) {
            guard let m else { Issue.record("\(file): nothing parsed"); return }
            #expect(m.title == title, "\(file)")
            #expect(m.subtitle == subtitle, "\(file)")
            #expect(m.authors == authors, "\(file)")
            #expect(m.publisher == publisher, "\(file)")
            #expect(m.year == year, "\(file)")
            #expect(m.pageCount == pages, "\(file)")
            #expect(m.isbn13 == isbn13, "\(file)")
            #expect(m.isbn10 == isbn10, "\(file)")
            if let categories { #expect(m.categories == categories, "\(file)") }
            #expect(m.coverURL == cover, "\(file)")
            if let language { #expect(m.language == language, "\(file)") }
        }
    }

    // MARK: Open Library /api/books?jscmd=data

    static let dataRecords: [String: Expected] = [
        "ntmb_openlibrary_9780734418227": Expected(
            title: "Wundersmith", subtitle: "The Calling of Morrigan Crow", authors: [], publisher: "Lothian Children's Books",
            year: nil, pages: 473, isbn13: "9780734418227", isbn10: "0734418221", categories: [],
            cover: "https://covers.openlibrary.org/b/id/13769253-L.jpg"),
        "ntmb_openlibrary_9780980200447": Expected(
            title: "Slow reading", authors: ["John Miedema"], publisher: "Litwin Books", year: 2009, pages: 92,
            isbn13: "9780980200447", isbn10: "098020044X", categories: ["Books and reading", "In library", "Reading"],
            cover: "https://covers.openlibrary.org/b/id/5546156-L.jpg"),
        "dkam_openlib_api_books_jscmd_data_9780316030571": Expected(
            title: "Use of Weapons", authors: ["Iain M. Banks"], publisher: "Orbit", year: 2008, pages: 480,
            isbn13: "9780316030571", isbn10: "0316030570",
            categories: ["Fiction", "Science Fiction", "Science Fiction & Fantasy", "Long Now Manual for Civilization", "Space warfare"],
            cover: "https://covers.openlibrary.org/b/id/2379038-L.jpg"),
    ]

    @Test("Open Library jscmd=data records: the value under \"ISBN:...\" parses to the book")
    func openLibraryData() throws {
        let entries = try R.manifest().filter { $0.request.contains("/api/books?") && $0.request.contains("jscmd=data") }
        #expect(Set(entries.map(\.name)) == Set(Self.dataRecords.keys))
        for entry in entries {
            let isbn = try #require(R.requestedISBN(entry.request), "\(entry.request)")
            let record = try #require(try R.object(entry)["ISBN:\(isbn.isbn13)"] as? [String: Any], "\(entry.file)")
            Self.dataRecords[entry.name]?.check(OpenLibraryClient.parseData(record, isbn: isbn.isbn13), entry.file)
        }
    }

    @Test("Open Library jscmd=data: without the asked ISBN, the first ISBN-13 of two stands for the book")
    func openLibraryDataTwoISBNs() throws {
        let entry = try #require(try R.manifest().first { $0.name == "ntmb_openlibrary_9780980200447" })
        let record = try #require(try R.object(entry)["ISBN:9780980200447"] as? [String: Any])
        #expect(JSONValue.strings((record["identifiers"] as? [String: Any])?["isbn_13"]) == ["9780980200447", "9781936117369"])
        let m = OpenLibraryClient.parseData(record, isbn: nil)
        #expect(m?.isbn13 == "9780980200447")
        #expect(m?.title == "Slow reading")
    }

    @Test("Open Library served over HTTP: the client finds the recorded books by ISBN")
    func openLibraryDataOverHTTP() async throws {
        let entries = try R.manifest().filter { $0.request.contains("/api/books?") && $0.request.contains("jscmd=data") }
        var bodies: [String: [UInt8]] = [:]
        for entry in entries {
            bodies[try #require(R.requestedISBN(entry.request)).isbn13] = try Fixtures.bytes(R.root + "/" + entry.file)
        }
        let recorded = bodies
        let server = try TestHTTPServer { _, target in
            let isbn = CatalogueRoutes.bibkeys(target).first ?? ""
            return recorded[isbn].map { .respond(status: 200, headers: ["Content-Type": "application/json"], body: $0) }
                ?? .json(CatalogueJSON.openLibraryEmpty)
        }
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        for (isbn, _) in recorded.sorted(by: { $0.key < $1.key }) {
            let found = try await client.books(isbns: [isbn])
            #expect(found[isbn]?.isbn13 == isbn)
            #expect(found[isbn]?.title.isEmpty == false)
        }
        #expect(try await client.books(isbns: ["9780316030571"])["9780316030571"]?.authors == ["Iain M. Banks"])
    }

    @Test("Open Library viewapi shape (no title) describes nothing")
    func openLibraryViewAPI() throws {
        let entry = try #require(try R.manifest().first { $0.request.contains("/api/books?") && !$0.request.contains("jscmd=data") })
        let record = try #require(try R.object(entry)["ISBN:9780316030571"] as? [String: Any])
        #expect(record["thumbnail_url"] as? String == "https://covers.openlibrary.org/b/id/2379038-S.jpg")
        #expect(OpenLibraryClient.parseData(record, isbn: "9780316030571") == nil)
    }

    // MARK: Open Library search documents

    @Test("Open Library search documents parse, first 978/979 ISBN standing for the work")
    func openLibrarySearchDocs() throws {
        let client = OpenLibraryClient(baseURL: "https://openlibrary.org", coversURL: "https://covers.openlibrary.org",
                                       fetcher: MetadataHarness.fetcher(HostRateLimiter()))
        let entries = try R.manifest()

        let single = try #require(entries.first { $0.name == "minhanli_search_doc_last_house_guest" })
        Expected(title: "The Last House Guest", authors: ["Megan Miranda"], publisher: "Simon & Schuster", year: 2019, pages: 352,
                 isbn13: "9781982130213", isbn10: "1982130210", categories: ["Fiction, suspense", "Maine, fiction"],
                 cover: "https://covers.openlibrary.org/b/id/8781823-L.jpg", language: "en")
            .check(client.parseSearchDoc(try R.object(single)), single.file)

        // A whole search response (the Last House Guest record above is one document of one).
        let response = try #require(entries.first { $0.request.hasPrefix("GET ") && $0.request.contains("/search.json?") })
        let docs = try #require(try R.object(response)["docs"] as? [[String: Any]])
        #expect(docs.count == 1)
        // The first valid ISBN listed (6076340487, a Mexican edition) stands for the work.
        Expected(title: "Dr. STONE, Vol. 1", authors: ["Riichiro Inagaki"], publisher: "Panini", year: 2018, pages: 196,
                 isbn13: "9786076340486", isbn10: "6076340487", cover: "https://covers.openlibrary.org/b/id/12821031-L.jpg",
                 language: "es")
            .check(client.parseSearchDoc(docs[0]), response.file)

        // Author search documents have a name, not a title: no book.
        let authors = try #require(entries.first { $0.request.contains("/search/authors.json") })
        let authorDocs = try #require(try R.object(authors)["docs"] as? [[String: Any]])
        #expect(authorDocs.count == 5)
        #expect(authorDocs.compactMap { client.parseSearchDoc($0) }.isEmpty)
    }

    // MARK: Open Library works

    @Test("Open Library works: description as a string or {type, value}; covers with -1 give no cover")
    func openLibraryWorks() throws {
        let entries = try R.manifest()
        let labyrinth = try R.object(try #require(entries.first { $0.name == "ntmb_openlibrary_work_OL492640W" }))
        #expect(labyrinth["description"] is String)
        #expect(JSONValue.text(labyrinth["description"])?.hasPrefix("Percy Jackson isn't expecting freshman orientation") == true)
        let covers = (labyrinth["covers"] as? [Any])?.compactMap(JSONValue.int) ?? []
        #expect(covers.first == 6274739 && covers.contains(-1))
        let work = OpenLibraryClient.parseData(labyrinth, isbn: nil)
        #expect(work?.title == "The Battle of the Labyrinth")
        #expect(work?.authors == [])  // only author keys, no names
        #expect(work?.coverURL == nil)
        #expect(work?.description?.hasSuffix("with the Battle of the Labyrinth. - Publisher.") == true)
        #expect(work?.categories.count == 8 && work?.categories.first == "Serie:Percy_Jackson_and_the_Olympians")

        let stone = try R.object(try #require(entries.first { $0.name == "buriedincode_work_OL37805541W_json" }))
        #expect(stone["description"] is [String: Any])
        #expect(JSONValue.text(stone["description"])?.hasPrefix("One fateful day, all of humanity was petrified") == true)
        #expect(OpenLibraryClient.parseData(stone, isbn: nil)?.description?.hasSuffix("with the power of science!") == true)
    }

    @Test("every recorded Open Library body parses without a crash")
    func openLibrarySweep() throws {
        let client = OpenLibraryClient(baseURL: "https://openlibrary.org", coversURL: "https://covers.openlibrary.org",
                                       fetcher: MetadataHarness.fetcher(HostRateLimiter()))
        var parsed = 0
        for entry in try R.manifest() where entry.api == "open-library" {
            let object = try R.object(entry)
            let records = [object] + object.values.compactMap { $0 as? [String: Any] }
                + ((object["docs"] as? [Any]) ?? []).compactMap { $0 as? [String: Any] }
            for record in records {
                if let m = OpenLibraryClient.parseData(record, isbn: nil) { #expect(!m.title.isEmpty); parsed += 1 }
                if let m = client.parseSearchDoc(record) { #expect(!m.title.isEmpty) }
            }
        }
        #expect(parsed >= 10)
    }

    // MARK: Google Books

    @Test("Google volumeInfo objects parse: best cover, https, ISBN-10 with X")
    func googleVolumeInfo() throws {
        let entries = try R.manifest()
        func info(_ name: String) throws -> [String: Any] {
            let entry = try #require(entries.first { $0.name == name }, "\(name) not in manifest")
            return try #require(try R.object(entry)["volumeInfo"] as? [String: Any])
        }
        let full = GoogleBooksClient.parse(try info("scriptotek_volume"))
        Expected(title: "Thermodynamics of Solar Energy Conversion", authors: ["Alexis De Vos"], publisher: "John Wiley & Sons",
                 year: 2008, pages: 205, isbn13: "9783527408412", isbn10: "352740841X",
                 categories: ["Technology & Engineering / Power Resources / General"],
                 cover: full?.coverURL, language: "en").check(full, "scriptotek_volume")
        #expect(full?.coverURL?.hasPrefix("https://books.google.com/books/content?id=kPbzR4LDkAkC") == true)
        #expect(full?.coverURL?.contains("zoom=6") == true)  // extraLarge
        #expect(ISBN("352740841X")?.isbn13 == "9783527408412")

        let trimmed = GoogleBooksClient.parse(try info("scriptotek_volume_missing_some_imagelinks"))
        #expect(trimmed?.coverURL?.contains("zoom=3") == true)  // medium, the best left
        #expect(trimmed?.coverURL?.hasPrefix("https://") == true)

        let listed = GoogleBooksClient.parse(try info("scriptotek_volume_from_list"))
        #expect(listed?.categories == ["Technology & Engineering"])
        #expect(listed?.coverURL?.contains("zoom=1") == true)  // thumbnail
        #expect(listed?.isbn13 == "9783527408412")

        let volumes = try R.object(try #require(entries.first { $0.name == "scriptotek_volumes" }))
        let item = try #require((volumes["items"] as? [[String: Any]])?.first?["volumeInfo"] as? [String: Any])
        let noISBN = GoogleBooksClient.parse(item)
        #expect(noISBN?.title == "Foundations of scientific method")
        #expect(noISBN?.subtitle == "the nineteenth century")
        #expect(noISBN?.isbn13 == nil && noISBN?.isbn10 == nil)
        #expect(noISBN?.authors == ["Indiana University. Dept. of History and Philosophy of Science"])
        #expect(noISBN?.year == 1973)
    }

    static let volumesResponses: [String: Expected?] = [
        "ntmb_googlebooks_9780007499793": Expected(
            title: "Space", authors: ["Stephen Baxter"], publisher: "HarperCollins UK", year: 2012, pages: 441,
            isbn13: "9780007499793", isbn10: "0007499795", categories: ["Fiction"],
            cover: "https://books.google.com/books/content?id=lDihJsa19_gC&printsec=frontcover&img=1&zoom=1&edge=curl&source=gbs_api",
            language: "en"),
        "ntmb_googlebooks_9781857989380": Expected(
            title: "Flowers for Algernon", authors: ["Daniel Keyes"], publisher: "Gollancz", year: 2000, pages: 216,
            isbn13: "9781857989380", isbn10: "1857989384", categories: ["Fiction"],
            cover: "https://books.google.com/books/content?id=64tuPwAACAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api",
            language: "en"),
        "scriptotek_volumes_no_imagelinks": Expected(
            title: "Low-dimensional Topology and Kleinian Groups", subtitle: "Warwick and Durham, 1984",
            authors: ["D. B. A. Epstein", "Nigel J. Hitchin", "P. E. Newstead", "W. M. Oxbury"], publisher: nil, year: 1986,
            pages: 345, isbn13: "9780521339056", isbn10: "0521339057", categories: ["Kleinian groups"], cover: nil),
        // The one item has no ISBN identifier at all (OTHER: UOM:...): it cannot be trusted to be the book asked for.
        "scriptotek_volumes": nil,
        // Not found: {"kind": "books#volumes", "totalItems": 0}, no "items" key.
        "scriptotek_volumes_zero": nil,
    ]

    @Test("Google volumes responses served over HTTP: book(isbn13:) finds, rejects or misses as recorded")
    func googleVolumesOverHTTP() async throws {
        let entries = try R.manifest().filter { $0.api == "google-books" }
        let volumes = try entries.filter { try R.object($0)["kind"] as? String == "books#volumes" }
        #expect(Set(volumes.map(\.name)) == Set(Self.volumesResponses.keys))
        for entry in volumes {
            // volumes_zero records no real ISBN; its source spec asks for isbn:0253324009.
            let isbn = try #require(R.requestedISBN(entry.request) ?? ISBN("0253324009"))
            let body = try Fixtures.bytes(R.root + "/" + entry.file)
            let server = try TestHTTPServer(always: .respond(status: 200, headers: ["Content-Type": "application/json"], body: body))
            defer { server.stop() }
            let book = try await MetadataHarness.googleBooks(server).book(isbn13: isbn.isbn13)
            #expect(server.requests.first?.query["q"] == "isbn:\(isbn.isbn13)")
            if let expected = Self.volumesResponses[entry.name] ?? nil {
                expected.check(book, entry.file)
            } else {
                #expect(book == nil, "\(entry.file): \(String(describing: book))")
            }
        }
    }

    @Test("a recorded list item, wrapped in a volumes response, is matched by its ISBN-10 with X")
    func googleListItemOverHTTP() async throws {
        let entry = try #require(try R.manifest().first { $0.name == "scriptotek_volume_from_list" })
        let item = try Fixtures.bytes(R.root + "/" + entry.file)
        let body = Array(#"{"kind": "books#volumes", "totalItems": 1, "items": ["#.utf8) + item + Array("]}".utf8)
        let server = try TestHTTPServer(always: .respond(status: 200, headers: ["Content-Type": "application/json"], body: body))
        defer { server.stop() }
        let book = try await MetadataHarness.googleBooks(server).book(isbn13: "9783527408412")
        #expect(book?.title == "Thermodynamics of Solar Energy Conversion")
        #expect(book?.isbn13 == "9783527408412" && book?.isbn10 == "352740841X")
    }
}
