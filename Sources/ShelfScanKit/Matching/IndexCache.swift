import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The title matcher's index (`BookIndex`) kept on disk between runs, one file per library: with
/// a 25,000-book catalogue loaded, building the index costs about 0.45 s of CPU on every run,
/// more than reading a cover; reading it back costs a tenth of that.
///
/// A cache file is used only when it was written for exactly the books being matched (their ids,
/// titles, subtitles, authors and whether they are owned), by this very executable (its size and
/// modification time) under the same `SHELFSCAN_*` settings: any other file is ignored and
/// replaced. It is written to a temporary file and renamed, so a crash leaves the old file or the
/// new one, never half of one; the library itself is never written.
public struct IndexCache: Sendable {
    /// The folder holding the cache files.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The user's cache folder: `SHELFSCAN_CACHE_DIR`, else `$XDG_CACHE_HOME/shelfscan`, else
    /// `~/.cache/shelfscan`; nil when `SHELFSCAN_INDEX_CACHE=off` or no home is known.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> IndexCache? {
        if environment["SHELFSCAN_INDEX_CACHE"] == "off" { return nil }
        if let dir = environment["SHELFSCAN_CACHE_DIR"], !dir.isEmpty { return IndexCache(directory: dir) }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return IndexCache(directory: xdg + "/shelfscan") }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return IndexCache(directory: home + "/.cache/shelfscan")
    }

    /// Format of the file; bump it when `BookIndex` gains or changes a stored field (2: words
    /// stored as UTF-8 text, the body's checksum taken 8 bytes at a time).
    static let format: UInt32 = 2
    static let magic: UInt32 = 0x5853_4953 // "SISX"

    /// The cache file for the library at `libraryPath`.
    func file(for libraryPath: String) -> String {
        let absolute = libraryPath.hasPrefix("/") ? libraryPath : FileManager.default.currentDirectoryPath + "/" + libraryPath
        var hash = FNV1a()
        hash.add(absolute)
        return directory + "/index-" + String(hash.value, radix: 16) + ".bin"
    }

    /// The index of `books` (the library at `libraryPath`): read from the cache when it holds
    /// these books, else built and written there (a cache that cannot be written is skipped).
    func index(of books: [Book], libraryPath: String) -> BookIndex {
        let path = file(for: libraryPath)
        let stamp = Self.stamp(of: books)
        if let data = FileManager.default.contents(atPath: path), let cached = Self.decode(data, stamp: stamp, books: books) {
            return cached
        }
        let built = BookIndex(books: books)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // `.atomic` writes a temporary file and renames it over the old one.
        try? Self.encode(built, stamp: stamp).write(to: URL(fileURLWithPath: path), options: .atomic)
        return built
    }

    /// The file's bytes: a header (magic, format, `stamp`, the body's checksum), then the body.
    static func encode(_ index: BookIndex, stamp: UInt64) -> Data {
        var body = ByteWriter()
        index.encode(into: &body)
        var out = ByteWriter()
        out.put(magic)
        out.put(format)
        out.put(stamp)
        out.put(body.bytes.withUnsafeBytes { checksum($0) })
        return Data(out.bytes + body.bytes)
    }

    /// FNV-1a over the bytes taken as 64-bit words (the tail as one word, zero-padded), then
    /// the length: any one damaged bit changes it, at an eighth of a byte-wise FNV's cost (a
    /// 25,000-book index is about 7 MB, read before every scan).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01B3
        let words = bytes.count / 8
        for i in 0..<words { hash = (hash ^ bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* prime }
        var tail: UInt64 = 0
        for (k, byte) in bytes[(words * 8)...].enumerated() { tail |= UInt64(byte) << UInt64(8 * k) }
        hash = (hash ^ tail) &* prime
        return (hash ^ UInt64(bytes.count)) &* prime
    }

    /// The index in `data`, or nil when it was written for other books, another build or other
    /// settings, or is damaged (a checksum over the body: a flipped bit must not change a match).
    static func decode(_ data: Data, stamp: UInt64, books: [Book]) -> BookIndex? {
        data.withUnsafeBytes { raw -> BookIndex? in
            var reader = ByteReader(raw)
            guard (try? reader.get(UInt32.self)) == magic, (try? reader.get(UInt32.self)) == format,
                  (try? reader.get(UInt64.self)) == stamp, let sum = try? reader.get(UInt64.self),
                  checksum(UnsafeRawBufferPointer(rebasing: raw[reader.offset...])) == sum else { return nil }
            guard let index = try? BookIndex(books: books, reading: &reader), reader.atEnd else { return nil }
            return index
        }
    }

    /// What the index depends on: the executable, the settings, and each book's matched fields.
    static func stamp(of books: [Book]) -> UInt64 {
        var hash = FNV1a()
        hash.add(UInt64(format))
        var info = stat()
        if stat("/proc/self/exe", &info) == 0 {
            hash.add(UInt64(bitPattern: Int64(info.st_size)))
            hash.add(UInt64(bitPattern: Int64(info.st_mtim.tv_sec)))
            hash.add(UInt64(bitPattern: Int64(info.st_mtim.tv_nsec)))
        }
        for (key, value) in ProcessInfo.processInfo.environment.sorted(by: { $0.key < $1.key }) where Self.mayChangeIndex(key) {
            hash.add(key); hash.add(value)
        }
        hash.add(UInt64(books.count))
        for book in books {
            hash.add(UInt64(bitPattern: book.id ?? -1))
            hash.add(book.title)
            hash.add(book.subtitle ?? "\u{1}")
            hash.add(UInt64(book.authors.count))
            for author in book.authors { hash.add(author) }
            hash.add(UInt8(book.owned ? 1 : 0))
        }
        return hash.value
    }
}

