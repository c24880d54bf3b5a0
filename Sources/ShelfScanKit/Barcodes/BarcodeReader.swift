import CZBar
import Foundation

/// Options for barcode reading. The defaults favour finding the code over speed.
public struct BarcodeOptions: Sendable {
    /// Images are scanned at most this large on their long side first; bigger ones are shrunk.
    public var workingSide = 1280
    /// Try the retry passes (median, rescales, rotations, contrast) when the first finds nothing.
    public var retries = true
    /// Codes seen by fewer scan lines than this are dropped as likely misreads.
    public var minScanLines = 1
    /// Barcode-like regions retried, best first.
    public var maxRegions = 3
    /// Whole-image retries run only on images up to this many pixels (after shrinking to
    /// `workingSide`): on big photos they cost seconds, and the region retries cover them.
    public var wholeImageRetryPixels = 1_000_000
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
    ///
    /// 1. The whole image, shrunk to `workingSide`, as it is: most photos end here.
    /// 2. Barcode-like regions (`BarcodeRegionFinder`), each cropped from the full-resolution
    ///    image, turned so its bars stand upright, sized for ZBar, and retried with remedies
    ///    for blur, noise and uneven light. A photo with no stripes costs only the finder.
    /// 3. For small images only, the remedies on the whole image: heavy blur can hide the stripes
    ///    from the finder while leaving a code ZBar can still read.
    public func read(_ image: PixImage) throws(ShelfScanError) -> BarcodeReadout {
        let session = try ReadSession(reader: self, image: image)
        if try session.attempt(Pass(name: "direct", scale: 1, degrees: 0) { session.base }, source: session.base,
                               sourceScale: session.baseScale, offset: (0, 0), firstPass: true) {
            return try session.finish()
        }
        guard options.retries else { return try session.finish() }

        let finderStart = ContinuousClock.now
        let finderImage = try session.base.fitting(maxSide: 640)
        let finderScale = Double(finderImage.width) / Double(image.width)
        let regions = BarcodeRegionFinder().find(in: try finderImage.grayBytes()).prefix(options.maxRegions)
        Self.log("regions: \(regions.count)", since: finderStart)
        for region in regions {
            let box = Self.cropBox(region: region, finderScale: finderScale, image: image)
            let (crop, scale) = try Self.prepareCrop(image, box, base: session.base, baseScale: session.baseScale)
            // Bars upright: turn the gradient direction onto the x axis; near-vertical gradients are
            // already fine for ZBar's vertical scan lines.
            var turn = -region.gradientDegrees
            if abs(abs(region.gradientDegrees) - 90) < 6 || abs(region.gradientDegrees) < 6 { turn = 0 }
            for pass in regionPasses(crop, turn: turn) {
                if try session.attempt(pass, source: crop, sourceScale: scale, offset: (box.x, box.y)) {
                    return try session.finish()
                }
            }
        }

        if session.base.width * session.base.height <= options.wholeImageRetryPixels {
            for pass in wholeImagePasses(session.base) {
                if try session.attempt(pass, source: session.base, sourceScale: session.baseScale, offset: (0, 0)) {
                    return try session.finish()
                }
            }
        }
        return try session.finish()
    }

    /// The state of reading one image: its scanners, the working copy, what was found.
    private final class ReadSession {
        let reader: BarcodeReader
        let image: PixImage
        let base: PixImage
        let baseScale: Double
        let scanner = ZBarScanner()
        /// Every second line: plenty for big pass images, at half the cost.
        let sparseScanner = ZBarScanner(density: 2)
        var tried: [String] = []
        var found: [Candidate] = []

        init(reader: BarcodeReader, image: PixImage) throws(ShelfScanError) {
            self.reader = reader
            self.image = image
            let start = ContinuousClock.now
            base = try image.grayscale(fitting: reader.options.workingSide)
            baseScale = Double(base.width) / Double(image.width)
            BarcodeReader.log("gray \(base.width)x\(base.height)", since: start)
        }

        /// Runs one pass; true when the search is over.
        func attempt(_ pass: Pass, source: PixImage, sourceScale: Double, offset: (Int, Int), firstPass: Bool = false)
            throws(ShelfScanError) -> Bool
        {
            let results = try run(pass, source: source, sourceScale: sourceScale, offset: offset, firstPass: firstPass)
            found += results
            return !results.isEmpty && !reader.options.exhaustive
        }

