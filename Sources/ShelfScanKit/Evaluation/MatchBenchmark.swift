import Foundation

/// Times the title matcher on a large catalogue: reference CSVs padded with synthetic books to
/// `total`, then damaged spines of real catalogue books matched one at a time.
public enum MatchBenchmark {
    public struct Report: Sendable {
        public var books: Int
        public var indexSeconds: Double
        public var medianMilliseconds: Double
        public var p90Milliseconds: Double
        public var residentMegabytesBefore: Double
        public var residentMegabytesAfter: Double
        /// Damaged spines whose own book came first.
        public var rankedFirst: Int
        public var queries: Int
    }

    public static func run(catalogFiles: [String], total: Int, queries: Int = 500) throws(ShelfScanError) -> Report {
        let real = try books(catalogFiles: catalogFiles)
        guard !real.isEmpty else { throw ShelfScanError(.invalidArgument, "the catalogues hold no books") }
        return run(real: real, total: total, queries: queries)
    }

    /// The books of catalogue CSV files (any title/author/ISBN columns), read without a database.
    public static func books(catalogFiles: [String]) throws(ShelfScanError) -> [Book] {
        var real: [Book] = []
        for file in catalogFiles {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ShelfScanError(.fileNotFound, "\(file): cannot be read; check the path")
            }
            let rows = CSVReader.rows(String(decoding: data, as: UTF8.self))
            guard let header = rows.first else { continue }
            let columns = LibraryExchange.Columns(header)
            for row in rows.dropFirst() {
                if case .success(let (book, _)) = columns.book(from: row, source: "catalog") { real.append(book) }
            }
        }
        return real
    }

    /// `real` cut or padded to `total` books (synthetic ones made of the real titles' words, so
    /// word frequencies stay realistic), then `queries` damaged spines of its real books matched.
    public static func run(real: [Book], total: Int, queries: Int) -> Report {
        precondition(!real.isEmpty, "no books to match against")
        var random = SplitMix64(state: 2024)
        let titleWords = real.flatMap { $0.title.split(separator: " ").map(String.init) }
        let names = real.compactMap(\.authors.first)
        var books = Array(real.prefix(total))
        let realCount = books.count
        while books.count < total {
            let n = 1 + Int(random.next() % 5)
            let title = (0..<n).map { _ in titleWords[Int(random.next() % UInt64(titleWords.count))] }.joined(separator: " ")
            books.append(Book(title: title, authors: names.isEmpty ? [] : [names[Int(random.next() % UInt64(names.count))]], owned: false))
        }
        for i in books.indices { books[i].id = Int64(i + 1) }

        let before = residentMegabytes()
        let clock = ContinuousClock.now
        let matcher = BookMatcher(books: books)
        let indexSeconds = seconds(since: clock)
        let after = residentMegabytes()

        var times: [Double] = []
        var first = 0
        for q in 0..<queries {
            let book = books[Int(random.next() % UInt64(realCount))]
            var title = Array(book.title.uppercased())
            if title.count > 6 { title.remove(at: 1 + q % (title.count - 2)) }
            let lines = [String(title), book.authors.first ?? ""].filter { !$0.isEmpty }
            let region = RegionText(lines: lines.map { TextLine(text: $0) })
            let start = ContinuousClock.now
            let found = matcher.matches(for: region)
            times.append(seconds(since: start) * 1000)
            if let top = found.first, MatchText.title(top.book.title).core == MatchText.title(book.title).core { first += 1 }
        }
        times.sort()
        return Report(books: books.count, indexSeconds: indexSeconds, medianMilliseconds: times[times.count / 2],
                      p90Milliseconds: times[times.count * 9 / 10], residentMegabytesBefore: before,
                      residentMegabytesAfter: after, rankedFirst: first, queries: queries)
    }

    public static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// VmRSS of this process, from /proc (0 where there is none).
    static func residentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }
}
