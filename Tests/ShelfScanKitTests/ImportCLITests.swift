import Foundation
import Glibc
import GRDB
import Testing
@testable import ShelfScanKit

@Suite("Import: shelfscan import, killed with SIGKILL and fed through a pipe",
       .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"),
       .timeLimit(.minutes(10)))
struct ImportCLITests {
    /// Small sample photos (fast to decode) covering every outcome: books, a 979 book, grocery
    /// codes and a photo without any.
    static let bases = [
        "isbn-janeeyre-jpeg30.jpg", "isbn-1984-clean.png", "ean13-grocery-clean.png", "none-blank-table.jpg",
        "isbn979-oiseau-clean.png", "upca-grocery-clean.png", "isbn-odyssey-ean5-clean.png", "isbn-dracula-ean2-clean.png",
        "ean8-clean.png", "isbn-mockingbird-ean5-small.png",
    ]
    static let fileCount = 300

    /// Three bytes after the image data (after a JPEG's EOI, a PNG's IEND): unique per file.
    static func suffix(_ i: Int) -> [UInt8] { [UInt8(i >> 8), UInt8(i & 0xFF), 0xA5] }

    @Test("bytes appended to a JPEG or PNG change its content hash but not the barcodes read")
    func trailingBytesIgnored() throws {
        for name in ["isbn-janeeyre-jpeg30.jpg", "isbn-1984-clean.png", "ean13-grocery-clean.png", "none-blank-table.jpg"] {
            let bytes = try Fixtures.bytes(Fixtures.sample("barcodes/" + name))
            let padded = bytes + Self.suffix(257)
            #expect(ContentHash.of(bytes) != ContentHash.of(padded))
            let plain = try BarcodeReader().read(ImageLoader().decode(bytes, name: name).image).barcodes.map(\.text)
            let extended = try BarcodeReader().read(ImageLoader().decode(padded, name: name).image).barcodes.map(\.text)
            #expect(plain == extended, "\(name)")
            #expect(name.hasPrefix("none") ? plain.isEmpty : plain.count == 1, "\(name): \(plain)")
        }
    }

    /// `fileCount` photos, each a sample photo with its own trailing bytes: every file a different
    /// hash, without copying any corpus.
    static func makeFolder(in dir: TemporaryDirectory) throws -> (folder: String, hashes: [String: String], copies: [String: Int]) {
        let folder = dir.file("photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let contents = try bases.map { try Fixtures.bytes(Fixtures.sample("barcodes/" + $0)) }
        var hashes: [String: String] = [:]
        for i in 0..<fileCount {
            let k = i % bases.count
            let bytes = contents[k] + suffix(i)
            let path = folder + "/" + String(format: "%03d.", i) + (bases[k] as NSString).pathExtension
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            hashes[path] = ContentHash.of(bytes)
        }
        let isbns = ["isbn-janeeyre-jpeg30.jpg": "9780142437209", "isbn-1984-clean.png": "9780451524935",
                     "isbn979-oiseau-clean.png": "9791023505214", "isbn-odyssey-ean5-clean.png": "9780143039952",
                     "isbn-dracula-ean2-clean.png": "9780393970128", "isbn-mockingbird-ean5-small.png": "9780061120084"]
        var copies: [String: Int] = [:]
        for i in 0..<fileCount { if let isbn = isbns[bases[i % bases.count]] { copies[isbn, default: 0] += 1 } }
        return (folder, hashes, copies)
    }

    static func importArguments(_ folder: String, _ library: String) -> [String] {
        ["import", folder, "--offline", "--copies", "--library", library]
    }

    /// Starts an import into `library`, kills it with SIGKILL once `threshold` photos are recorded
    /// as finished (or after `seconds`), and checks the file it leaves: it opens, SQLite finds it
    /// sound. Returns how many photos it had finished.
    static func killMidway(_ folder: String, _ library: String, in dir: TemporaryDirectory,
                           whenFinished threshold: Int? = nil, orAfter seconds: Double = 0) async throws -> Int {
        let running = try ImportProcess(importArguments(folder, library), in: dir)
        // The watch runs on a thread of its own and kills from there: a task sleeping on Swift
        // concurrency's few threads wakes late when the OCR tests hold them, and the import,
        // meanwhile, finishes by itself.
        try await offPool {
            if let threshold {
                // The library exists and is migrated before the run (see the caller): reading it
                // here never races a migration.
                let queue = try ImportCheck.queue(library)
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline, running.process.isRunning {
                    let finished = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM import_files WHERE finished") } ?? 0
                    if finished >= threshold { break }
                    usleep(2_000)
                }
            } else {
                usleep(UInt32(seconds * 1_000_000))
            }
            if running.process.isRunning { running.kill() }
        }
        let run = try await running.wait()
        #expect(run.terminationReason == .uncaughtSignal && run.status == SIGKILL,
                "the import was to be killed mid-way, but it ended by itself: status \(run.status) \(run.stdout.prefix(300))")

        // The killed run's file is a sound library.
        let opened = try LibraryDatabase.open(path: library)
        _ = try opened.list()
        _ = try opened.count(ownedOnly: false)
        #expect(try ImportCheck.integrity(library) == "ok")
        let records = try ImportCheck.importFiles(library)
        #expect(records.allSatisfy { $0.finished }, "a photo is recorded only once it is done")
        #expect(records.count < fileCount, "killed after every photo was done: the resume is not tested")
        return records.count
    }