        func run(_ pass: Pass, source: PixImage, sourceScale: Double, offset: (Int, Int), firstPass: Bool = false)
            throws(ShelfScanError) -> [Candidate]
        {
            let started = ContinuousClock.now
            defer { BarcodeReader.log("pass \(pass.name)", since: started) }
            let made: PixImage?
            do { made = try pass.make() } catch { throw error as? ShelfScanError ?? ShelfScanError(.corruptImage, "\(error)") }
            guard let pix = made else { return [] }
            tried.append(pass.name)
            let mapping = PassMapping(
                scale: sourceScale * pass.scale, degrees: pass.degrees, passSize: (pix.width, pix.height),
                sourceSize: (Double(source.width) * pass.scale, Double(source.height) * pass.scale), offset: offset)
            // Above a megapixel (first pass) or 0.3 MP (retries) every second line is plenty.
            let sparse = pix.width * pix.height > (firstPass ? 500_000 : 300_000)
            let gray = try pix.grayBytes()
            let symbols = (sparse ? sparseScanner : scanner).scan(gray)
            return reader.accept(symbols, gray: gray, mapping: mapping, limit: (image.width, image.height), pass: pass.name,
                                 density: sparse ? 2 : 1)
        }

        /// Weak decodes (few of the lines across the code agreed) get a second look before they are
        /// reported: the code's surroundings, cropped from the full-resolution image, read again
        /// through a different remedy. A different code found there means the first was likely a
        /// misread: it is replaced by a clearly stronger rival, or dropped when neither is clear.
        func finish() throws(ShelfScanError) -> BarcodeReadout {
            var verified: [Barcode] = []
            for candidate in found {
                guard !reader.options.exhaustive, candidate.coverage < BarcodeReader.weakCoverage else {
                    verified.append(candidate.barcode)
                    continue
                }
                if let kept = try secondLook(candidate) { verified.append(kept) }
            }
            let codes = reader.options.exhaustive ? verified : BarcodeReader.attachPriceCodes(BarcodeReader.unique(verified))
            return BarcodeReadout(barcodes: codes, passesTried: tried)
        }

        private func secondLook(_ candidate: Candidate) throws(ShelfScanError) -> Barcode? {
            let code = candidate.barcode
            let length = max(code.box.width, code.box.height)
            let horizontal = code.box.width >= code.box.height
            let alongMargin = length / 4, acrossMargin = length * 3 / 4
            let box = BoundingBox(
                x: code.box.x - (horizontal ? alongMargin : acrossMargin), y: code.box.y - (horizontal ? acrossMargin : alongMargin),
                width: code.box.width + 2 * (horizontal ? alongMargin : acrossMargin),
                height: code.box.height + 2 * (horizontal ? acrossMargin : alongMargin)
            ).clamped(width: image.width, height: image.height)
            let (crop, scale) = try BarcodeReader.prepareCrop(image, box, base: base, baseScale: baseScale)
            let views: [Pass] = [
                Pass(name: "check-contrast", scale: 1, degrees: 0) { try crop.contrastSharpened() },
                Pass(name: "check-median", scale: 1, degrees: 0) { try crop.medianFiltered() },
                // Real codes survive a small change of scale; misreads built on marginal bar
                // widths often turn into another code.
                Pass(name: "check-smaller", scale: 0.8, degrees: 0) { try crop.scaled(by: 0.8) },
                Pass(name: "check-larger", scale: 1.3, degrees: 0) { try crop.scaled(by: 1.3) },
                // Nor do they survive a change of tone curve, which moves every edge of a bar
                // that is not crisp: thinner or fatter bars, as ink and blur make them.
                Pass(name: "check-darker", scale: 1, degrees: 0) { try crop.gammaAdjusted(2) },
                Pass(name: "check-lighter", scale: 1, degrees: 0) { try crop.gammaAdjusted(0.5) },
            ]
            var rivals: [Candidate] = []
            var confirmed = false
            for view in views where !code.pass.hasSuffix(view.name.replacingOccurrences(of: "check-", with: "")) {
                for other in try run(view, source: crop, sourceScale: scale, offset: (box.x, box.y)) {
                    if other.barcode.digits == code.digits {
                        confirmed = true
                    } else if BarcodeReader.canContradict(other.barcode, code) {
                        rivals.append(other)
                    }
                }
            }
            // Computed only where it decides something.
            let verdict = { candidate.profiles.map { BarcodeReader.profileVerdict(of: code, $0) } ?? .unclear }
            guard let strongest = rivals.max(by: { $0.lines < $1.lines }) else {
                guard !confirmed else { return code }
                // Unconfirmed but uncontradicted by ZBar: the lines it came from are read again
                // by the grid reader. About twenty right codes in the shared corpus are in this
                // state, against one misread, which the grid reader reads right.
                if case .rival(let rival) = verdict() {
                    BarcodeReader.log("weak \(code.digits) replaced by its lines' grid reading \(rival.digits)", since: .now)
                    return rival
                }
                BarcodeReader.log("unconfirmed weak \(code.digits) (\(candidate.lines) lines, pass \(code.pass))", since: .now)
                return code
            }
            if strongest.lines >= 3 * candidate.lines && !confirmed { return strongest.barcode }
            // Contradicted by another view, but its own lines, read again, hold it.
            if case .agrees = verdict() { return code }
            BarcodeReader.log("dropped weak \(code.digits) (rival \(strongest.barcode.digits))", since: .now)
            return confirmed && candidate.lines >= 3 * strongest.lines ? code : nil
        }
    }

