import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ShelfScanKit

@Suite("Catalogue clients against a local HTTP server", .timeLimit(.minutes(1)))
struct MetadataClientTests {
    // MARK: Open Library

    @Test("Open Library: a known ISBN is described, from one /api/books?jscmd=data request")
    func openLibraryFound() async throws {
        let server = try TestHTTPServer { _, target in
            CatalogueRoutes.isOpenLibraryBooks(target) ? .json(CatalogueJSON.openLibraryOdyssey()) : .status(404)
        }
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let found = try await client.books(isbns: [CatalogueJSON.odysseyISBN])
        let book = try #require(found[CatalogueJSON.odysseyISBN])
        #expect(book.title == "The Odyssey")
        #expect(book.authors == ["Homer"])
        #expect(book.publisher == "Penguin Classics")
        #expect(book.year == 2006)
        #expect(book.pageCount == 541)
        #expect(book.isbn13 == "9780143039952" && book.isbn10 == "0143039954")
        #expect(book.categories == ["Epic poetry, Greek", "Odysseus (Greek mythology)"])
        #expect(book.coverURL == "https://covers.openlibrary.org/b/id/240726-L.jpg")
        #expect(book.sources == [.openlibrary])

        let requests = server.requests
        try #require(requests.count == 1)
        #expect(requests[0].method == "GET")
        #expect(requests[0].path == "/api/books")
        #expect(requests[0].query["bibkeys"] == "ISBN:9780143039952")
        #expect(requests[0].query["jscmd"] == "data" && requests[0].query["format"] == "json")
    }

    @Test("Open Library: `{}` means not found; several ISBNs share one request")
    func openLibraryNotFoundAndBatch() async throws {
        let server = try TestHTTPServer { _, target in
            .json(CatalogueRoutes.bibkeys(target).contains(CatalogueJSON.odysseyISBN)
                  ? CatalogueJSON.openLibraryOdyssey() : CatalogueJSON.openLibraryEmpty)
        }
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        #expect(try await client.books(isbns: [CatalogueJSON.gatsbyISBN]).isEmpty)

        let found = try await client.books(isbns: [CatalogueJSON.gatsbyISBN, CatalogueJSON.odysseyISBN])
        #expect(Array(found.keys) == [CatalogueJSON.odysseyISBN])
        #expect(server.requestCount == 2)
        #expect(CatalogueRoutes.bibkeys(server.requests[1].target) == [CatalogueJSON.gatsbyISBN, CatalogueJSON.odysseyISBN])
    }