extension IndexCache {
    /// Whether the environment variable `key` may change how the index is built: any setting
    /// of shelfscan's (most are measuring switches), but not the traces nor the cache's own.
    static func mayChangeIndex(_ key: String) -> Bool {
        key.hasPrefix("SHELFSCAN_") && !key.hasPrefix("SHELFSCAN_TRACE_")
            && key != "SHELFSCAN_INDEX_CACHE" && key != "SHELFSCAN_CACHE_DIR"
    }
}

/// 64-bit FNV-1a: a hash that is the same in every process (Swift's `Hasher` is seeded per run).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    /// The string's UTF-8 bytes and a terminator, so "ab"+"c" differs from "a"+"bc".
    mutating func add(_ text: String) {
        for byte in text.utf8 { add(byte) }
        add(UInt8(0xFF))
    }
}

/// Plain values and arrays of them, appended as their bytes (this machine's byte order: the
/// file is a cache, never moved between machines).
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func put<T: BitwiseCopyable>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    mutating func put<T: BitwiseCopyable>(array: [T]) {
        put(Int64(array.count))
        array.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// Arrays of arrays as lengths then the values run together; a nil array has length -1.
    mutating func put<T: BitwiseCopyable>(nested: [[T]?]) {
        put(array: nested.map { Int32($0?.count ?? -1) })
        put(array: nested.flatMap { $0 ?? [] })
    }

    mutating func put(strings: [String]) {
        put(nested: strings.map { Array($0.utf8) })
    }
}