    /// A decode with how well it was supported.
    struct Candidate {
        let barcode: Barcode
        /// Scan lines that agreed, corrected for scan density.
        let lines: Int
        /// Agreeing lines per pixel of code length: a clean code is read by most lines that cross
        /// it (about one per pixel of bar height, and bars are rarely shorter than a third of the
        /// code's length); misreads are typically read by a few.
        let coverage: Double
        /// The agreeing scan lines' brightness, kept for weak decodes of 95-module codes.
        var profiles: ScanProfiles? = nil
    }

    /// The scan lines a decode came from, as brightness profiles along the scan direction.
    struct ScanProfiles {
        let rows: [[UInt8]]
        /// Where along the lines the decode's points lay.
        let hint: ClosedRange<Double>

        init(rows: [[UInt8]], hint: ClosedRange<Double>) {
            self.rows = rows
            self.hint = hint
        }

        init(_ gray: GrayBytes, footprint: Footprint, points: [(x: Int, y: Int)]) {
            let across = Array(Set(points.map { footprint.isHorizontal ? $0.y : $0.x })).sorted()
            // At most six lines, spread over the decode; each averaged with its neighbours.
            let picked = across.count <= 6 ? across : (0..<6).map { across[$0 * (across.count - 1) / 5] }
            let (along, span) = footprint.isHorizontal ? (gray.width, gray.height) : (gray.height, gray.width)
            rows = picked.map { line in
                (0..<along).map { i in
                    var sum = 0, n = 0
                    for c in max(0, line - 1)...min(span - 1, line + 1) {
                        sum += Int(footprint.isHorizontal ? gray.pixels[c * gray.width + i] : gray.pixels[i * gray.width + c])
                        n += 1
                    }
                    return UInt8(sum / n)
                }
            }
            hint = Double(footprint.along.lowerBound)...Double(footprint.along.upperBound)
        }
    }

    /// Whether `rival` can be a better reading of the code `code` was read from: a shorter
    /// symbology (UPC-E, EAN-8) can be decoded from a fragment of a longer one, and a decode
    /// spanning much less than the code is a fragment, so neither contradicts it.
    static func canContradict(_ rival: Barcode, _ code: Barcode) -> Bool {
        guard modules(rival.symbology) >= modules(code.symbology) else { return false }
        let rivalLength = max(rival.box.width, rival.box.height), length = max(code.box.width, code.box.height)
        return Double(rivalLength) >= 0.75 * Double(length)
    }

    /// What the grid reader (`ProfileDecoder`) makes of a weak decode's own scan lines.
    enum ProfileVerdict {
        /// It reads ZBar's code on at least two lines and on at least half of them, and no other.
        case agrees
        /// It reads another valid code on at least two lines and at least half of them, each
        /// time fitting the profile clearly better than ZBar's code, and ZBar's code on none.
        case rival(Barcode)
        case unclear
    }

