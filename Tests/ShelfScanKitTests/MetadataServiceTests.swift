import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Metadata service: fallbacks, cache, offline, rate limits", .timeLimit(.minutes(1)))
struct MetadataServiceTests {
    typealias H = MetadataHarness

    @Test("Open Library first; Google Books only for what Open Library does not know")
    func sourcesInOrder() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let service = await H.service(H.options(server), cache: nil, servers: [server])
        let outcomes = await service.lookup(isbns: [CatalogueJSON.odysseyISBN, CatalogueJSON.nineteen84ISBN, CatalogueJSON.gatsbyISBN])
        #expect(outcomes.count == 3)
        let odyssey = try #require(H.found(outcomes[CatalogueJSON.odysseyISBN]))
        #expect(odyssey.title == "The Odyssey" && odyssey.sources == [.openlibrary])
        let nineteen84 = try #require(H.found(outcomes[CatalogueJSON.nineteen84ISBN]))
        #expect(nineteen84.title == "1984" && nineteen84.sources == [.googlebooks])
        #expect(H.isNotFound(outcomes[CatalogueJSON.gatsbyISBN]))

        // One Open Library request for all three; Google asked only for the two it lacks.
        let targets = server.requests.map(\.target)
        #expect(targets.filter(CatalogueRoutes.isOpenLibraryBooks).count == 1)
        #expect(Set(targets.compactMap(CatalogueRoutes.googleISBN)) == [CatalogueJSON.nineteen84ISBN, CatalogueJSON.gatsbyISBN])
        #expect(server.requestCount == 3)
    }

    @Test("ISBN-10s and hyphens are looked up as ISBN-13; invalid ones are dropped")
    func normalisesISBNs() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.echo())
        defer { server.stop() }
        let service = await H.service(H.options(server), cache: nil, servers: [server])
        let outcomes = await service.lookup(isbns: ["0-14-303995-4", "9780143039952", "9780143039953"])
        #expect(Array(outcomes.keys) == ["9780143039952"])
        #expect(H.found(outcomes["9780143039952"])?.title == "Book 9780143039952")
        #expect(server.requestCount == 1)
    }

    @Test("Google answering an ISBN query with another book: not found (and that miss is cached)")
    func googleOtherBookIsNotFound() async throws {
        let animalFarm = CatalogueJSON.googleVolumes([
            CatalogueJSON.googleInfo(isbn: CatalogueJSON.animalFarmISBN, title: "Animal Farm", authors: ["George Orwell"]),
        ])
        let server = try TestHTTPServer { _, target in
            CatalogueRoutes.isOpenLibraryBooks(target) ? .json(CatalogueJSON.openLibraryEmpty) : .json(animalFarm)
        }
        defer { server.stop() }
        let cache = try LibraryDatabase.inMemory()
        let service = await H.service(H.options(server), cache: cache, servers: [server])
        #expect(H.isNotFound(await service.lookup(isbns: [CatalogueJSON.nineteen84ISBN])[CatalogueJSON.nineteen84ISBN]))
        #expect(try cache.cachedLookup("googlebooks|isbn|\(CatalogueJSON.nineteen84ISBN)") == [])
        #expect(server.requestCount == 2)
    }

    @Test("only the sources asked for are asked")
    func onlyChosenSources() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        var options = H.options(server)
        options.sources = [.googlebooks]
        let service = await H.service(options, cache: nil, servers: [server])
        let outcomes = await service.lookup(isbns: [CatalogueJSON.odysseyISBN])
        #expect(H.isNotFound(outcomes[CatalogueJSON.odysseyISBN]))
        #expect(server.requests.allSatisfy { CatalogueRoutes.isGoogleVolumes($0.target) })
    }

    // MARK: Cache

    @Test("a repeated lookup is answered from the cache: no request")
    func cachedHit() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let cache = try LibraryDatabase.inMemory()
        let service = await H.service(H.options(server), cache: cache, servers: [server])
        let isbns = [CatalogueJSON.odysseyISBN, CatalogueJSON.nineteen84ISBN]
        let first = await service.lookup(isbns: isbns)
        let count = server.requestCount
        #expect(count == 2)
        let second = await service.lookup(isbns: isbns)
        #expect(server.requestCount == count)
        #expect(H.found(second[CatalogueJSON.odysseyISBN]) == H.found(first[CatalogueJSON.odysseyISBN]))
        #expect(H.found(second[CatalogueJSON.nineteen84ISBN])?.title == "1984")
        #expect(H.found(second[CatalogueJSON.nineteen84ISBN])?.sources == [.googlebooks])
        // The cache is keyed by source and ISBN.
        #expect(try cache.cachedLookup("openlibrary|isbn|\(CatalogueJSON.odysseyISBN)")?.first?.title == "The Odyssey")
        #expect(try cache.cachedLookup("openlibrary|isbn|\(CatalogueJSON.nineteen84ISBN)") == [])
    }

    @Test("a miss is cached too, until missLifetime runs out")
    func cachedMissExpires() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        var options = H.options(server)
        // The cache's clock is moved by hand: a loaded machine cannot make an entry lapse early.
        let clock = ManualClock()
        options.now = { clock.now }
        options.missLifetime = 60
        let service = await H.service(options, cache: try LibraryDatabase.inMemory(), servers: [server])
        #expect(H.isNotFound(await service.lookup(isbns: [CatalogueJSON.gatsbyISBN])[CatalogueJSON.gatsbyISBN]))
        #expect(server.requestCount == 2)  // Open Library and Google
        clock.advance(59)
        #expect(H.isNotFound(await service.lookup(isbns: [CatalogueJSON.gatsbyISBN])[CatalogueJSON.gatsbyISBN]))
        #expect(server.requestCount == 2)

        clock.advance(2)
        // Meanwhile Open Library has learnt the book.
        server.setRoute { _, target in
            CatalogueRoutes.isOpenLibraryBooks(target)
                ? .json(CatalogueJSON.openLibraryEcho(isbns: CatalogueRoutes.bibkeys(target))) : .json(CatalogueJSON.googleNone)
        }
        let after = await service.lookup(isbns: [CatalogueJSON.gatsbyISBN])[CatalogueJSON.gatsbyISBN]
        #expect(H.found(after)?.title == "Book \(CatalogueJSON.gatsbyISBN)")
        #expect(server.requestCount == 3)
    }

    @Test("a hit outlives missLifetime (hits keep hitLifetime)")
    func hitOutlivesMissLifetime() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.echo())
        defer { server.stop() }
        var options = H.options(server)
        options.missLifetime = 0.1
        let service = await H.service(options, cache: try LibraryDatabase.inMemory(), servers: [server])
        _ = await service.lookup(isbns: [CatalogueJSON.odysseyISBN])
        try await Task.sleep(for: .milliseconds(250))
        #expect(H.found(await service.lookup(isbns: [CatalogueJSON.odysseyISBN])[CatalogueJSON.odysseyISBN]) != nil)
        #expect(server.requestCount == 1)
    }

    enum Failure: String, CaseIterable, Sendable { case serverErrors, malformed, hang }

    @Test("a failure is not cached: once the server is fixed, the next lookup asks and finds", arguments: Failure.allCases)
    func failureNotCached(_ failure: Failure) async throws {
        let behaviour: TestHTTPServer.Behaviour = switch failure {
        case .serverErrors: .status(500)
        case .malformed: .malformedJSON
        case .hang: .hang
        }
        let server = try TestHTTPServer(always: behaviour)
        defer { server.stop() }
        var options = H.options(server, timeout: 1)
        options.sources = [.openlibrary]
        let cache = try LibraryDatabase.inMemory()
        let service = await H.service(options, cache: cache, servers: [server])
        let broken = await service.lookup(isbns: [CatalogueJSON.odysseyISBN])[CatalogueJSON.odysseyISBN]
        let why = try #require(H.unavailable(broken), "outcome: \(String(describing: broken))")
        #expect(why.contains("Open Library") || why.contains(server.host), "reason: \(why)")
        #expect(try cache.cachedLookup("openlibrary|isbn|\(CatalogueJSON.odysseyISBN)") == nil)
        let before = server.requestCount

        server.setRoute(CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        let fixed = await service.lookup(isbns: [CatalogueJSON.odysseyISBN])[CatalogueJSON.odysseyISBN]
        #expect(H.found(fixed)?.title == "The Odyssey")
        #expect(server.requestCount == before + 1)
    }

    @Test("offline with an empty cache: unavailable, and no request")
    func offlineEmptyCache() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.echo())
        defer { server.stop() }
        var options = H.options(server)
        options.offline = true
        let service = await H.service(options, cache: try LibraryDatabase.inMemory(), servers: [server])
        let outcome = await service.lookup(isbns: [CatalogueJSON.odysseyISBN])[CatalogueJSON.odysseyISBN]
        #expect(H.unavailable(outcome)?.contains("offline") == true)
        #expect(await service.search(title: "The Odyssey", author: nil).isFailure)
        // No cache at all: the same.
        let uncached = await H.service(options, cache: nil, servers: [server])
        #expect(H.unavailable(await uncached.lookup(isbns: [CatalogueJSON.odysseyISBN])[CatalogueJSON.odysseyISBN]) != nil)
        #expect(server.requestCount == 0)
    }

    @Test("offline with a cached answer: found, and no request")
    func offlineCached() async throws {
        let server = try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        defer { server.stop() }
        let cache = try LibraryDatabase.inMemory()
        let online = await H.service(H.options(server), cache: cache, servers: [server])
        _ = await online.lookup(isbns: [CatalogueJSON.odysseyISBN, CatalogueJSON.nineteen84ISBN, CatalogueJSON.gatsbyISBN])
        _ = await online.search(title: "The Odyssey", author: "Homer")
        let count = server.requestCount

        var options = H.options(server)
        options.offline = true
        let offline = await H.service(options, cache: cache, servers: [server])
        let outcomes = await offline.lookup(isbns: [CatalogueJSON.odysseyISBN, CatalogueJSON.nineteen84ISBN, CatalogueJSON.gatsbyISBN])
        #expect(H.found(outcomes[CatalogueJSON.odysseyISBN])?.title == "The Odyssey")
        #expect(H.found(outcomes[CatalogueJSON.nineteen84ISBN])?.title == "1984")
        #expect(H.isNotFound(outcomes[CatalogueJSON.gatsbyISBN]))  // a cached miss is an answer too
        #expect((try? await offline.search(title: "the  odyssey", author: "HOMER").get()) != nil)
        #expect(server.requestCount == count)
    }

    @Test("search: each source's results in order, cached under a normalised key")
    func searchCached() async throws {
        let server = try TestHTTPServer { _, target in
            if target.hasPrefix("/search.json?") { return .json(CatalogueJSON.openLibrarySearchOrwell) }
            if CatalogueRoutes.isGoogleVolumes(target) { return .json(CatalogueJSON.googleVolumes([CatalogueJSON.googleNineteen84])) }
            return .status(404)
        }
        defer { server.stop() }
        let service = await H.service(H.options(server), cache: try LibraryDatabase.inMemory(), servers: [server])
        let first = try await service.search(title: "Nineteen Eighty-Four", author: "Orwell").get()
        #expect(first.map(\.title) == ["Nineteen Eighty-Four", "Animal Farm", "Orwell on Truth", "1984"])
        #expect(first.map { $0.sources.first } == [.openlibrary, .openlibrary, .openlibrary, .googlebooks])
        #expect(server.requestCount == 2)
        let again = try await service.search(title: "nineteen eighty four!", author: "  ORWELL ").get()
        #expect(again.map(\.title) == first.map(\.title))
        #expect(server.requestCount == 2)
        #expect(MetadataService.normalise("L'Étranger ") == "l etranger")
    }

    @Test("search: one source failing still gives the other's results; both failing is an error")
    func searchPartialFailure() async throws {
        let server = try TestHTTPServer { _, target in
            target.hasPrefix("/search.json?") ? .malformedJSON : .json(CatalogueJSON.googleVolumes([CatalogueJSON.googleNineteen84]))
        }
        defer { server.stop() }
        let service = await H.service(H.options(server), cache: try LibraryDatabase.inMemory(), servers: [server])
        #expect(try await service.search(title: "1984", author: nil).get().map(\.title) == ["1984"])
        server.setRoute { _, _ in .malformedJSON }
        let failed = await service.search(title: "Brave New World", author: nil)
        #expect(failed.isFailure)
    }

    @Test("a Google answer already received is kept when a later Google request fails")
    func googlePartialFailureKeepsAnswers() async throws {
        // Open Library knows neither ISBN. Google is asked one ISBN at a time, in sorted order:
        // it describes 1984 (asked first), then sends garbage for The Great Gatsby.
        let server = try TestHTTPServer { _, target in
            if CatalogueRoutes.isOpenLibraryBooks(target) { return .json(CatalogueJSON.openLibraryEmpty) }
            if CatalogueRoutes.googleISBN(target) == CatalogueJSON.nineteen84ISBN {
                return .json(CatalogueJSON.googleVolumes([CatalogueJSON.googleNineteen84]))
            }
            return .malformedJSON
        }
        defer { server.stop() }
        let cache = try LibraryDatabase.inMemory()
        let service = await H.service(H.options(server), cache: cache, servers: [server])
        let outcomes = await service.lookup(isbns: [CatalogueJSON.gatsbyISBN, CatalogueJSON.nineteen84ISBN])
        #expect(server.requests.compactMap { CatalogueRoutes.googleISBN($0.target) }
                == [CatalogueJSON.nineteen84ISBN, CatalogueJSON.gatsbyISBN])
        #expect(H.unavailable(outcomes[CatalogueJSON.gatsbyISBN]) != nil)
        #expect(H.found(outcomes[CatalogueJSON.nineteen84ISBN])?.title == "1984",
                "Google answered 1984, but the outcome is \(String(describing: outcomes[CatalogueJSON.nineteen84ISBN]))")
        #expect(try cache.cachedLookup("googlebooks|isbn|\(CatalogueJSON.nineteen84ISBN)")?.first?.title == "1984")
    }

    // MARK: Rate limits (production intervals, set by MetadataService.init)

    /// Open Library on `ol`; Google on another server, covers on a third port, so that each host
    /// keeps its own interval.
    static func separateHosts(ol: TestHTTPServer, google: TestHTTPServer) -> MetadataOptions {
        var o = MetadataOptions()
        o.openLibraryURL = ol.baseURL
        o.googleBooksURL = google.baseURL + "/books/v1"
        o.coversURL = "http://127.0.0.1:9"
        o.timeout = 5
        return o
    }

    @Test("no contact: at most 1 request/s to Open Library; with a contact, 3/s", arguments: [false, true])
    func openLibraryRateLimit(withContact: Bool) async throws {
        let ol = try TestHTTPServer(route: CatalogueRoutes.echo())
        let google = try TestHTTPServer(always: .json(CatalogueJSON.googleNone))
        defer { ol.stop(); google.stop() }
        var options = Self.separateHosts(ol: ol, google: google)
        if withContact { options.contact = "reader@example.org" }
        let service = await MetadataService(options: options, cache: try LibraryDatabase.inMemory())
        let isbns = [CatalogueJSON.odysseyISBN, CatalogueJSON.nineteen84ISBN, CatalogueJSON.animalFarmISBN, CatalogueJSON.lordOfTheFliesISBN]
        let start = ContinuousClock.now
        for isbn in isbns {
            #expect(H.found(await service.lookup(isbns: [isbn])[isbn]) != nil)
        }
        let elapsed = (ContinuousClock.now - start).inSeconds
        let interval = withContact ? 1.0 / 3 : 1.0
        let minimum = Double(isbns.count - 1) * interval * 0.9
        #expect(elapsed >= minimum, "\(isbns.count) lookups took \(elapsed) s")
        // The limiter spaces the starts of requests, so the last cannot arrive earlier than its
        // slot. (Gaps between single arrivals are not checked: a request delayed on its way,
        // e.g. on a loaded machine, shortens the next gap without breaking the limit.)
        let arrivals = ol.requests.map(\.arrival)
        try #require(arrivals.count == isbns.count)
        let last = (arrivals[arrivals.count - 1] - start).inSeconds
        #expect(last >= minimum, "the last request arrived \(last) s after the first lookup began")
        #expect(google.requestCount == 0)
    }

    @Test("Google Books: at most 1 request/s")
    func googleRateLimit() async throws {
        let ol = try TestHTTPServer(always: .json(CatalogueJSON.openLibraryEmpty))
        let google = try TestHTTPServer(always: .json(CatalogueJSON.googleNone))
        defer { ol.stop(); google.stop() }
        var options = Self.separateHosts(ol: ol, google: google)
        options.contact = "reader@example.org"
        let service = await MetadataService(options: options, cache: nil)
        // One call, three ISBNs: one Open Library request, then three Google requests.
        let start = ContinuousClock.now
        _ = await service.lookup(isbns: [CatalogueJSON.odysseyISBN, CatalogueJSON.nineteen84ISBN, CatalogueJSON.gatsbyISBN])
        #expect(ol.requestCount == 1)
        let arrivals = google.requests.map(\.arrival)
        try #require(arrivals.count == 3)
        let last = (arrivals[2] - start).inSeconds
        #expect(last >= 1.8, "the third Google request arrived \(last) s after the lookup began")
    }

    @Test("the limiter is shared: two services on one limiter still space their requests")
    func sharedLimiter() async throws {
        let ol = try TestHTTPServer(route: CatalogueRoutes.echo())
        let google = try TestHTTPServer(always: .json(CatalogueJSON.googleNone))
        defer { ol.stop(); google.stop() }
        var options = Self.separateHosts(ol: ol, google: google)
        options.contact = "reader@example.org"
        let limiter = HostRateLimiter()
        let a = await MetadataService(options: options, cache: nil, limiter: limiter)
        let b = await MetadataService(options: options, cache: nil, limiter: limiter)
        let start = ContinuousClock.now
        async let x = a.lookup(isbns: [CatalogueJSON.odysseyISBN])
        async let y = b.lookup(isbns: [CatalogueJSON.nineteen84ISBN])
        _ = await (x, y)
        let arrivals = ol.requests.map(\.arrival).sorted()
        try #require(arrivals.count == 2)
        #expect((arrivals[1] - start).inSeconds >= 0.3)
    }

    // MARK: Options

    @Test("options from the environment")
    func optionsFromEnvironment() {
        let o = MetadataOptions.fromEnvironment([
            "SHELFSCAN_OFFLINE": "1", "SHELFSCAN_CONTACT": "me@example.org", "GOOGLE_BOOKS_API_KEY": "abc",
            "SHELFSCAN_OPENLIBRARY_URL": "http://ol.test", "SHELFSCAN_COVERS_URL": "http://covers.test",
            "SHELFSCAN_GOOGLEBOOKS_URL": "http://gb.test/books/v1",
        ])
        #expect(o.offline && o.contact == "me@example.org" && o.googleAPIKey == "abc")
        #expect(o.openLibraryURL == "http://ol.test" && o.coversURL == "http://covers.test" && o.googleBooksURL == "http://gb.test/books/v1")
        #expect(o.userAgent.contains("me@example.org"))
        #expect(!MetadataOptions.fromEnvironment(["SHELFSCAN_OFFLINE": "0"]).offline)
        #expect(!MetadataOptions.fromEnvironment(["SHELFSCAN_OFFLINE": ""]).offline)
        let defaults = MetadataOptions.fromEnvironment([:])
        #expect(defaults.contact == nil && defaults.openLibraryURL == "https://openlibrary.org")
        #expect(defaults.sources == [.openlibrary, .googlebooks])
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

/// A clock for cache lifetimes that moves only when told to.
final class ManualClock: @unchecked Sendable {  // `current` is only touched under `lock`
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { lock.lock(); defer { lock.unlock() }; return current }
    func advance(_ seconds: TimeInterval) { lock.lock(); current += seconds; lock.unlock() }
}
