import CZBar
import Foundation

/// Options for barcode reading. The defaults favour finding the code over speed.
public struct BarcodeOptions: Sendable {
    /// Images are scanned at most this large on their long side first; bigger ones are shrunk.
    public var workingSide = 2048
    /// Try the retry passes (median, rescales, rotations, contrast) when the first finds nothing.
    public var retries = true
    /// Codes seen by fewer scan lines than this are dropped as likely misreads.
    public var minScanLines = 1
    /// Diagnostics: run every pass and report what each found (the same code may appear once per pass).
    public var exhaustive = false

    public init() {}
}

/// What reading one image produced.
public struct BarcodeReadout: Sendable {
    public let barcodes: [Barcode]
    /// The passes tried, in order, until one found something.
    public let passesTried: [String]
}

/// Reads EAN-13 / UPC-A / UPC-E / EAN-8 codes with EAN-2 / EAN-5 add-ons from an image.
///
/// ZBar scans only horizontal and vertical lines and gives up on blur, so when the first pass
/// finds nothing the reader retries on transformed copies (median filter, rescales, rotations,
/// contrast) and stops at the first pass that finds a code. Every code's check digit is verified.
public struct BarcodeReader: Sendable {
    public var options: BarcodeOptions

    public init(options: BarcodeOptions = BarcodeOptions()) {
        self.options = options
    }

    /// Reads the barcodes in `image`. Positions are in `image`'s pixels.
    public func read(_ image: PixImage) throws(ShelfScanError) -> BarcodeReadout {
        let scanner = ZBarScanner()
        let gray = try image.grayscale()
        let base = try gray.fitting(maxSide: options.workingSide)
        let baseScale = Double(base.width) / Double(gray.width)
        var tried: [String] = []
        var all: [Barcode] = []

        for pass in passes(base: base) {
            let made: PixImage?
            do { made = try pass.make() } catch { throw error as? ShelfScanError ?? ShelfScanError(.corruptImage, "\(error)") }
            guard let pix = made else { continue }
            tried.append(pass.name)
            let symbols = scanner.scan(try pix.grayBytes())
            let mapping = PassMapping(
                scale: baseScale * pass.scale, degrees: pass.degrees,
                passSize: (pix.width, pix.height), baseSize: (Double(base.width) * pass.scale, Double(base.height) * pass.scale))
            let found = accept(symbols, mapping: mapping, limit: (gray.width, gray.height), pass: pass.name)
            if options.exhaustive { all += found; continue }
            if !found.isEmpty { return BarcodeReadout(barcodes: Self.attachPriceCodes(found), passesTried: tried) }
            if !options.retries { break }
        }
        return BarcodeReadout(barcodes: all, passesTried: tried)
    }

    /// One way of looking at the image.
    private struct Pass {
        let name: String
        /// Scale relative to the base image, and rotation (clockwise degrees) applied after it.
        let scale: Double
        let degrees: Double
        let make: () throws -> PixImage?
    }

    /// The passes, cheapest and most productive first. Each is a general remedy for one way photos
    /// go wrong; the order was chosen by how many extra codes each pass found on real phone photos.
    private func passes(base: PixImage) -> [Pass] {
        let side = max(base.width, base.height)
        typealias Make = () throws -> PixImage?
        func pass(_ name: String, scale: Double = 1, degrees: Double = 0, _ make: @escaping Make) -> Pass {
            Pass(name: name, scale: scale, degrees: degrees, make: make)
        }
        var list = [pass("direct") { base }]
        // Dim, low-contrast and slightly soft photos: stretch the range, steepen mid-tones, sharpen.
        list.append(pass("contrast") { try base.contrastEnhanced().sharpened() })
        // Sensor noise and JPEG speckle break bar edges; a 3x3 median keeps edges and drops specks.
        list.append(pass("median") { try base.medianFiltered() })
        // Glare and shadows: binarise against the local mean instead of one global threshold.
        list.append(pass("binarize") { try base.binarized(halfWindow: max(8, side / 40)) })
        // Horizontal and vertical scan lines tolerate a little tilt, less when blurred: small turns.
        list.append(pass("rotate12", degrees: 12) { try base.rotated(degrees: 12) })
        list.append(pass("rotate-12", degrees: -12) { try base.rotated(degrees: -12) })
        // Blur spreads edges over several pixels; shrinking gathers them back.
        list.append(pass("downscale", scale: 0.5) { try base.scaled(by: 0.5) })
        // The diagonal band between the horizontal and vertical scan directions.
        list.append(pass("rotate45", degrees: 45) { try base.rotated(degrees: 45) })
        list.append(pass("rotate-45", degrees: -45) { try base.rotated(degrees: -45) })
        // Small images: modules of 1-2 px; interpolation gives ZBar's edge finder more to work with.
        if side <= 1400 { list.append(pass("upscale2", scale: 2) { try base.scaled(by: 2) }) }
        // Strong uneven light: every region stretched to full range.
        list.append(pass("normalize") { try base.locallyNormalized() })
        return list
    }