    /// Reads a weak decode's lines again with the grid reader. The grid reader alone misreads a
    /// blurred line now and then (one line in the shared corpus), never the same way on two.
    static func profileVerdict(of code: Barcode, _ profiles: ScanProfiles) -> ProfileVerdict {
        let length = profiles.hint.upperBound - profiles.hint.lowerBound
        // The decode's points may span only half the code (ZBar reads halves separately).
        let modules = (0.8 * length / 95)...(2.6 * length / 95)
        var agreeing = 0
        var votes: [String: Int] = [:]
        for row in profiles.rows {
            let decoder = ProfileDecoder(brightness: row, hint: profiles.hint, modules: modules)
            guard let reading = decoder.read(), let digits = reading.digits else { continue }
            if digits == code.digits {
                agreeing += 1
                continue
            }
            votes[digits, default: 0] += decoder.bestFit(of: digits) > decoder.bestFit(of: code.digits) + 0.05 ? 1 : 0
        }
        let enough = { (count: Int) in count >= 2 && 2 * count >= profiles.rows.count }
        if agreeing > 0 {
            return enough(agreeing) && votes.isEmpty ? .agrees : .unclear
        }
        guard let (digits, count) = votes.max(by: { $0.value < $1.value }), enough(count) else { return .unclear }
        return .rival(Barcode(symbology: digits.hasPrefix("0") ? .upcA : .ean13, digits: digits, addOn: code.addOn, box: code.box,
                              scanLines: count, pass: code.pass + "+grid"))
    }

    /// Below this coverage a decode gets a second look.
    static let weakCoverage = 0.15

    /// The region of a finder hit in the full-resolution image, with a margin for quiet zones and add-ons.
    private static func cropBox(region: BarcodeRegion, finderScale: Double, image: PixImage) -> BoundingBox {
        let b = region.box
        let x0 = Double(b.x) / finderScale, y0 = Double(b.y) / finderScale
        let w = Double(b.width) / finderScale, h = Double(b.height) / finderScale
        let margin = 0.3 * max(w, h)
        return BoundingBox(x: Int(x0 - margin), y: Int(y0 - margin), width: Int(w + 2 * margin), height: Int(h + 2 * margin))
            .clamped(width: image.width, height: image.height)
    }

    /// Crops `box` from the full-resolution image in gray, scaled so a code filling it spans a
    /// size ZBar reads well (a few pixels per module, not so many that scanning is slow).
    private static func prepareCrop(_ image: PixImage, _ box: BoundingBox, base: PixImage, baseScale: Double)
        throws(ShelfScanError) -> (PixImage, Double)
    {
        let started = ContinuousClock.now
        defer { log("crop \(box.width)x\(box.height)", since: started) }
        // A region that is big even in the working copy is cut from it: the full-resolution
        // crop would be shrunk to the same size anyway, after converting megapixels of colour.
        if Double(max(box.width, box.height)) * baseScale >= 640 {
            let scaled = BoundingBox(x: Int(Double(box.x) * baseScale), y: Int(Double(box.y) * baseScale),
                                     width: Int(Double(box.width) * baseScale), height: Int(Double(box.height) * baseScale))
            let crop = try base.cropped(to: scaled).fitting(maxSide: 640)
            return (crop, baseScale * Double(crop.width) / Double(max(1, scaled.width)))
        }
        let colour = try image.cropped(to: box)
        let side = Double(max(colour.width, colour.height))
        if side > 640 {
            let crop = try colour.grayscale(fitting: 640)
            return (crop, Double(crop.width) / Double(colour.width))
        }
        let gray = try colour.grayscale()
        guard side < 500 else { return (gray, 1) }
        let scale = min(3, 500 / side)
        return (try gray.scaled(by: scale), scale)
    }

    static func log(_ what: String, since start: ContinuousClock.Instant) {
        guard trace else { return }
        FileHandle.standardError.write(Data("barcode \(what): \(String(format: "%.1f", start.millisecondsElapsed)) ms\n".utf8))
    }

    /// `SHELFSCAN_TRACE_BARCODES=1` prints each pass and its time on stderr.
    private static let trace = ProcessInfo.processInfo.environment["SHELFSCAN_TRACE_BARCODES"] != nil

    /// One way of looking at an image.
    private struct Pass {
        let name: String
        /// Scale relative to its source image, and rotation (clockwise degrees) applied after it.
        let scale: Double
        let degrees: Double
        let make: () throws -> PixImage?
    }

    /// Remedies tried on a region crop, in order.
    private func regionPasses(_ crop: PixImage, turn: Double) -> [Pass] {
        typealias Make = () throws -> PixImage?
        func pass(_ name: String, scale: Double = 1, _ make: @escaping Make) -> Pass {
            Pass(name: "region-" + name, scale: scale, degrees: turn) {
                guard let pix = try make() else { return nil }
                return turn == 0 ? pix : try pix.rotated(degrees: turn)
            }
        }
        // The whole image already failed as it is: restore edges first. Binarising is left out
        // on purpose: on blurred bars the threshold shifts every bar width the same way, which
        // is exactly the error that turns one valid code into another.
        var list = [pass("contrast") { try crop.contrastSharpened() }]
        list.append(pass("direct") { crop })
        return list
    }