/// Reads what `ByteWriter` wrote, checking every length against the bytes left.
struct ByteReader {
    struct Damaged: Error {}
    private let raw: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ raw: UnsafeRawBufferPointer) {
        self.raw = raw
    }

    var atEnd: Bool { offset == raw.count }

    mutating func get<T: BitwiseCopyable>(_: T.Type) throws(Damaged) -> T {
        let size = MemoryLayout<T>.size
        guard raw.count - offset >= size else { throw Damaged() }
        defer { offset += size }
        return raw.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    mutating func array<T: BitwiseCopyable>(of _: T.Type) throws(Damaged) -> [T] {
        let count = try get(Int64.self)
        let stride = MemoryLayout<T>.stride
        guard count >= 0, count <= Int64((raw.count - offset) / max(1, stride)) else { throw Damaged() }
        let n = Int(count)
        let values = [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            if n > 0 {
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + n * stride)]))
            }
            initialized = n
        }
        offset += n * stride
        return values
    }

    mutating func nested<T: BitwiseCopyable>(of _: T.Type) throws(Damaged) -> [[T]?] {
        let lengths = try array(of: Int32.self)
        let flat = try array(of: T.self)
        var out: [[T]?] = []
        out.reserveCapacity(lengths.count)
        var start = 0
        for length in lengths {
            guard length >= 0 else { out.append(nil); continue }
            guard start + Int(length) <= flat.count else { throw Damaged() }
            out.append(Array(flat[start..<(start + Int(length))]))
            start += Int(length)
        }
        guard start == flat.count else { throw Damaged() }
        return out
    }

    /// `nested` where no entry may be nil.
    mutating func lists<T: BitwiseCopyable>(of _: T.Type) throws(Damaged) -> [[T]] {
        let all = try nested(of: T.self)
        var out: [[T]] = []
        out.reserveCapacity(all.count)
        for list in all {
            guard let list else { throw Damaged() }
            out.append(list)
        }
        return out
    }

    /// What `put(strings:)` wrote: each string made straight from its bytes in the buffer.
    mutating func strings() throws(Damaged) -> [String] {
        let lengths = try array(of: Int32.self)
        let count = try get(Int64.self)
        guard count >= 0, count <= Int64(raw.count - offset) else { throw Damaged() }
        let end = offset + Int(count)
        var out: [String] = []
        out.reserveCapacity(lengths.count)
        var start = offset
        for length in lengths {
            guard length >= 0, Int(length) <= end - start else { throw Damaged() }
            out.append(String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<(start + Int(length))]), as: UTF8.self))
            start += Int(length)
        }
        guard start == end else { throw Damaged() }
        offset = end
        return out
    }
}

extension BookIndex {
    /// The index's stored fields, in the order `init(books:reading:)` reads them; what is quick
    /// to derive (word ids, owned entries, names per word, owned works) is derived again.
    func encode(into out: inout ByteWriter) {
        out.put(Int64(distinctBooks))
        out.put(array: subtitleEntryBooks)
        out.put(strings: wordScalars.map { String(String.UnicodeScalarView($0)) })
        out.put(array: wordEvidence)
        out.put(array: titleWeight)
        out.put(array: nameWord.map { $0 ? UInt8(1) : 0 })
        out.put(nested: core)
        out.put(nested: extra)
        // Authors: per book its number of names, then the names.
        out.put(array: authors.map { Int32($0.count) })
        out.put(nested: authors.flatMap { $0 })
        out.put(nested: fullNames.sorted { $0.lexicographicallyPrecedes($1) })
        out.put(nested: titleNameWords.map { $0?.map { $0 ? UInt8(1) : 0 } })
        out.put(strings: bookKeys)
        out.put(array: uniqueTitle.map { $0 ? UInt8(1) : 0 })
        out.put(array: seriesWords.map { Int32($0) })
        out.put(nested: titleName)
        out.put(array: trigramIDs.sorted { $0.value < $1.value }.map(\.key))
        out.put(array: trigramStart)
        out.put(array: trigramBooks)
        out.put(array: trigramWeight)
        out.put(array: titleNorm)
        out.put(array: authorStart)
        out.put(array: authorBooks)
        out.put(array: authorWeight)
    }

