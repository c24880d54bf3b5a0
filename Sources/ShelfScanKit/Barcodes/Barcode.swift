/// A point in the upright image's pixels.
public struct Point: Codable, Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle in the upright image's pixels.
public struct BoundingBox: Codable, Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest box holding all `points`, clamped to a `limit` sized image.
    init(enclosing points: [(x: Double, y: Double)], limit: (width: Int, height: Int)) {
        let xs = points.map(\.x), ys = points.map(\.y)
        let x0 = max(0, Int((xs.min() ?? 0).rounded(.down)))
        let y0 = max(0, Int((ys.min() ?? 0).rounded(.down)))
        let x1 = min(limit.width, Int((xs.max() ?? 0).rounded(.up)) + 1)
        let y1 = min(limit.height, Int((ys.max() ?? 0).rounded(.up)) + 1)
        self.init(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// This box cut down to an image of the given size.
    public func clamped(width w: Int, height h: Int) -> BoundingBox {
        let x0 = min(max(0, x), w), y0 = min(max(0, y), h)
        let x1 = min(max(0, x + width), w), y1 = min(max(0, y + height), h)
        return BoundingBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var center: (x: Double, y: Double) { (Double(x) + Double(width) / 2, Double(y) + Double(height) / 2) }

    /// The area the two boxes share, in pixels.
    public func intersectionArea(_ other: BoundingBox) -> Int {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }
}

/// A decoded, checksum-verified barcode.
public struct Barcode: Codable, Sendable, Hashable {
    public let symbology: Symbology
    /// The main code in canonical form: 13 digits for EAN-13/UPC-A/UPC-E, 8 for EAN-8.
    public let digits: String
    /// The EAN-2 or EAN-5 add-on (a book's price code, a magazine's issue), if present.
    public let addOn: String?
    /// What the code identifies.
    public let kind: CodeKind
    /// For books: the ISBN-13 and, for 978 codes, the ISBN-10.
    public let isbn13: String?
    public let isbn10: String?
    /// For periodicals (977): the ISSN.
    public let issn: String?
    /// For books sold in Japan: the classification-and-price code printed under the ISBN.
    public internal(set) var priceCode: String?
    /// Where it is, in the upright image.
    public let box: BoundingBox
    /// How many scan lines agreed on the main code.
    public let scanLines: Int
    /// The decoding pass that found it ("direct", "median", "rotate45", ...).
    public let pass: String

    /// Main code and add-on as truth files write them: `9780735200449 51299`.
    public var text: String { addOn.map { "\(digits) \($0)" } ?? digits }

    enum CodingKeys: String, CodingKey {
        case symbology, digits, addOn, kind, isbn13, isbn10, issn, priceCode, box, scanLines, pass, text
    }

    /// Every documented field is present; absent values are `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(symbology, forKey: .symbology)
        try c.encode(digits, forKey: .digits)
        try c.encode(addOn, forKey: .addOn)
        try c.encode(text, forKey: .text)
        try c.encode(kind, forKey: .kind)
        try c.encode(isbn13, forKey: .isbn13)
        try c.encode(isbn10, forKey: .isbn10)
        try c.encode(issn, forKey: .issn)
        try c.encode(priceCode, forKey: .priceCode)
        try c.encode(box, forKey: .box)
        try c.encode(scanLines, forKey: .scanLines)
        try c.encode(pass, forKey: .pass)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(symbology: try c.decode(Symbology.self, forKey: .symbology), digits: try c.decode(String.self, forKey: .digits),
                  addOn: try c.decodeIfPresent(String.self, forKey: .addOn), box: try c.decode(BoundingBox.self, forKey: .box),
                  scanLines: try c.decode(Int.self, forKey: .scanLines), pass: try c.decode(String.self, forKey: .pass))
        priceCode = try c.decodeIfPresent(String.self, forKey: .priceCode)
    }

    init(symbology: Symbology, digits: String, addOn: String?, box: BoundingBox, scanLines: Int, pass: String) {
        self.symbology = symbology
        self.digits = digits
        self.addOn = addOn
        self.box = box
        self.scanLines = scanLines
        self.pass = pass
        kind = CodeKind.of(digits)
        let isbn = kind == .book ? ISBN(digits) : nil
        isbn13 = isbn?.isbn13
        isbn10 = isbn?.isbn10
        issn = ISSN.from(ean13: digits)
    }
}
