import Foundation

/// Title comparison as the truth format defines it: ignoring case, punctuation, diacritics,
/// leading articles and subtitles after a colon.
public enum TitleKey {
    /// Leading articles in English, Spanish, Catalan, Dutch, French, German and Italian.
    static let articles: Set<String> = ["the", "a", "an", "el", "la", "los", "las", "un", "una", "unos", "unas", "els",
                                        "les", "le", "l", "de", "het", "een", "der", "die", "das", "ein", "eine", "il", "lo", "gli"]

    public static func of(_ title: String) -> String {
        var t = title
        if let colon = t.firstIndex(of: ":") { t = String(t[..<colon]) }
        // "C++" is not "C" (`MatchText.words`).
        var words = MetadataService.normalise(t.replacingOccurrences(of: "++", with: "pp")).split(separator: " ").map(String.init)
        // A title that is only an article ("A") keeps it.
        if words.count > 1, articles.contains(words[0]) { words.removeFirst() }
        // A volume is another book ("Walking the Munros: Vol 1" and "...: Vol 2").
        return (words + MatchText.title(title).volume.map { "#" + $0 }).joined(separator: " ")
    }
}

/// A book the scanner returned, as scored.
public struct ScoredBook: Codable, Sendable {
    public let title: String?
    public let isbn13: String?
    public let confidence: Double
    /// True when it is one of the image's labelled books.
    public let correct: Bool
}

/// How one image's books compare with its truth record.
public struct BookImageScore: Codable, Sendable {
    public let image: String
    public let set: String
    public let kind: TruthRecord.Kind
    public let labelled: [String]
    public let returned: [ScoredBook]
    /// Labelled books returned.
    public let found: Int
    /// Returned books not labelled, on an image whose regions are all labelled (nil otherwise).
    public let invented: Int?
    /// Returned books not labelled, on any image: an upper bound on invention.
    public let unconfirmed: Int
    /// For single-book images (a cover, a barcode): whether the top-ranked book is the one.
    public let topOneCorrect: Bool?

    public init(truth: TruthRecord, result: ImageResult) {
        image = truth.image
        set = truth.set
        kind = truth.kind
        labelled = truth.books.map(\.title)
        let keys = truth.books.map { TitleKey.of($0.title) }
        let isbns = truth.books.map(\.isbn13)
        var matched = Set<Int>()
        var scored: [ScoredBook] = []
        for book in result.books {
            // A labelled book not yet matched, by ISBN when both have one, else by title.
            let index = truth.books.indices.first { i in
                guard !matched.contains(i) else { return false }
                if let a = book.isbn13, let b = isbns[i] { return a == b }
                return book.title.map { TitleKey.of($0) == keys[i] } ?? false
            }
            if let index { matched.insert(index) }
            scored.append(ScoredBook(title: book.title, isbn13: book.isbn13, confidence: book.confidence, correct: index != nil))
        }
        returned = scored
        found = matched.count
        let extra = scored.filter { !$0.correct }.count
        unconfirmed = extra
        invented = truth.unlabelledRegions == true ? nil : extra
        topOneCorrect = truth.books.count == 1 && (truth.kind == .cover || truth.kind == .barcode) ? (scored.first?.correct ?? false) : nil
    }
}

/// Book figures summed over a group of images.
public struct BookTotals: Codable, Sendable {
    public var images = 0
    public var labelled = 0
    public var found = 0
    public var returned = 0
    public var correct = 0
    public var invented = 0
    /// Images whose regions are all labelled (where `invented` is counted).
    public var fullyLabelledImages = 0
    public var unconfirmed = 0
    public var topOneCorrect = 0
    public var topOneImages = 0

    public var recall: Double { labelled == 0 ? 1 : Double(found) / Double(labelled) }
    public var precision: Double { returned == 0 ? 1 : Double(correct) / Double(returned) }
    public var f1: Double { recall + precision == 0 ? 0 : 2 * recall * precision / (recall + precision) }
    public var inventedPerImage: Double { fullyLabelledImages == 0 ? 0 : Double(invented) / Double(fullyLabelledImages) }
    public var unconfirmedPerImage: Double { images == 0 ? 0 : Double(unconfirmed) / Double(images) }

    public init(_ scores: [BookImageScore]) {
        for s in scores {
            images += 1
            labelled += s.labelled.count
            found += s.found
            returned += s.returned.count
            correct += s.returned.filter(\.correct).count
            if let i = s.invented { invented += i; fullyLabelledImages += 1 }
            unconfirmed += s.unconfirmed
            if let top = s.topOneCorrect { topOneImages += 1; topOneCorrect += top ? 1 : 0 }
        }
    }
}

/// Reported confidence against observed accuracy: of the books reported in a bin, how many were right.
public struct CalibrationBin: Codable, Sendable {
    public let lower: Double
    public let upper: Double
    public var count = 0
    public var correct = 0
    public var accuracy: Double? { count == 0 ? nil : Double(correct) / Double(count) }

    static func table(_ books: [ScoredBook]) -> [CalibrationBin] {
        let edges = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001]
        var bins = zip(edges, edges.dropFirst()).map { CalibrationBin(lower: $0, upper: min($1, 1)) }
        for b in books {
            guard let i = bins.firstIndex(where: { b.confidence >= $0.lower && (b.confidence < $0.upper || $0.upper == 1) }) else { continue }
            bins[i].count += 1
            bins[i].correct += b.correct ? 1 : 0
        }
        return bins
    }
}

/// Median and 95th percentile of one pipeline stage, in milliseconds.
public struct StageSummary: Codable, Sendable {
    public let stage: String
    public let median: Double
    public let p95: Double

    static func table(_ timings: [StageTimings]) -> [StageSummary] {
        let stages: [(String, KeyPath<StageTimings, Double>)] = [
            ("decode", \.decode), ("barcodes", \.barcodes), ("regions", \.regions), ("ocr", \.ocr), ("matching", \.matching), ("lookup", \.lookup), ("total", \.total),
        ]
        return stages.map { name, path in
            let values = timings.map { $0[keyPath: path] }.sorted()
            return StageSummary(stage: name, median: Percentile.of(values, 0.5), p95: Percentile.of(values, 0.95))
        }
    }
}
