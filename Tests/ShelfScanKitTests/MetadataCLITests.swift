import Foundation
import Testing
@testable import ShelfScanKit

/// Runs the real `shelfscan` executable online, against a local catalogue server. `CLI.run`
/// forces `SHELFSCAN_OFFLINE=1`; this runner sets it to 0 and clears every other lookup variable,
/// so only the flags given reach the catalogues.
enum OnlineCLI {
    static func run(_ arguments: [String], in directory: TemporaryDirectory,
                    environment overrides: [String: String] = [:]) async throws -> CLI.Run {
        let executable = try #require(CLI.executable)
        let id = UUID().uuidString
        let outPath = directory.file("stdout-\(id)"), errPath = directory.file("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer { try? out.close(); try? err.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for key in ["SHELFSCAN_CONTACT", "GOOGLE_BOOKS_API_KEY", "SHELFSCAN_OPENLIBRARY_URL", "SHELFSCAN_COVERS_URL",
                    "SHELFSCAN_GOOGLEBOOKS_URL", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"] {
            environment[key] = nil
        }
        environment["SHELFSCAN_OFFLINE"] = "0"
        environment["NO_PROXY"] = "127.0.0.1"
        environment["XDG_DATA_HOME"] = directory.path + "/xdg"
        environment["HOME"] = directory.path
        environment.merge(overrides) { $1 }
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let (status, reason): (Int32, Process.TerminationReason) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: ($0.terminationStatus, $0.terminationReason)) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let stdout = String(decoding: try Fixtures.bytes(outPath), as: UTF8.self)
        let stderr = String(decoding: try Fixtures.bytes(errPath), as: UTF8.self)
        return CLI.Run(status: status, terminationReason: reason, stdout: stdout, stderr: stderr)
    }

    /// The flags that point every catalogue at `server`.
    static func catalogueFlags(_ server: TestHTTPServer) -> [String] {
        ["--openlibrary-url", server.baseURL, "--googlebooks-url", server.baseURL + "/books/v1", "--covers-url", server.baseURL]
    }
}

@Suite("shelfscan command line with catalogue lookups",
       .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"),
       .timeLimit(.minutes(2)))
struct MetadataCLITests {
    static let odysseyImage = Fixtures.sample("barcodes/isbn-odyssey-ean5-clean.png")

