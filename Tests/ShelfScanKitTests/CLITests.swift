import Foundation
import Testing
@testable import ShelfScanKit

/// Runs the real `shelfscan` executable, built by the same `swift build --build-tests` / `swift test`
/// as this test bundle.
enum CLI {
    /// The executable: beside the test bundle (`<scratch>/<triple>/debug/` holds both), else in a
    /// scratch folder of the repository.
    static let executable: String? = {
        var candidates: [String] = []
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        var dir = URL(fileURLWithPath: me).deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("shelfscan").path)
            candidates.append(dir.appendingPathComponent("debug/shelfscan").path)
            dir = dir.deletingLastPathComponent()
        }
        for scratch in [".build-tests", ".build"] {
            candidates.append(Fixtures.repoRoot + "/\(scratch)/debug/shelfscan")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var available: Bool { executable != nil }

    struct Run {
        /// The exit status, or the signal number when `terminationReason` is `.uncaughtSignal`.
        let status: Int32
        let terminationReason: Process.TerminationReason
        let stdout: String
        let stderr: String

        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs `shelfscan arguments` with output captured in files (no pipe can fill up and stall it)
    /// and XDG_DATA_HOME inside `directory`, so that nothing outside the test's folder is touched.
    /// `stdin`: a file fed to standard input (none by default).
    /// `environment`: variables set for this run on top of the test's own.
    static func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
                    in directory: TemporaryDirectory) async throws -> Run {
        let executable = try #require(executable)
        let id = UUID().uuidString
        let outPath = directory.file("stdout-\(id)"), errPath = directory.file("stderr-\(id)")
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let input = try stdin.map { path in try #require(FileHandle(forReadingAtPath: path), "cannot read \(path)") }
        defer { try? out.close(); try? err.close(); try? input?.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // Tests never reach the internet: catalogue lookups use the cache only.
        environment["SHELFSCAN_OFFLINE"] = "1"
        environment["XDG_DATA_HOME"] = directory.path + "/xdg"
        environment["HOME"] = directory.path
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        let (status, reason): (Int32, Process.TerminationReason) = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: ($0.terminationStatus, $0.terminationReason)) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let stdout = String(decoding: try Fixtures.bytes(outPath), as: UTF8.self)
        let stderr = String(decoding: try Fixtures.bytes(errPath), as: UTF8.self)
        return Run(status: status, terminationReason: reason, stdout: stdout, stderr: stderr)
    }
}

// Skipped, with this message, when the executable cannot be found (tests run from an unusual
// build layout); `swift test` and `swift build --build-tests` both build it beside the tests.
@Suite("shelfscan command line", .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"),
       .timeLimit(.minutes(10)))
struct CLITests {
    static let odyssey = Fixtures.sample("barcodes/isbn-odyssey-ean5-clean.png")
    static let nineteen84 = Fixtures.sample("barcodes/isbn-1984-clean.png")

    /// A JPEG cut to half its length, in `directory`.
    static func corruptImage(in directory: TemporaryDirectory) throws -> String {
        let bytes = try Fixtures.bytes(Fixtures.sample("barcodes/isbn-janeeyre-jpeg30.jpg"))
        return try directory.write("corrupt.jpg", Array(bytes.prefix(bytes.count / 2)))
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test("one corrupt image among good ones: one error line naming it, the others scanned, failure status")
    func corruptAmongGood() async throws {
        let dir = try TemporaryDirectory()
        let corrupt = try Self.corruptImage(in: dir)
        let library = dir.file("library.sqlite")
        let run = try await CLI.run([Self.odyssey, corrupt, Self.nineteen84, "--library", library], in: dir)
        #expect(run.status != 0)
        let errorLines = run.stderrLines.filter { $0.contains("error") }
        #expect(errorLines.count == 1, "stderr: \(run.stderr)")
        #expect(errorLines.first?.contains(corrupt) == true)
        #expect(run.stderrLines.filter { $0.contains(corrupt) }.count == 1)
        #expect(!run.stderr.contains(Self.odyssey) && !run.stderr.contains(Self.nineteen84))
        #expect(run.stdout.contains("9780143039952") && run.stdout.contains("9780451524935"))
        // Scanning never creates a library.
        #expect(!FileManager.default.fileExists(atPath: library))

        let json = try await CLI.run([Self.odyssey, corrupt, Self.nineteen84, "--format", "json", "--library", library], in: dir)
        #expect(json.status != 0)
        let images = try #require(try Self.json(json.stdout)["images"] as? [[String: Any]])
        #expect(images.map { $0["image"] as? String } == [Self.odyssey, corrupt, Self.nineteen84])
        let failed = images.filter { $0["error"] != nil && !($0["error"] is NSNull) }
        #expect(failed.count == 1)
        #expect(failed.first?["image"] as? String == corrupt)
        let failure = try #require(failed.first?["error"] as? [String: Any])
        #expect(failure["code"] as? String == "truncatedImage")
        #expect(json.stderrLines.filter { $0.contains("error") }.count == 1)
    }

    @Test("--format json is one valid JSON document, and success exits 0")
    func jsonFormat() async throws {
        let dir = try TemporaryDirectory()
        let run = try await CLI.run([Self.odyssey, Self.nineteen84, "--format", "json", "--library", dir.file("none.sqlite")], in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let images = try #require(try Self.json(run.stdout)["images"] as? [[String: Any]])
        #expect(images.count == 2)
        let isbns = images.compactMap { ($0["books"] as? [[String: Any]])?.first?["isbn13"] as? String }
        #expect(isbns == ["9780143039952", "9780451524935"])
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
    }

    @Test("the LSTM steps' start-up: the other worker's calls while the first decides go to the library's, not to nothing")
    func lstmStepsStartUp() async throws {
        // The first LSTM call decides whether the executable's steps do the work; the other
        // worker's calls meanwhile are handed to the library's methods. Those were looked up
        // after the state said so until the forty-ninth session: a call in between jumped to
        // address 0 (a real 3 MP shelf crashed at its first reading in 15 of 25 starts). The
        // pause holds the decision open for 300 ms while both workers read the shelf's spines.
        let dir = try TemporaryDirectory()
        let shelf = Fixtures.sample("shelves/shelf-2rows-blur1.5.jpg")
        let run = try await CLI.run([shelf, "--format", "json", "--library", dir.file("none.sqlite")],
                                    environment: ["SHELFSCAN_TEST_STEPS_PAUSE_MS": "300"], in: dir)
        #expect(run.terminationReason == .exit && run.status == 0, "status \(run.status), stderr: \(run.stderr)")
        let images = try #require(try Self.json(run.stdout)["images"] as? [[String: Any]])
        #expect(images.count == 1)
        // Its spines were read (an empty library names none of them: their text comes back unidentified).
        #expect(((images.first?["unidentified"] as? [Any])?.count ?? 0) >= 5)
    }

    @Test("A model folder without the second model: the scan runs and says so in one warning line")
    func secondModelMissing() async throws {
        let dir = try TemporaryDirectory()
        let fastOnly = dir.file("fast")
        try FileManager.default.createDirectory(atPath: fastOnly, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.models + "/eng.traineddata", toPath: fastOnly + "/eng.traineddata")
        let run = try await CLI.run([Self.odyssey, "--tessdata", fastOnly, "--library", dir.file("none.sqlite")], in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("9780143039952"))
        let warnings = run.stderrLines.filter { $0.hasPrefix("shelfscan: warning: eng_main.traineddata not found") }
        #expect(warnings.count == 1 && run.stderrLines.count == 1, "stderr: \(run.stderr)")
        // Barcodes only: no text is read, nothing to warn about.
        let barcodes = try await CLI.run([Self.odyssey, "--tessdata", fastOnly, "--mode", "barcode", "--library", dir.file("none.sqlite")], in: dir)
        #expect(barcodes.status == 0 && barcodes.stderr.isEmpty, "stderr: \(barcodes.stderr)")
    }

    @Test("--read-budget takes seconds or off; anything else is refused in one line naming the option")
    func readBudgetValues() async throws {
        let dir = try TemporaryDirectory()
        let bad = try await CLI.run([Self.odyssey, "--read-budget", "soon"], in: dir)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--read-budget"), "stderr: \(bad.stderr)")
        for value in ["off", "1.5"] {
            let run = try await CLI.run([Self.odyssey, "--read-budget", value, "--library", dir.file("none.sqlite")], in: dir)
            #expect(run.status == 0, "\(value): \(run.stderr)")
            #expect(run.stdout.contains("9780143039952"))
        }
    }

    @Test("a book added with `library add` is found in the library when scanned")
    func addThenScan() async throws {
        let dir = try TemporaryDirectory()
        let library = dir.file("lib/library.sqlite")
        let add = try await CLI.run(["library", "add", "9780143039952", "--title", "The Odyssey", "--author", "Homer",
                                     "--library", library], in: dir)
        #expect(add.status == 0, "stderr: \(add.stderr)")
        #expect(add.stdout.contains("The Odyssey"))
        #expect(FileManager.default.fileExists(atPath: library))

        let scan = try await CLI.run([Self.odyssey, "--format", "json", "--library", library], in: dir)
        #expect(scan.status == 0, "stderr: \(scan.stderr)")
        let images = try #require(try Self.json(scan.stdout)["images"] as? [[String: Any]])
        let book = try #require((images.first?["books"] as? [[String: Any]])?.first)
        #expect(book["isbn13"] as? String == "9780143039952")
        #expect(book["inLibrary"] as? Bool == true)
        #expect(book["title"] as? String == "The Odyssey")
        #expect(book["authors"] as? [String] == ["Homer"])

        let search = try await CLI.run(["library", "search", "Odys", "--format", "csv", "--library", library], in: dir)
        #expect(search.status == 0)
        #expect(search.stdout.contains("The Odyssey"))

        let again = try await CLI.run(["library", "add", "0-14-303995-4", "--library", library], in: dir)
        #expect(again.status != 0)
        #expect(again.stderr.contains("9780143039952"))
    }

    @Test("library add with a bad ISBN: non-zero status, one line, nothing created")
    func addBadISBN() async throws {
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let run = try await CLI.run(["library", "add", "9780143039953", "--library", library], in: dir)
        #expect(run.status != 0)
        #expect(run.stderrLines.count == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("9780143039953"))
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: library))
    }

    @Test("eval of a labelled folder exits 0 with a Markdown table")
    func eval() async throws {
        let dir = try TemporaryDirectory()
        let corpus = try Fixtures.sampleSubset(in: dir, sets: ["barcodes", "covers", "none"], perSet: 3)
        let run = try await CLI.run(["eval", corpus], in: dir)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| set |") }, "no table in: \(run.stdout)")
        try #require(header + 2 < lines.count)
        #expect(lines[header + 1].hasPrefix("|---"))
        let columns = lines[header].split(separator: "|").count
        #expect(lines[header + 1].split(separator: "|").count == columns)
        #expect(lines.contains { $0.hasPrefix("| **total** |") && $0.split(separator: "|").count == columns })
        #expect(lines.contains { $0.hasPrefix("| barcodes |") })
    }

    @Test("eval with an impossible gate fails, saying which gate", arguments: [
        ["--max-misreads=-1"],  // "=": a bare "-1" would be taken for an option and fail parsing instead
        ["--min-barcode-rate", "1.01"],
        ["--max-invented=-1"],
        ["--max-unconfirmed=-1"],
    ])
    func evalGate(_ gate: [String]) async throws {
        let dir = try TemporaryDirectory()
        let corpus = try Fixtures.sampleSubset(in: dir, sets: ["barcodes"], perSet: 3)
        let run = try await CLI.run(["eval", corpus] + gate, in: dir)
        #expect(run.status != 0)
        #expect(run.stderr.contains("eval gate failed"), "stderr: \(run.stderr)")
        #expect(run.stdout.contains("| **total** |"))
    }
}
