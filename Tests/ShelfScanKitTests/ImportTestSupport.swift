import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import Testing
@testable import ShelfScanKit

/// Helpers shared by the bulk-import tests: reading a library's import records and books back,
/// and running the `shelfscan` executable with standard input or a kill.
enum ImportCheck {
    /// One row of `import_files`, without the time.
    struct FileRecord: Hashable, Comparable, CustomStringConvertible {
        let hash: String
        let path: String
        let outcome: String
        let linesDone: Int
        let finished: Bool

        static func < (a: Self, b: Self) -> Bool { (a.path, a.hash) < (b.path, b.hash) }
        var description: String { "\(path) [\(hash)] \(outcome) lines=\(linesDone) finished=\(finished)" }
    }

    /// What must be equal between two libraries after the same import: per book, its ISBN,
    /// copies, whether it is owned and its reading status.
    struct BookRow: Hashable, Comparable, CustomStringConvertible {
        let isbn13: String?
        let copies: Int
        let owned: Bool
        let status: ReadingStatus?

        init(_ b: Book) {
            isbn13 = b.isbn13
            copies = b.copies
            owned = b.owned
            status = b.readingStatus
        }

        static func < (a: Self, b: Self) -> Bool { (a.isbn13 ?? "", a.copies) < (b.isbn13 ?? "", b.copies) }
        var description: String { "\(isbn13 ?? "-") x\(copies) owned=\(owned) \(status?.rawValue ?? "nil")" }
    }

    /// A library file opened read-only-in-spirit (we only read) through a separate connection.
    static func queue(_ path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: config)
    }

    /// Every row of `import_files`, sorted by path.
    static func importFiles(_ path: String) throws -> [FileRecord] {
        try queue(path).read { db in
            try Row.fetchAll(db, sql: "SELECT hash, path, outcome, linesDone, finished FROM import_files").map {
                FileRecord(hash: $0["hash"], path: $0["path"], outcome: $0["outcome"], linesDone: $0["linesDone"], finished: $0["finished"])
            }
        }.sorted()
    }

    /// SQLite's own verdict on the file: "ok" when it is not corrupt.
    static func integrity(_ path: String) throws -> String? {
        try queue(path).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
    }

    /// The owned books' rows, sorted.
    static func bookRows(_ library: LibraryDatabase) throws -> [BookRow] {
        try library.list().map(BookRow.init).sorted()
    }

    /// The source of every report item, per list, for finding where an input went.
    static func categories(_ r: ImportReport) -> [String: [(category: String, item: ImportReport.Item)]] {
        var out: [String: [(category: String, item: ImportReport.Item)]] = [:]
        let lists: [(String, [ImportReport.Item])] = [
            ("imported", r.imported), ("alreadyPresent", r.alreadyPresent), ("copiesAdded", r.copiesAdded),
            ("notABook", r.notABook), ("badChecksum", r.badChecksum), ("noBarcode", r.noBarcode),
            ("unreadable", r.unreadable), ("notAnISBN", r.notAnISBN),
        ]
        for (name, items) in lists {
            for item in items { out[item.source, default: []].append((name, item)) }
        }
        return out
    }

    /// An ISBN-13 built from a 12-digit body with its check digit computed here.
    static func isbn13(body: String) -> String {
        body + String(GTIN.checkDigit(forBody: body)!)
    }
}

/// `shelfscan` started as a child process: standard input from a pipe (or nothing), output to
/// files (no pipe can fill up), killable, awaited.
final class ImportProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by one test at a time (its task, or the thread
    // watching it); the termination result arrives
    // through the AsyncStream.
    let process = Process()
    let stdoutPath: String
    let stderrPath: String
    private let finished: AsyncStream<(Int32, Process.TerminationReason)>

    /// Starts `shelfscan arguments` with the environment of `CLI.run` (offline, one OpenMP
    /// thread, HOME and XDG_DATA_HOME inside `directory`). `stdin` bytes are written from another
    /// thread and the pipe closed, like `printf ... | shelfscan import -`.
    init(_ arguments: [String], in directory: TemporaryDirectory, stdin: Data? = nil) throws {
        let executable = try #require(CLI.executable)
        let id = UUID().uuidString
        stdoutPath = directory.file("stdout-\(id)")
        stderrPath = directory.file("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        defer { try? out.close(); try? err.close() }

        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SHELFSCAN_OFFLINE"] = "1"
        environment["XDG_DATA_HOME"] = directory.path + "/xdg"
        environment["HOME"] = directory.path
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = out
        process.standardError = err
        let pipe = stdin.map { _ in Pipe() }
        process.standardInput = pipe ?? FileHandle.nullDevice

        let (stream, continuation) = AsyncStream<(Int32, Process.TerminationReason)>.makeStream()
        finished = stream
        process.terminationHandler = { p in
            continuation.yield((p.terminationStatus, p.terminationReason))
            continuation.finish()
        }
        try process.run()
        if let pipe, let stdin {
            // A child that stops reading must not kill the test runner with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            let writer = pipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
            try? pipe.fileHandleForReading.close()
        }
    }

    var pid: Int32 { process.processIdentifier }

    func kill() { _ = Glibc.kill(pid, SIGKILL) }

    /// Waits for the exit; the output as `CLI.Run`.
    func wait() async throws -> CLI.Run {
        var result: (Int32, Process.TerminationReason)?
        for await r in finished { result = r }
        let (status, reason) = try #require(result)
        let stdout = String(decoding: try Fixtures.bytes(stdoutPath), as: UTF8.self)
        let stderr = String(decoding: try Fixtures.bytes(stderrPath), as: UTF8.self)
        return CLI.Run(status: status, terminationReason: reason, stdout: stdout, stderr: stderr)
    }

    /// Runs to the end.
    static func run(_ arguments: [String], in directory: TemporaryDirectory, stdin: Data? = nil) async throws -> CLI.Run {
        try await ImportProcess(arguments, in: directory, stdin: stdin).wait()
    }

    /// The `--json` report of a finished run.
    static func report(_ run: CLI.Run) throws -> ImportReport {
        do {
            return try JSONDecoder().decode(ImportReport.self, from: Data(run.stdout.utf8))
        } catch {
            throw FixtureError("not an import report (\(error)): \(run.stdout.prefix(500)) stderr: \(run.stderr.prefix(500))")
        }
    }
}