    /// Remedies tried on the whole (small) image when no region gave a code. Rotations are left
    /// to the regions, which know the angle.
    private func wholeImagePasses(_ base: PixImage) -> [Pass] {
        let side = max(base.width, base.height)
        typealias Make = () throws -> PixImage?
        func pass(_ name: String, scale: Double = 1, degrees: Double = 0, _ make: @escaping Make) -> Pass {
            Pass(name: name, scale: scale, degrees: degrees, make: make)
        }
        // Dim, low-contrast and slightly soft photos: stretch the range, steepen mid-tones, sharpen.
        var list = [pass("contrast") { try base.contrastSharpened() }]
        // Glare and shadows: binarise against the local mean instead of one global threshold.
        list.append(pass("binarize") { try base.binarized(halfWindow: max(8, side / 40)) })
        // Blur spreads edges over several pixels; shrinking gathers them back.
        list.append(pass("downscale", scale: 0.5) { try base.scaled(by: 0.5) })
        // Small images: modules of 1-2 px; interpolation gives ZBar's edge finder more to work with.
        if side <= 800 { list.append(pass("upscale2", scale: 2) { try base.scaled(by: 2) }) }
        // Strong uneven light: every region stretched to full range.
        list.append(pass("normalize") { try base.locallyNormalized() })
        return list
    }

    /// One barcode per code: when several passes found the same code (exhaustive mode), the
    /// reading most scan lines agreed on.
    private static func unique(_ codes: [Barcode]) -> [Barcode] {
        var best: [String: Barcode] = [:]
        var order: [String] = []
        for code in codes {
            if let seen = best[code.digits] {
                if code.scanLines > seen.scanLines { best[code.digits] = code }
            } else {
                best[code.digits] = code
                order.append(code.digits)
            }
        }
        return order.map { best[$0]! }
    }