    /// Turns raw ZBar symbols into verified barcodes, with add-ons attached and positions mapped back.
    private func accept(_ symbols: [RawSymbol], mapping: PassMapping, limit: (Int, Int), pass: String) -> [Barcode] {
        let addOns = symbols.filter { ($0.type == ZBAR_EAN2 || $0.type == ZBAR_EAN5) && $0.addOn == nil }
        let mains: [(symbol: RawSymbol, symbology: Symbology, digits: String)] = symbols.compactMap { symbol in
            guard let symbology = Symbology(zbar: symbol.type), symbol.quality >= options.minScanLines,
                  let digits = GTIN.canonical(symbol.data, symbology: symbology),
                  Self.isPlausibleLength(symbol, symbology) else { return nil }
            return (symbol, symbology, digits)
        }
        var result: [Barcode] = []
        for main in mains {
            // Two different codes in one place cannot both be right: ZBar pieces some misreads
            // together from a few scan lines across a real code. The code more lines agree on wins.
            let beaten = mains.contains { other in
                other.digits != main.digits && other.symbol.quality > main.symbol.quality
                    && Self.overlaps(other.symbol.points, main.symbol.points, margin: 4)
            }
            if beaten || result.contains(where: { $0.digits == main.digits }) { continue }
            let box = BoundingBox(enclosing: main.symbol.points.map(mapping.toOriginal), limit: limit)
            var addOn = main.symbol.addOn
            if addOn == nil {
                // A separate add-on belongs to the main code just right of it on the same line.
                addOn = addOns.first { mapping.isAddOn($0, of: main.symbol) }?.data
            }
            result.append(Barcode(symbology: main.symbology, digits: main.digits, addOn: addOn, box: box,
                                  scanLines: main.symbol.quality, pass: pass))
        }
        return result
    }

    /// Japanese books carry two stacked EAN-13s: the ISBN and, under it, a 191/192 price code.
    /// The second belongs to the book: it is attached to the nearest ISBN instead of being listed
    /// as a barcode of its own. Alone (the ISBN unreadable) it stays a barcode of kind `bookPrice`.
    static func attachPriceCodes(_ codes: [Barcode]) -> [Barcode] {
        let books = codes.indices.filter { codes[$0].kind == .book }
        guard !books.isEmpty, codes.contains(where: { $0.kind == .bookPrice }) else { return codes }
        var result = codes
        for price in codes where price.kind == .bookPrice {
            let nearest = books.min { a, b in
                distance(codes[a].box, price.box) < distance(codes[b].box, price.box)
            }!
            result[nearest].priceCode = price.digits
        }
        return result.filter { $0.kind != .bookPrice }
    }

    private static func distance(_ a: BoundingBox, _ b: BoundingBox) -> Double {
        let (ax, ay) = a.center, (bx, by) = b.center
        return (ax - bx) * (ax - bx) + (ay - by) * (ay - by)
    }

    /// Modules (narrowest bar widths) from guard to guard, per symbology.
    private static func modules(_ symbology: Symbology) -> Int {
        switch symbology {
        case .ean13, .upcA: 95
        case .ean8: 67
        case .upcE: 51
        }
    }

    /// ZBar records where each agreeing scan line ended, alternately at either end of the code, so
    /// the points span the code's length. Below about one pixel per module no real code is
    /// readable: such a decode is a misread built from a few lines of noise or text.
    private static func isPlausibleLength(_ symbol: RawSymbol, _ symbology: Symbology) -> Bool {
        guard let first = symbol.points.first else { return false }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in symbol.points {
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        return Double(max(maxX - minX, maxY - minY) + 1) >= 0.8 * Double(modules(symbology))
    }

    private static func overlaps(_ a: [(x: Int, y: Int)], _ b: [(x: Int, y: Int)], margin: Int) -> Bool {
        func box(_ p: [(x: Int, y: Int)]) -> (Int, Int, Int, Int) {
            (p.map(\.x).min() ?? 0, p.map(\.y).min() ?? 0, p.map(\.x).max() ?? 0, p.map(\.y).max() ?? 0)
        }
        let (ax0, ay0, ax1, ay1) = box(a), (bx0, by0, bx1, by1) = box(b)
        return ax0 - margin <= bx1 && bx0 - margin <= ax1 && ay0 - margin <= by1 && by0 - margin <= ay1
    }
}

/// Maps points found in a pass image back to the original image.
private struct PassMapping {
    let scale: Double
    let degrees: Double
    let passSize: (Int, Int)
    let baseSize: (Double, Double)

    func toOriginal(_ p: (x: Int, y: Int)) -> (x: Double, y: Double) {
        var x = Double(p.x), y = Double(p.y)
        if degrees != 0 {
            // Undo a clockwise rotation about the centre of the (grown) rotated canvas.
            let t = degrees * Double.pi / 180
            let dx = x - Double(passSize.0) / 2, dy = y - Double(passSize.1) / 2
            x = baseSize.0 / 2 + dx * cos(t) + dy * sin(t)
            y = baseSize.1 / 2 - dx * sin(t) + dy * cos(t)
        }
        return (x / scale, y / scale)
    }

    func isAddOn(_ addOn: RawSymbol, of main: RawSymbol) -> Bool {
        guard let a = addOn.points.first, !main.points.isEmpty else { return false }
        let ys = main.points.map(\.y), xs = main.points.map(\.x)
        let height = max(8, (ys.max()! - ys.min()!))
        return abs(a.y - (ys.min()! + ys.max()!) / 2) <= height + 40 && a.x >= xs.min()!
    }
}

extension Symbology {
    init?(zbar type: zbar_symbol_type_t) {
        switch type {
        case ZBAR_EAN13, ZBAR_ISBN13: self = .ean13
        case ZBAR_UPCA: self = .upcA
        case ZBAR_UPCE: self = .upcE
        case ZBAR_EAN8: self = .ean8
        default: return nil
        }
    }
}