    /// The index of `given` as `encode(into:)` wrote it (for these very books: `IndexCache`
    /// checks that first); throws when the bytes do not add up.
    init(books given: [Book], reading r: inout ByteReader) throws(ByteReader.Damaged) {
        guard try r.get(Int64.self) == Int64(given.count) else { throw ByteReader.Damaged() }
        distinctBooks = given.count
        subtitleEntryBooks = try r.array(of: Int32.self)
        guard subtitleEntryBooks.allSatisfy({ $0 >= 0 && Int($0) < given.count }) else { throw ByteReader.Damaged() }
        let books = Entries(books: given, again: subtitleEntryBooks)
        self.books = books
        ownedEntries = books.indices.filter { books[$0].owned }.map { Int32($0) }
        // Each word as its text: the same scalars, in the same order, as the index was built with.
        let texts = try r.strings()
        var words: [[Unicode.Scalar]] = []
        words.reserveCapacity(texts.count)
        var ids: [String: Int32] = [:]
        ids.reserveCapacity(texts.count)
        for (i, text) in texts.enumerated() {
            words.append(Array(text.unicodeScalars))
            ids[text] = Int32(i)
        }
        wordScalars = words
        wordIDs = ids
        wordEvidence = try r.array(of: Double.self)
        titleWeight = try r.array(of: Double.self)
        nameWord = try r.array(of: UInt8.self).map { $0 != 0 }
        core = try r.lists(of: Int32.self)
        extra = try r.lists(of: Int32.self)
        let nameCounts = try r.array(of: Int32.self)
        let names = try r.lists(of: Int32.self)
        guard nameCounts.allSatisfy({ $0 >= 0 }), nameCounts.reduce(0, { $0 + Int($1) }) == names.count else { throw ByteReader.Damaged() }
        var authors: [[[Int32]]] = []
        authors.reserveCapacity(nameCounts.count)
        var next = 0
        for n in nameCounts {
            authors.append(Array(names[next..<(next + Int(n))]))
            next += Int(n)
        }
        self.authors = authors
        fullNames = Set(try r.lists(of: Int32.self))
        titleNameWords = try r.nested(of: UInt8.self).map { $0?.map { $0 != 0 } }
        bookKeys = try r.strings()
        uniqueTitle = try r.array(of: UInt8.self).map { $0 != 0 }
        seriesWords = try r.array(of: Int32.self).map { Int($0) }
        titleName = try r.nested(of: Int32.self)
        let trigramKeys = try r.array(of: UInt64.self)
        var trigramIDs: [UInt64: Int32] = [:]
        trigramIDs.reserveCapacity(trigramKeys.count)
        for (i, g) in trigramKeys.enumerated() { trigramIDs[g] = Int32(i) }
        self.trigramIDs = trigramIDs
        trigramStart = try r.array(of: Int32.self)
        trigramBooks = try r.array(of: Int32.self)
        trigramWeight = try r.array(of: Float.self)
        titleNorm = try r.array(of: Float.self)
        authorStart = try r.array(of: Int32.self)
        authorBooks = try r.array(of: Int32.self)
        authorWeight = try r.array(of: Float.self)

        // Every per-entry array has an entry per book, every id points inside its table: a file
        // that passed the stamp but not this is damaged, and must not crash a scan.
        let n = books.count, vocabulary = words.count
        let perEntry = [core.count, extra.count, authors.count, titleNameWords.count, bookKeys.count, uniqueTitle.count,
                        seriesWords.count, titleName.count, titleNorm.count]
        guard perEntry.allSatisfy({ $0 == n }), wordEvidence.count == vocabulary, titleWeight.count == vocabulary,
              nameWord.count == vocabulary, authorWeight.count == vocabulary, authorStart.count == vocabulary + 1,
              trigramStart.count == trigramKeys.count + 1, trigramWeight.count == trigramKeys.count,
              trigramStart.last.map(Int.init) == trigramBooks.count, authorStart.last.map(Int.init) == authorBooks.count,
              trigramBooks.allSatisfy({ $0 >= 0 && Int($0) < n }), authorBooks.allSatisfy({ $0 >= 0 && Int($0) < n }),
              zip(titleNameWords, core).allSatisfy({ $0 == nil || $0!.count == $1.count }),
              trigramStart.first == 0, authorStart.first == 0,
              zip(trigramStart, trigramStart.dropFirst()).allSatisfy({ $0 <= $1 }),
              zip(authorStart, authorStart.dropFirst()).allSatisfy({ $0 <= $1 }),
              (core + extra + names + Array(fullNames) + titleName.compactMap { $0 }).allSatisfy({ $0.allSatisfy { $0 >= 0 && Int($0) < vocabulary } })
        else { throw ByteReader.Damaged() }
        namesWithWord = Self.namesWithWord(fullNames)
        ownedWorks = Self.ownedWorks(books: books, authors: authors, fullNames: fullNames, keys: bookKeys)
    }
}
