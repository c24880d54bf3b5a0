/// How one image's barcodes compare with its truth record.
public struct BarcodeImageScore: Codable, Sendable {
    public let image: String
    public let set: String
    public let kind: TruthRecord.Kind
    public let expected: [String]
    public let reported: [String]
    public let correctMain: Int
    public let expectedMain: Int
    public let correctAddOns: Int
    public let expectedAddOns: Int
    /// Book ISBNs (978/979) expected and found.
    public let expectedISBNs: Int
    public let correctISBNs: Int
    /// Main codes reported that are not in the image.
    public let misreads: [String]
    /// Codes reported that the label leaves out but that are printed beside a labelled one: a
    /// Japanese book's ISBN and its price code are printed one above the other and reported
    /// together (`priceCode`); a label naming only one of them (and no other code of the
    /// other's kind) leaves the other out. Not misreads, but listed so a reader can check them.
    public let unlabelledPartners: [String]
    /// Codes reported on a `kind: none` image.
    public let falsePositives: Int
    public let error: String?
    public let milliseconds: Double

    /// Scores reported barcodes against a truth record.
    public init(truth: TruthRecord, result: ImageResult) {
        image = truth.image
        set = truth.set
        kind = truth.kind
        expected = truth.barcodes
        // A Japanese book's price code is reported with its ISBN (`priceCode`), not as a barcode
        // of its own, but it is a code read from the photo all the same.
        let priceCodes = result.barcodes.compactMap(\.priceCode)
        reported = result.barcodes.map(\.text) + priceCodes
        let expectedCodes = truth.expectedCodes
        let reportedMain = Dictionary(result.barcodes.map { ($0.digits, $0.addOn) } + priceCodes.map { ($0, nil) },
                                      uniquingKeysWith: { a, b in a ?? b })
        expectedMain = expectedCodes.count
        correctMain = expectedCodes.filter { reportedMain[$0.main] != nil }.count
        expectedAddOns = expectedCodes.filter { $0.addOn != nil }.count
        correctAddOns = expectedCodes.filter { code in code.addOn != nil && reportedMain[code.main].flatMap { $0 } == code.addOn }.count
        let isbns = expectedCodes.filter { CodeKind.of($0.main) == .book }
        expectedISBNs = isbns.count
        correctISBNs = isbns.filter { reportedMain[$0.main] != nil }.count
        let expectedSet = Set(expectedCodes.map(\.main))
        let pairs = result.barcodes.compactMap { code in code.priceCode.map { (code.digits, $0) } }
        let labelledKinds = Set(expectedSet.map(CodeKind.of))
        let unlabelled = (result.barcodes.map(\.digits) + priceCodes).filter { !expectedSet.contains($0) }
        let partners = unlabelled.filter { code in
            !labelledKinds.contains(CodeKind.of(code)) && pairs.contains { isbn, price in
                (code == isbn && expectedSet.contains(price)) || (code == price && expectedSet.contains(isbn))
            }
        }
        unlabelledPartners = partners
        misreads = unlabelled.filter { !partners.contains($0) }
        falsePositives = truth.kind == .none ? result.barcodes.count + priceCodes.count : 0
        error = result.error?.message
        milliseconds = result.timings.total
    }
}

/// Barcode figures summed over a group of images.
public struct BarcodeTotals: Codable, Sendable {
    public var images = 0
    public var expectedMain = 0
    public var correctMain = 0
    public var expectedAddOns = 0
    public var correctAddOns = 0
    public var expectedISBNs = 0
    public var correctISBNs = 0
    public var misreads = 0
    public var unlabelledPartners = 0
    public var falsePositives = 0
    public var errors = 0
    public var medianMilliseconds = 0.0
    public var p95Milliseconds = 0.0

    /// Correct main codes over expected main codes (1 when none were expected).
    public var decodeRate: Double { expectedMain == 0 ? 1 : Double(correctMain) / Double(expectedMain) }

    public init(_ scores: [BarcodeImageScore]) {
        for s in scores {
            images += 1
            expectedMain += s.expectedMain
            correctMain += s.correctMain
            expectedAddOns += s.expectedAddOns
            correctAddOns += s.correctAddOns
            expectedISBNs += s.expectedISBNs
            correctISBNs += s.correctISBNs
            misreads += s.misreads.count
            unlabelledPartners += s.unlabelledPartners.count
            falsePositives += s.falsePositives
            errors += s.error == nil ? 0 : 1
        }
        let times = scores.map(\.milliseconds).sorted()
        medianMilliseconds = Percentile.of(times, 0.5)
        p95Milliseconds = Percentile.of(times, 0.95)
    }
}

/// Percentiles of sorted samples (nearest rank; 0 for no samples).
public enum Percentile {
    public static func of(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        if sorted.count % 2 == 0 && p == 0.5 {
            return (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