    static func catalogueServer() throws -> TestHTTPServer {
        try TestHTTPServer(route: CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
    }

    /// The first book of the first image of a `--format json` scan.
    static func firstBook(_ json: String) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "not JSON: \(json)")
        let images = try #require(object["images"] as? [[String: Any]])
        return try #require((images.first?["books"] as? [[String: Any]])?.first, "no book in: \(json)")
    }

    @Test("shelfscan lookup ISBN prints the title; an unknown ISBN fails with a clear line")
    func lookup() async throws {
        let server = try Self.catalogueServer()
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let flags = OnlineCLI.catalogueFlags(server) + ["--library", dir.file("library.sqlite")]
        let run = try await OnlineCLI.run(["lookup", "9780143039952", "--contact", "reader@example.org"] + flags, in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("The Odyssey by Homer"), "stdout: \(run.stdout)")
        #expect(run.stdout.contains("source: openlibrary"))
        let request = try #require(server.requests.first)
        #expect(CatalogueRoutes.bibkeys(request.target) == ["9780143039952"])
        #expect(request.userAgent?.hasPrefix("shelfscan/") == true)
        #expect(request.userAgent?.contains("reader@example.org") == true, "User-Agent: \(request.userAgent ?? "none")")

        let json = try await OnlineCLI.run(["lookup", "0-451-52493-4", "--format", "json"] + flags, in: dir)
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["title"] as? String == "1984")
        #expect(list.first?["sources"] as? [String] == ["googlebooks"])

        let unknown = try await OnlineCLI.run(["lookup", "9780743273565"] + flags, in: dir)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("9780743273565") && unknown.stderr.contains("no catalogue knows"), "stderr: \(unknown.stderr)")
        #expect(unknown.stdout.isEmpty)
    }

    @Test("an online scan describes the book from the catalogue; again, from the cache; --offline makes no request")
    func scanDescribesAndCaches() async throws {
        let server = try Self.catalogueServer()
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let args = [Self.odysseyImage, "--format", "json", "--library", library] + OnlineCLI.catalogueFlags(server)

        let first = try await OnlineCLI.run(args, in: dir)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let book = try Self.firstBook(first.stdout)
        #expect(book["isbn13"] as? String == "9780143039952")
        #expect(book["title"] as? String == "The Odyssey")
        #expect(book["authors"] as? [String] == ["Homer"])
        #expect(book["inLibrary"] as? Bool == false)
        #expect(book["source"] as? String == "openlibrary")
        #expect(book["publisher"] as? String == "Penguin Classics")
        #expect(first.stderr.isEmpty, "stderr: \(first.stderr)")
        let count = server.requestCount
        #expect(count == 1)

        let second = try await OnlineCLI.run(args, in: dir)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(try Self.firstBook(second.stdout)["title"] as? String == "The Odyssey")
        #expect(server.requestCount == count, "the second scan asked the catalogue again")

        // Offline, with the cache: still described; offline without a library: ISBN only. No request either way.
        let offline = try await OnlineCLI.run(args + ["--offline"], in: dir)
        #expect(offline.status == 0, "stderr: \(offline.stderr)")
        #expect(try Self.firstBook(offline.stdout)["title"] as? String == "The Odyssey")
        let fresh = try await OnlineCLI.run([Self.odysseyImage, "--format", "json", "--offline", "--library", dir.file("none.sqlite")]
                                            + OnlineCLI.catalogueFlags(server), in: dir)
        #expect(fresh.status == 0, "stderr: \(fresh.stderr)")
        let bare = try Self.firstBook(fresh.stdout)
        #expect(bare["isbn13"] as? String == "9780143039952")
        #expect(bare["title"] is NSNull)
        #expect(fresh.stderr.isEmpty, "stderr: \(fresh.stderr)")  // offline by choice: no warning
        #expect(server.requestCount == count)
    }

    @Test("an online scan with the catalogue down still lists the ISBN, with one warning line")
    func scanCatalogueDown() async throws {
        let server = try TestHTTPServer(always: .malformedJSON)
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let run = try await OnlineCLI.run([Self.odysseyImage, "--format", "json", "--library", dir.file("library.sqlite"),
                                           "--sources", "openlibrary"] + OnlineCLI.catalogueFlags(server), in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let book = try Self.firstBook(run.stdout)
        #expect(book["isbn13"] as? String == "9780143039952")
        #expect(book["title"] is NSNull)
        let warnings = run.stderrLines.filter { $0.contains("warning") }
        #expect(warnings.count == 1 && warnings.first?.contains("Open Library") == true, "stderr: \(run.stderr)")
    }

    @Test("library add ISBN looks the book up; library show shows it")
    func libraryAddByISBN() async throws {
        let server = try Self.catalogueServer()
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let add = try await OnlineCLI.run(["library", "add", "9780143039952", "--library", library] + OnlineCLI.catalogueFlags(server), in: dir)
        #expect(add.status == 0, "stderr: \(add.stderr)")
        #expect(add.stdout.contains("The Odyssey by Homer"), "stdout: \(add.stdout)")

        let show = try await OnlineCLI.run(["library", "show", "9780143039952", "--library", library], in: dir)
        #expect(show.status == 0, "stderr: \(show.stderr)")
        #expect(show.stdout.contains("The Odyssey"))
        #expect(show.stdout.contains("Penguin Classics"))
        #expect(show.stdout.contains("openlibrary"))
        #expect(server.requestCount == 1)
    }

    @Test("library add with the catalogue answering 500: queued; enrich after the fix describes it")
    func libraryAddQueuedThenEnrich() async throws {
        let server = try TestHTTPServer(always: .status(500))
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let flags = ["--library", library] + OnlineCLI.catalogueFlags(server)

        let add = try await OnlineCLI.run(["library", "add", "9780143039952"] + flags, in: dir)
        #expect(add.status == 0, "stderr: \(add.stderr)")
        #expect(add.stdout.contains("9780143039952") && add.stdout.contains("enrich"), "stdout: \(add.stdout)")
        #expect(add.stdout.contains("500"), "stdout: \(add.stdout)")
        #expect(server.requestCount == 6)  // 3 attempts at Open Library, then 3 at Google Books

        // Still failing (garbage now, which is not retried): enrich says so and exits non-zero.
        server.setRoute { _, _ in .malformedJSON }
        let stillDown = try await OnlineCLI.run(["enrich"] + flags, in: dir)
        #expect(stillDown.status != 0)
        #expect(stillDown.stdout.contains("still queued"), "stdout: \(stillDown.stdout)")

        server.setRoute(CatalogueRoutes.catalogue(coversURL: "https://covers.openlibrary.org"))
        let enrich = try await OnlineCLI.run(["enrich"] + flags, in: dir)
        #expect(enrich.status == 0, "stderr: \(enrich.stderr)")
        #expect(enrich.stdout.contains("enriched #"), "stdout: \(enrich.stdout)")
        #expect(enrich.stdout.contains("1 enriched, 0 not found, 0 still queued"), "stdout: \(enrich.stdout)")

        let show = try await OnlineCLI.run(["library", "show", "9780143039952", "--library", library], in: dir)
        #expect(show.stdout.contains("The Odyssey"), "stdout: \(show.stdout)")

        // Nothing left to do: no request.
        let count = server.requestCount
        let again = try await OnlineCLI.run(["enrich"] + flags, in: dir)
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 enriched, 0 not found, 0 still queued"), "stdout: \(again.stdout)")
        #expect(server.requestCount == count)
    }

    @Test("library add --covers saves the cover beside the library")
    func libraryAddWithCover() async throws {
        let jpeg = try Fixtures.bytes(Fixtures.sample("barcodes/isbn-janeeyre-jpeg30.jpg"))
        let server = try TestHTTPServer { _, _ in .status(404) }
        defer { server.stop() }
        server.setRoute(CatalogueRoutes.catalogue(
            coversURL: server.baseURL, cover: .respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: jpeg)))
        let dir = try TemporaryDirectory()
        let library = dir.file("shelf/library.sqlite")
        let add = try await OnlineCLI.run(["library", "add", "9780143039952", "--covers", "--library", library]
                                          + OnlineCLI.catalogueFlags(server), in: dir)
        #expect(add.status == 0, "stderr: \(add.stderr)")
        #expect(add.stdout.contains("added #1"), "stdout: \(add.stdout)")
        #expect(try Fixtures.bytes(dir.file("shelf/Covers/1.jpg")) == jpeg)
    }
}