    /// Turns raw ZBar symbols into verified barcodes, with add-ons attached and positions mapped back.
    fileprivate func accept(_ symbols: [RawSymbol], gray: GrayBytes, mapping: PassMapping, limit: (Int, Int), pass: String,
                            density: Int) -> [Candidate] {
        let addOns = symbols.filter { ($0.type == ZBAR_EAN2 || $0.type == ZBAR_EAN5) && $0.addOn == nil }
        let mains: [(symbol: RawSymbol, symbology: Symbology, digits: String)] = symbols.compactMap { symbol in
            guard let symbology = Symbology(zbar: symbol.type), symbol.quality >= options.minScanLines,
                  let digits = GTIN.canonical(symbol.data, symbology: symbology),
                  Self.isPlausibleLength(symbol, symbology) else { return nil }
            return (symbol, symbology, digits)
        }
        var result: [Candidate] = []
        for main in mains {
            // Two different codes in one place cannot both be right (see `rivalry`).
            let beaten = mains.contains { other in
                guard other.digits != main.digits else { return false }
                let r = Self.rivalry(other.symbol, main.symbol)
                return r == .firstWins || r == .bothDoubtful
            }
            if beaten || result.contains(where: { $0.barcode.digits == main.digits }) { continue }
            let box = BoundingBox(enclosing: main.symbol.points.map(mapping.toOriginal), limit: limit)
            var addOn = main.symbol.addOn
            if addOn == nil {
                // A separate add-on belongs to the main code just right of it on the same line.
                addOn = addOns.first { mapping.isAddOn($0, of: main.symbol) }?.data
            }
            let lines = main.symbol.quality * density
            let footprint = Footprint(main.symbol.points)
            let coverage = Double(lines) / Double(max(1, footprint.length))
            let profiles = coverage < Self.weakCoverage && Self.modules(main.symbology) == 95
                ? ScanProfiles(gray, footprint: footprint, points: main.symbol.points) : nil
            result.append(Candidate(
                barcode: Barcode(symbology: main.symbology, digits: main.digits, addOn: addOn, box: box, scanLines: lines, pass: pass),
                lines: lines, coverage: coverage, profiles: profiles))
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
    static func modules(_ symbology: Symbology) -> Int {
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

    /// Where a decode's scan lines lie: its extent along the scan and across it.
    struct Footprint {
        let along: ClosedRange<Int>
        let across: ClosedRange<Int>
        /// True when the scan lines ran horizontally.
        let isHorizontal: Bool
        var length: Int { along.upperBound - along.lowerBound }

        init(_ points: [(x: Int, y: Int)]) {
            let xs = points.map(\.x), ys = points.map(\.y)
            let x = (xs.min() ?? 0)...(xs.max() ?? 0), y = (ys.min() ?? 0)...(ys.max() ?? 0)
            // The scan direction is the one the points spread along.
            isHorizontal = x.upperBound - x.lowerBound >= y.upperBound - y.lowerBound
            (along, across) = isHorizontal ? (x, y) : (y, x)
        }
    }

    /// How two decodes of different codes relate.
    private enum Rivalry { case unrelated, firstWins, secondWins, bothDoubtful }

    /// Two different decodes of one printed code cannot both be right. ZBar pieces some misreads
    /// together from a few scan lines, often over only half of the real code (its halves are
    /// decoded separately). Decodes are of one code when they cover the same stretch along the
    /// scan and lie close across it; two full-length codes well apart are a genuine stack (the
    /// price code under a Japanese ISBN).
    private static func rivalry(_ a: RawSymbol, _ b: RawSymbol) -> Rivalry {
        let fa = Footprint(a.points), fb = Footprint(b.points)
        let shared = min(fa.along.upperBound, fb.along.upperBound) - max(fa.along.lowerBound, fb.along.lowerBound)
        let shorter = min(fa.length, fb.length), longer = max(fa.length, fb.length)
        guard shared * 2 >= shorter else { return .unrelated }
        let gap = max(0, max(fa.across.lowerBound, fb.across.lowerBound) - min(fa.across.upperBound, fb.across.upperBound))
        guard gap <= longer else { return .unrelated }
        let similarLength = Double(shorter) >= 0.75 * Double(longer)
        // A short symbology read inside a long one is a fragment of it.
        if let sa = Symbology(zbar: a.type), let sb = Symbology(zbar: b.type), modules(sa) != modules(sb) {
            return modules(sa) > modules(sb) ? .firstWins : .secondWins
        }
        if similarLength && Double(gap) > 0.25 * Double(longer) { return .unrelated }
        // A decode spanning the whole code beats one spanning part of it.
        if !similarLength { return fa.length > fb.length ? .firstWins : .secondWins }
        // Otherwise only a clear majority of scan lines decides.
        if a.quality >= 3 * b.quality { return .firstWins }
        if b.quality >= 3 * a.quality { return .secondWins }
        return .bothDoubtful
    }
}

/// Maps points found in a pass image back to the original image.
private struct PassMapping {
    let scale: Double
    let degrees: Double
    let passSize: (Int, Int)
    /// Size of the source after scaling, before rotation.
    let sourceSize: (Double, Double)
    /// Where the source's top-left corner lies in the original image.
    let offset: (Int, Int)

    func toOriginal(_ p: (x: Int, y: Int)) -> (x: Double, y: Double) {
        var x = Double(p.x), y = Double(p.y)
        if degrees != 0 {
            // Undo a clockwise rotation about the centre of the (grown) rotated canvas.
            let t = degrees * Double.pi / 180
            let dx = x - Double(passSize.0) / 2, dy = y - Double(passSize.1) / 2
            x = sourceSize.0 / 2 + dx * cos(t) + dy * sin(t)
            y = sourceSize.1 / 2 - dx * sin(t) + dy * cos(t)
        }
        return (x / scale + Double(offset.0), y / scale + Double(offset.1))
    }

    /// An add-on continues its main code along the scan direction, past either end (an image
    /// turned 180 degrees puts it on the left), within about half a code length, on the same band.
    func isAddOn(_ addOn: RawSymbol, of main: RawSymbol) -> Bool {
        guard !addOn.points.isEmpty, !main.points.isEmpty else { return false }
        let m = BarcodeReader.Footprint(main.points)
        let horizontal = m.isHorizontal
        let xs = addOn.points.map(\.x), ys = addOn.points.map(\.y)
        let along = Double((horizontal ? xs.min()! + xs.max()! : ys.min()! + ys.max()!)) / 2
        let across = Double((horizontal ? ys.min()! + ys.max()! : xs.min()! + xs.max()!)) / 2
        let length = Double(max(m.length, 8))
        let beyond = along > Double(m.along.upperBound) ? along - Double(m.along.upperBound)
            : (along < Double(m.along.lowerBound) ? Double(m.along.lowerBound) - along : 0)
        let acrossCentre = Double(m.across.lowerBound + m.across.upperBound) / 2
        let acrossReach = Double(m.across.upperBound - m.across.lowerBound) / 2 + length / 2
        return beyond > 0 && beyond <= 0.75 * length && abs(across - acrossCentre) <= acrossReach
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