    @Test("Open Library: 21 ISBNs are asked in two requests (20 per request)")
    func openLibraryBatchesOfTwenty() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.echo())
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        // 21 valid ISBN-13s: 978000000000-check for bodies 0..20.
        let isbns = (0..<21).map { i -> String in
            let body = "978" + String(format: "%09d", i)
            return (0...9).lazy.map { body + String($0) }.first { ISBN($0) != nil }!
        }
        let found = try await client.books(isbns: isbns)
        #expect(found.count == 21)
        #expect(server.requests.map { CatalogueRoutes.bibkeys($0.target).count } == [20, 1])
        #expect(found[isbns[20]]?.title == "Book \(isbns[20])")
    }

    @Test("Open Library: a record with only a title parses (no authors, publishers, cover, date)")
    func openLibraryMissingFields() async throws {
        let server = try TestHTTPServer(always: .json(CatalogueJSON.openLibraryBare(isbn: CatalogueJSON.gatsbyISBN, title: "Untitled Draft")))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let book = try #require(try await client.books(isbns: [CatalogueJSON.gatsbyISBN])[CatalogueJSON.gatsbyISBN])
        #expect(book.title == "Untitled Draft")
        #expect(book.authors.isEmpty)
        #expect(book.publisher == nil && book.year == nil && book.pageCount == nil && book.coverURL == nil)
        #expect(book.categories.isEmpty && book.description == nil)

        // A record without a title is no description at all.
        #expect(OpenLibraryClient.parseData(["authors": [["name": "Someone"]]], isbn: CatalogueJSON.gatsbyISBN) == nil)
        #expect(OpenLibraryClient.parseData(["title": "   "], isbn: CatalogueJSON.gatsbyISBN) == nil)
    }

    @Test("Open Library search: several documents, order kept, cover_i -1 gives no cover")
    func openLibrarySearch() async throws {
        let server = try TestHTTPServer { _, target in
            target.hasPrefix("/search.json?") ? .json(CatalogueJSON.openLibrarySearchOrwell) : .status(404)
        }
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let results = try await client.search(title: "Nineteen Eighty-Four", author: "George Orwell", limit: 5)
        #expect(results.map(\.title) == ["Nineteen Eighty-Four", "Animal Farm", "Orwell on Truth"])
        #expect(results[0].isbn13 == "9780451524935")
        #expect(results[0].coverURL == "\(server.baseURL)/b/id/153541-L.jpg")
        #expect(results[0].language == "en")
        #expect(results[0].year == 1949 && results[0].pageCount == 328)
        #expect(results[0].publisher == "Secker & Warburg")
        #expect(results[1].coverURL == nil)
        #expect(results[2].authors.isEmpty && results[2].isbn13 == nil)

        let query = try #require(server.requests.first).query
        #expect(query["title"] == "Nineteen Eighty-Four")
        #expect(query["author"] == "George Orwell")
        #expect(query["limit"] == "5")
    }

    @Test("Open Library search: punctuation in the title cannot break the query string")
    func openLibrarySearchEncoding() async throws {
        let server = try TestHTTPServer(always: .json(#"{"numFound": 0, "docs": []}"#))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        #expect(try await client.search(title: "Tom & Jerry = fun? #1", author: nil).isEmpty)
        let query = try #require(server.requests.first).query
        #expect(query["title"] == "Tom & Jerry = fun? #1")
        #expect(query["author"] == nil)
    }

    // MARK: Google Books

    @Test("Google Books: a known ISBN is described; http cover links become https")
    func googleFound() async throws {
        let server = try TestHTTPServer { _, target in
            CatalogueRoutes.googleISBN(target) == CatalogueJSON.nineteen84ISBN
                ? .json(CatalogueJSON.googleVolumes([CatalogueJSON.googleNineteen84])) : .json(CatalogueJSON.googleNone)
        }
        defer { server.stop() }
        let client = await MetadataHarness.googleBooks(server)
        let book = try #require(try await client.book(isbn13: CatalogueJSON.nineteen84ISBN))
        #expect(book.title == "1984")
        #expect(book.authors == ["George Orwell"])
        #expect(book.publisher == "Signet Classic")
        #expect(book.year == 1961 && book.pageCount == 328)
        #expect(book.isbn13 == "9780451524935" && book.isbn10 == "0451524934")
        #expect(book.categories == ["Fiction"] && book.language == "en")
        #expect(book.coverURL == "https://books.google.com/books/content?id=kotPYEqx7kMC&printsec=frontcover&img=1&zoom=1")
        #expect(book.sources == [.googlebooks])
        let request = try #require(server.requests.first)
        #expect(request.path == "/books/v1/volumes")
        #expect(request.query["q"] == "isbn:9780451524935")
    }

    @Test("Google Books: no `items` key means not found")
    func googleNotFound() async throws {
        let server = try TestHTTPServer(always: .json(CatalogueJSON.googleNone))
        defer { server.stop() }
        let client = await MetadataHarness.googleBooks(server)
        #expect(try await client.book(isbn13: CatalogueJSON.gatsbyISBN) == nil)
        #expect(try await client.search(title: "Nothing Like This", author: nil).isEmpty)
        #expect(server.requestCount == 2)
    }

    @Test("Google Books: a result whose identifiers lack the ISBN asked for is rejected")
    func googleMismatchRejected() async throws {
        let other = CatalogueJSON.googleInfo(isbn: CatalogueJSON.animalFarmISBN, title: "Animal Farm", authors: ["George Orwell"])
        let server = try TestHTTPServer(always: .json(CatalogueJSON.googleVolumes([other])))
        defer { server.stop() }
        let client = await MetadataHarness.googleBooks(server)
        #expect(try await client.book(isbn13: CatalogueJSON.nineteen84ISBN) == nil)

        // The right item after a wrong one is found; the wrong one is skipped.
        let both = CatalogueJSON.googleVolumes([other, CatalogueJSON.googleNineteen84])
        server.setRoute { _, _ in .json(both) }
        let book = try await client.book(isbn13: CatalogueJSON.nineteen84ISBN)
        #expect(book?.title == "1984")
        #expect(book?.isbn13 == CatalogueJSON.nineteen84ISBN)
    }

    @Test("Google Books: matched by ISBN-10 when the item lists only that")
    func googleMatchesISBN10() async throws {
        var info = CatalogueJSON.googleNineteen84
        info["industryIdentifiers"] = [["type": "ISBN_10", "identifier": "0451524934"]]
        let server = try TestHTTPServer(always: .json(CatalogueJSON.googleVolumes([info])))
        defer { server.stop() }
        let client = await MetadataHarness.googleBooks(server)
        let book = try await client.book(isbn13: CatalogueJSON.nineteen84ISBN)
        #expect(book?.title == "1984")
        #expect(book?.isbn13 == "9780451524935" && book?.isbn10 == "0451524934")
    }

    @Test("Google Books: search keeps the order; missing fields parse without a crash")
    func googleSearchAndMissingFields() async throws {
        let bare: [String: Any] = ["title": "A Title Only"]
        let noTitle: [String: Any] = ["authors": ["Nobody"]]
        let server = try TestHTTPServer(always: .json(CatalogueJSON.googleVolumes([
            CatalogueJSON.googleNineteen84, noTitle, bare,
            CatalogueJSON.googleInfo(isbn: CatalogueJSON.animalFarmISBN, title: "Animal Farm"),
        ])))
        defer { server.stop() }
        let client = await MetadataHarness.googleBooks(server)
        let results = try await client.search(title: "Orwell collection", author: "George Orwell")
        #expect(results.map(\.title) == ["1984", "A Title Only", "Animal Farm"])
        #expect(results[1].authors.isEmpty && results[1].publisher == nil && results[1].coverURL == nil && results[1].isbn13 == nil)
        #expect(results[2].authors.isEmpty && results[2].coverURL == nil && results[2].isbn13 == CatalogueJSON.animalFarmISBN)
        let query = try #require(server.requests.first).query
        #expect(query["q"] == #"intitle:"Orwell collection" inauthor:"George Orwell""#)
        #expect(query["maxResults"] == "5")
    }

    @Test("Google Books: the API key is sent when given")
    func googleAPIKey() async throws {
        let server = try TestHTTPServer(always: .json(CatalogueJSON.googleNone))
        defer { server.stop() }
        let client = GoogleBooksClient(baseURL: server.baseURL + "/books/v1/", apiKey: "k&y=1",
                                       fetcher: MetadataHarness.fetcher(await MetadataHarness.fastLimiter(server)))
        _ = try await client.book(isbn13: CatalogueJSON.gatsbyISBN)
        let request = try #require(server.requests.first)
        #expect(request.path == "/books/v1/volumes")
        #expect(request.query["key"] == "k&y=1")
    }

    // MARK: HTTP statuses

    @Test("404 is an answer: not found, not an error, not retried")
    func notFoundStatus() async throws {
        let server = try TestHTTPServer(always: .status(404))
        defer { server.stop() }
        #expect(try await MetadataHarness.openLibrary(server).books(isbns: [CatalogueJSON.odysseyISBN]).isEmpty)
        #expect(try await MetadataHarness.googleBooks(server).book(isbn13: CatalogueJSON.odysseyISBN) == nil)
        #expect(try await MetadataHarness.openLibrary(server).search(title: "x", author: nil).isEmpty)
        #expect(server.requestCount == 3)
    }

    @Test("429 with Retry-After: 1, then 200: found, and the retry waits the second")
    func tooManyRequestsThenFound() async throws {
        let server = try TestHTTPServer(route: TestHTTPServer.sequence(
            [.status(429, headers: ["Retry-After": "1"])], then: .json(CatalogueJSON.openLibraryOdyssey())))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let found = try await client.books(isbns: [CatalogueJSON.odysseyISBN])
        #expect(found[CatalogueJSON.odysseyISBN]?.title == "The Odyssey")
        let requests = server.requests
        try #require(requests.count == 2)
        let gap = (requests[1].arrival - requests[0].arrival).inSeconds
        #expect(gap >= 0.9, "the retry came \(gap) s after the 429")
        // Upper bounds are loose: the suite runs tests in parallel on two cores.
        #expect(gap < 30, "the retry came \(gap) s after the 429")
    }

    @Test("429 with a Retry-After over the limit: .rateLimited at once, saying how long")
    func tooManyRequestsTooLong() async throws {
        let server = try TestHTTPServer(always: .status(429, headers: ["Retry-After": "120"]))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let start = ContinuousClock.now
        let error = await #expect(throws: ShelfScanError.self) {
            try await client.books(isbns: [CatalogueJSON.odysseyISBN])
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.message.contains("Open Library") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("120 s") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("429") == true)
        #expect(server.requestCount == 1)
        // Far below the 120 s asked for (loose: the suite runs tests in parallel on two cores).
        #expect((ContinuousClock.now - start).inSeconds < 60)
    }

    @Test("429 every time (short Retry-After): .rateLimited after the attempts")
    func tooManyRequestsAlways() async throws {
        let server = try TestHTTPServer(always: .status(429, headers: ["Retry-After": "0"]))
        defer { server.stop() }
        let client = await MetadataHarness.googleBooks(server)
        let error = await #expect(throws: ShelfScanError.self) { try await client.book(isbn13: CatalogueJSON.odysseyISBN) }
        #expect(error?.code == .rateLimited)
        #expect(error?.message.contains("Google Books") == true)
        #expect(server.requestCount == 3)
    }

    @Test("500 three times: an error naming the service; 500 then 200: found")
    func serverErrors() async throws {
        let server = try TestHTTPServer(always: .status(500))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let error = await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        #expect(error?.code == .network)
        #expect(error?.message.contains("Open Library") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("500") == true)
        #expect(server.requestCount == 3)

        server.setRoute(TestHTTPServer.sequence([.status(500)], then: .json(CatalogueJSON.openLibraryOdyssey())))
        let found = try await client.books(isbns: [CatalogueJSON.odysseyISBN])
        #expect(found[CatalogueJSON.odysseyISBN]?.title == "The Odyssey")
        #expect(server.requestCount == 5)
    }

    @Test("backoff doubles between retries of a 5xx")
    func backoffDoubles() async throws {
        let server = try TestHTTPServer(always: .status(503))
        defer { server.stop() }
        let limiter = await MetadataHarness.fastLimiter(server)
        var fetcher = MetadataHarness.fetcher(limiter)
        fetcher.backoff = .milliseconds(200)
        let client = OpenLibraryClient(baseURL: server.baseURL, coversURL: server.baseURL, fetcher: fetcher)
        _ = await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        let arrivals = server.requests.map(\.arrival)
        try #require(arrivals.count == 3)
        #expect((arrivals[1] - arrivals[0]).inSeconds >= 0.18)
        #expect((arrivals[2] - arrivals[1]).inSeconds >= 0.38)
    }

    @Test("a 5xx whose Retry-After is over the limit is not waited for")
    func serverErrorWithLongRetryAfter() async throws {
        // PoliteFetcher documents: "A `Retry-After` longer than this is not waited for".
        let server = try TestHTTPServer(always: .status(503, headers: ["Retry-After": "120"]))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let start = ContinuousClock.now
        // Bounded: if the fetcher does wait, the race gives up after 4 s and cancels it.
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try? await client.books(isbns: [CatalogueJSON.odysseyISBN])
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(4))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(finished, "a 503 with Retry-After: 120 held the request for \((ContinuousClock.now - start).inSeconds) s (maxRetryAfter is 30 s)")
    }

    @Test("403: an error that asks for a contact address")
    func forbidden() async throws {
        let server = try TestHTTPServer(always: .status(403))
        defer { server.stop() }
        let error = await #expect(throws: ShelfScanError.self) {
            try await MetadataHarness.openLibrary(server).books(isbns: [CatalogueJSON.odysseyISBN])
        }
        #expect(error?.message.contains("--contact") == true)
        #expect(server.requestCount == 1)
    }

    @Test("an unexpected status (418) is a bad response naming the service")
    func unexpectedStatus() async throws {
        let server = try TestHTTPServer(always: .status(418))
        defer { server.stop() }
        let error = await #expect(throws: ShelfScanError.self) {
            try await MetadataHarness.googleBooks(server).book(isbn13: CatalogueJSON.odysseyISBN)
        }
        #expect(error?.code == .badResponse)
        #expect(error?.message.contains("Google Books") == true && error?.message.contains("418") == true)
    }

    // MARK: Transport failures and bad bodies

    @Test("a connection that never answers fails within about the timeout, and is not retried")
    func hungConnection() async throws {
        let server = try TestHTTPServer(always: .hang)
        defer { server.stop() }
        let timeout = 1.5
        let client = await MetadataHarness.openLibrary(server, timeout: timeout)
        let start = ContinuousClock.now
        let error = await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        let elapsed = (ContinuousClock.now - start).inSeconds
        #expect(error?.code == .network)
        #expect(error?.message.contains(server.host) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("no answer") == true, "\(error?.message ?? "")")
        // Not retried: one request; the upper bound only rules out hanging (parallel tests on two cores).
        #expect(elapsed >= timeout - 0.1 && elapsed < 30, "took \(elapsed) s")
        #expect(server.requestCount == 1)
    }

    @Test("stop() ends hung connections and their threads")
    func stopEndsHungConnections() async throws {
        let server = try TestHTTPServer(always: .hang)
        let client = await MetadataHarness.openLibrary(server, timeout: 10)
        let lookup = Task { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        // Generous: the whole suite runs in parallel on two cores, and a busy machine can take
        // seconds to schedule the client's request thread.
        let deadline = ContinuousClock.now + .seconds(30)
        while (server.requestCount == 0 || server.activeConnections == 0) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(server.requestCount == 1, "the client never reached the server")
        #expect(server.activeConnections == 1)
        let start = ContinuousClock.now
        server.stop()
        #expect(server.activeConnections == 0)
        // The client sees the connection closed well before its own 10 s timeout.
        let result = await lookup.result
        #expect(throws: ShelfScanError.self) { try result.get() }
        // Far below the 120 s asked for (loose: the suite runs tests in parallel on two cores).
        #expect((ContinuousClock.now - start).inSeconds < 60)
    }

    @Test("connection refused: a .network error that suggests --offline")
    func connectionRefused() async throws {
        let server = try TestHTTPServer(always: .status(200))
        let client = await MetadataHarness.openLibrary(server)
        server.stop()
        let error = await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        #expect(error?.code == .network)
        #expect(error?.message.contains("--offline") == true, "\(error?.message ?? "")")
    }

    /// Tests that stop a server and then expect "refused" rely on this: a parallel test's new
    /// server must never get the stopped server's port.
    @Test("a stopped server's port refuses connections and cannot be bound again, with or without SO_REUSEADDR")
    func stoppedPortStaysReserved() throws {
        let server = try TestHTTPServer(always: .status(200))
        server.stop()
        for reuse: Int32 in [0, 1] {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            defer { close(fd) }
            var flag = reuse
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &flag, socklen_t(MemoryLayout<Int32>.size))
            let result = TestHTTPServer.loopback(fd, port: server.port, bind)
            let error = errno
            #expect(result == -1 && error == EADDRINUSE, "SO_REUSEADDR \(reuse): bind gave \(result), errno \(error)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        let connected = TestHTTPServer.loopback(fd, port: server.port, connect)
        let error = errno
        #expect(connected == -1 && error == ECONNREFUSED, "connect gave \(connected), errno \(error)")
    }

    @Test("malformed JSON is a .badResponse naming the service, not a crash", arguments: ["openlibrary", "googlebooks"])
    func malformedJSON(source: String) async throws {
        let server = try TestHTTPServer(always: .malformedJSON)
        defer { server.stop() }
        let error: ShelfScanError?
        if source == "openlibrary" {
            let client = await MetadataHarness.openLibrary(server)
            error = await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        } else {
            let client = await MetadataHarness.googleBooks(server)
            error = await #expect(throws: ShelfScanError.self) { try await client.book(isbn13: CatalogueJSON.odysseyISBN) }
        }
        #expect(error?.code == .badResponse)
        #expect(error?.message.contains(source == "openlibrary" ? "Open Library" : "Google Books") == true, "\(error?.message ?? "")")
        #expect(server.requestCount == 1)
    }

    @Test("JSON that is not an object (an array, HTML) is a .badResponse")
    func notAnObject() async throws {
        let server = try TestHTTPServer(always: .json("[1, 2, 3]"))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        server.setRoute { _, _ in .respond(status: 200, headers: ["Content-Type": "text/html"], body: Array("<html>maintenance</html>".utf8)) }
        let error = await #expect(throws: ShelfScanError.self) { try await client.search(title: "x", author: nil) }
        #expect(error?.code == .badResponse)
    }

    @Test("a 12 MB body is refused with the limit in the message, not a crash")
    func hugeBody() async throws {
        let server = try TestHTTPServer(always: .huge(bytes: 12 << 20))
        defer { server.stop() }
        let client = await MetadataHarness.openLibrary(server)
        let error = await #expect(throws: ShelfScanError.self) { try await client.books(isbns: [CatalogueJSON.odysseyISBN]) }
        #expect(error?.code == .network)
        #expect(error?.message.contains("8 MB") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("refused") == true)
        #expect(server.requestCount == 1)
    }

    // MARK: Manners

    @Test("the User-Agent names shelfscan and, when given, the contact")
    func userAgent() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.echo())
        defer { server.stop() }
        var options = MetadataHarness.options(server)
        options.contact = "reader@example.org"
        let withContact = await MetadataHarness.service(options, cache: nil, servers: [server])
        _ = await withContact.lookup(isbns: [CatalogueJSON.odysseyISBN])
        options.contact = nil
        let anonymous = await MetadataHarness.service(options, cache: nil, servers: [server])
        _ = await anonymous.lookup(isbns: [CatalogueJSON.odysseyISBN])

        let agents = server.requests.map { $0.userAgent ?? "" }
        try #require(agents.count == 2)
        #expect(agents[0].hasPrefix("shelfscan/\(ShelfScanVersion.current)"))
        #expect(agents[0].contains("reader@example.org"), "\(agents[0])")
        #expect(agents[1].hasPrefix("shelfscan/"))
        #expect(!agents[1].contains("@"))
        #expect(agents[1].contains("SHELFSCAN_CONTACT"), "\(agents[1])")
    }

    @Test("Retry-After as seconds or an HTTP date")
    func retryAfterParsing() throws {
        #expect(PoliteFetcher.retryAfter("1") == .seconds(1))
        #expect(PoliteFetcher.retryAfter(" 2.5 ") == .milliseconds(2500))
        #expect(PoliteFetcher.retryAfter("-3") == .zero)
        #expect(PoliteFetcher.retryAfter(nil) == nil)
        #expect(PoliteFetcher.retryAfter("") == nil)
        #expect(PoliteFetcher.retryAfter("soon") == nil)
        #expect(PoliteFetcher.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == .zero)  // in the past
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let future = try #require(PoliteFetcher.retryAfter(formatter.string(from: Date().addingTimeInterval(60))))
        #expect((55...60).contains(future.inSeconds))
    }
}