    /// Runs the import to the end and checks it re-decoded only what the killed run had not finished.
    static func resume(_ folder: String, _ library: String, in dir: TemporaryDirectory, finishedBefore: Int) async throws {
        let run = try await ImportProcess.run(importArguments(folder, library) + ["--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try ImportProcess.report(run)
        #expect(report.skipped.count == finishedBefore, "files finished before the kill are skipped")
        #expect(report.images == fileCount - finishedBefore, "nothing finished is decoded again")
        #expect(report.unreadable.isEmpty)
    }

    /// The acceptance test of resumable imports: an import killed with SIGKILL at several moments
    /// and run again ends with exactly the library of an import never interrupted. With --copies,
    /// a photo counted twice (books written but the file not recorded, or the reverse) would show
    /// in the copies.
    @Test("an import killed with SIGKILL and run again ends with the same library as one never interrupted")
    func killAndResume() async throws {
        let dir = try TemporaryDirectory()
        let (folder, hashes, copies) = try Self.makeFolder(in: dir)
        #expect(Set(hashes.values).count == Self.fileCount)

        // Reference: one uninterrupted run.
        let l1 = dir.file("L1.sqlite")
        let reference = try await ImportProcess.run(Self.importArguments(folder, l1) + ["--json"], in: dir)
        #expect(reference.status == 0, "\(reference.stderr)")
        let referenceReport = try ImportProcess.report(reference)
        #expect(referenceReport.images == Self.fileCount)
        let referenceLibrary = try LibraryDatabase.open(path: l1)
        let referenceRows = try ImportCheck.bookRows(referenceLibrary)
        let referenceFiles = try ImportCheck.importFiles(l1)
        #expect(referenceRows == copies.map { ImportCheck.BookRow(Book(isbn: ISBN($0.key), title: "", readingStatus: .wantToRead, copies: $0.value)) }.sorted())
        #expect(referenceFiles.count == Self.fileCount && referenceFiles.allSatisfy { $0.finished })
        #expect(Set(referenceFiles.map(\.hash)) == Set(hashes.values))

        // L2: killed early, run again and killed once more, then run to the end.
        let l2 = dir.file("L2.sqlite")
        _ = try LibraryDatabase.open(path: l2)
        let first = try await Self.killMidway(folder, l2, in: dir, whenFinished: 30)
        let second = try await Self.killMidway(folder, l2, in: dir, whenFinished: max(first + 60, 150))
        #expect(second >= first)
        try await Self.resume(folder, l2, in: dir, finishedBefore: second)

        // L3: killed after half a second, wherever the run is (perhaps still creating the file).
        let l3 = dir.file("L3.sqlite")
        let third = try await Self.killMidway(folder, l3, in: dir, orAfter: 0.5)
        try await Self.resume(folder, l3, in: dir, finishedBefore: third)

        for path in [l2, l3] {
            let library = try LibraryDatabase.open(path: path)
            #expect(try ImportCheck.bookRows(library) == referenceRows, "\(path)")
            #expect(try library.count(ownedOnly: false) == referenceLibrary.count(ownedOnly: false))
            #expect(try library.enrichmentQueue().count == referenceLibrary.enrichmentQueue().count)
            #expect(try ImportCheck.importFiles(path) == referenceFiles, "\(path)")
            for (file, hash) in hashes {
                #expect(try library.importState(hash: hash)?.finished == true, "\(file)")
            }
        }
    }

    @Test("standard input: valid ISBNs imported, a repeat already present, bad and foreign lines reported, exit 0")
    func standardInput() async throws {
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        // One line ends in CRLF, as a Windows program writing to the pipe would.
        let lines = ["9780143039952", "0-439-02348-3\r", "978-0-14-303995-2", "9780143039953", "5901234123457", "12345", "", "ISBN"]
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let run = try await ImportProcess.run(["import", "-", "--offline", "--json", "--library", library], in: dir, stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try ImportProcess.report(run)
        #expect(report.imported.map(\.isbn13) == ["9780143039952", "9780439023481"])
        #expect(report.imported.map(\.source) == ["stdin:1", "stdin:2"])
        #expect(report.alreadyPresent.map(\.source) == ["stdin:3"])
        #expect(report.alreadyPresent.first?.isbn13 == "9780143039952")
        #expect(report.alreadyPresent.first?.bookId == report.imported.first?.bookId)
        #expect(report.badChecksum.map(\.code) == ["9780143039953"])
        #expect(report.badChecksum.map(\.source) == ["stdin:4"])
        #expect(report.notABook.map(\.code) == ["5901234123457"])
        #expect(report.notABook.map(\.kind) == ["product"])
        #expect(report.notAnISBN.map(\.code) == ["12345"])
        #expect(report.lines == 6)
        #expect(report.unreadable.isEmpty)
        // Offline: stored by ISBN and queued for `shelfscan enrich`.
        #expect(Set(report.lookupFailed.compactMap(\.isbn13)) == ["9780143039952", "9780439023481"])
        #expect(Set(try LibraryDatabase.open(path: library).list().compactMap(\.isbn13)) == ["9780143039952", "9780439023481"])

        // The same lines again, human-readable: all already there, nothing added.
        let again = try await ImportProcess.run(["import", "-", "--offline", "--library", library], in: dir, stdin: input)
        #expect(again.status == 0)
        #expect(again.stdout.contains("already in the library: 3"), "\(again.stdout)")
        #expect(!again.stdout.contains("imported:"), "\(again.stdout)")
        #expect(try LibraryDatabase.open(path: library).count() == 2)
    }

    @Test("standard input: 20,000 ISBNs through a pipe are all imported")
    func manyLines() async throws {
        let dir = try TemporaryDirectory()
        let library = dir.file("library.sqlite")
        let isbns = (0..<20_000).map { ImportCheck.isbn13(body: "978000" + String(format: "%06d", $0)) }
        #expect(isbns.allSatisfy { ISBN($0) != nil })
        let run = try await ImportProcess.run(["import", "-", "--offline", "--library", library], in: dir,
                                              stdin: Data((isbns.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("imported: 20000"), "\(run.stdout.prefix(300))")
        let db = try LibraryDatabase.open(path: library)
        #expect(try db.count() == 20_000)
        let probe = [isbns[0], isbns[9_999], isbns[19_999]]
        #expect(Set(try db.books(isbn13: probe).keys) == Set(probe))
    }
}
