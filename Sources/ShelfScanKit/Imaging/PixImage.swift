import CLeptonica
import CRotateAM
import Foundation

/// An owned Leptonica image. Every operation returns a new image; none mutates `self`.
///
/// `@unchecked Sendable`: the pixels are never modified after construction, and every Leptonica
/// call that takes the `Pix` runs under `access`. The lock matters because several of those calls
/// take a clone internally (`pixScaleGeneral`, `pixGetRankValue`, Tesseract's `SetImage`), and
/// Leptonica 1.82's reference count is a plain integer: two threads cloning and destroying the same
/// image at once can lose a count, and the pixels are then freed twice. `ShelfScanner` reads the
/// barcodes and finds the spines on one image at the same time; both scale it first.
public final class PixImage: @unchecked Sendable {
    private let pix: UnsafeMutablePointer<Pix>
    private let access = NSLock()

    /// Values worked out from the pixels alone (`remembered`), under `keptLock`.
    private var kept: [String: Any] = [:]
    private let keptLock = NSLock()

    /// Takes ownership of `pix`; it is freed with `pixDestroy` when the object goes away.
    init(owning pix: UnsafeMutablePointer<Pix>) {
        self.pix = pix
    }

    /// `make()` the first time `key` is asked for of this image, the value kept with it after:
    /// the pixels never change, so neither does what is worked out from them alone (the passes
    /// after the first reading measure the letters of one kept crop again and again).
    func remembered<T>(_ key: String, _ make: () throws(ShelfScanError) -> T) throws(ShelfScanError) -> T {
        keptLock.lock()
        if let known = kept[key] as? RememberedValue<T> { keptLock.unlock(); return known.value }
        keptLock.unlock()
        let value = try make()
        keptLock.lock()
        kept[key] = RememberedValue(value)
        keptLock.unlock()
        return value
    }

    /// Runs `body` with the `Pix`, no other thread using it meanwhile. `body` must not keep a
    /// clone of it beyond its return, nor call another method of this image (the lock is not
    /// recursive).
    func withPix<T, E: Error>(_ body: (UnsafeMutablePointer<Pix>) throws(E) -> T) throws(E) -> T {
        access.lock()
        defer { access.unlock() }
        return try body(pix)
    }

    /// Wraps a Leptonica result, turning a null return into a typed error.
    static func wrap(_ pix: UnsafeMutablePointer<Pix>?, _ what: @autoclosure () -> String) throws(ShelfScanError) -> PixImage {
        guard let pix else { throw ShelfScanError(.corruptImage, "image operation failed: \(what())") }
        return PixImage(owning: pix)
    }

    /// A new image made by one Leptonica call on this one, under the lock.
    private func derived(_ what: @autoclosure () -> String,
                         _ make: (UnsafeMutablePointer<Pix>) -> UnsafeMutablePointer<Pix>?) throws(ShelfScanError) -> PixImage {
        try PixImage.wrap(withPix(make), what())
    }

    deinit {
        var p: UnsafeMutablePointer<Pix>? = pix
        pixDestroy(&p)
    }

    public var width: Int { Int(pixGetWidth(pix)) }
    public var height: Int { Int(pixGetHeight(pix)) }
    /// Bits per pixel: 1, 2, 4, 8, 16 or 32 (RGB).
    public var depth: Int { Int(pixGetDepth(pix)) }

    /// An 8-bit grayscale version (luminance for colour images, colormaps removed).
    public func grayscale() throws(ShelfScanError) -> PixImage {
        if depth == 8 && pixGetColormap(pix) == nil { return try copy() }
        if depth == 32 {
            if Self.ownGray, let made = withPix({ shelfscan_rgb_luminance($0) }) { return PixImage(owning: made) }
            return try derived("grayscale") { pixConvertRGBToLuminance($0) }
        }
        return try derived("grayscale") { pixConvertTo8($0, 0) }
    }

    /// `cropped(to: box).grayscale()` (or `.darkestChannel()`), cut from the whole image's gray,
    /// worked out once per image: the two are the same pixels (the conversion is pixel by pixel,
    /// the crop copies them), and the passes after the first reading cut and converted each
    /// spine of a colour photo again and again (3% of a 12 MP shelf's CPU converting, 1.4%
    /// copying four bytes a pixel). `SHELFSCAN_WHOLE_GRAY=off`: each crop converted on its own.
    public func grayCrop(_ box: BoundingBox, darkest: Bool = false) throws(ShelfScanError) -> PixImage {
        guard depth == 32, Self.wholeGray else {
            let crop = try cropped(to: box)
            return try darkest ? crop.darkestChannel() : crop.grayscale()
        }
        return try wholeGray(darkest: darkest).cropped(to: box)
    }

    static let wholeGray = ProcessInfo.processInfo.environment["SHELFSCAN_WHOLE_GRAY"] != "off"

    /// The whole image in gray (luminance or darkest channel), made by the first caller while
    /// the others wait (both workers start on one photo together).
    private func wholeGray(darkest: Bool) throws(ShelfScanError) -> PixImage {
        wholeGrayLock.lock()
        defer { wholeGrayLock.unlock() }
        if let known = darkest ? wholeDarkest : wholeLuminance { return known }
        let made = try darkest ? darkestChannel() : grayscale()
        if darkest { wholeDarkest = made } else { wholeLuminance = made }
        return made
    }

    private var wholeLuminance: PixImage?
    private var wholeDarkest: PixImage?
    private let wholeGrayLock = NSLock()

    /// An 8-bit grayscale version from each pixel's darkest channel (colour images; others as
    /// `grayscale()`): lettering in a colour on a pale ground (orange on cream, yellow on white),
    /// whose luminance is near the ground's, comes out dark on light.
    public func darkestChannel() throws(ShelfScanError) -> PixImage {
        if depth == 32 {
            if Self.ownGray, let made = withPix({ shelfscan_rgb_darkest($0) }) { return PixImage(owning: made) }
            return try derived("darkest channel") { pixConvertRGBToGrayMinMax($0, Int32(L_CHOOSE_MIN)) }
        }
        return try grayscale()
    }

    /// Colour to gray (`grayscale`, `darkestChannel`), quarter turns of gray (`rotated(quarterTurns:)`)
    /// and crops (`cropped(to:)`) by the executable (`CRotateAM`'s gray.c and orth.c: Leptonica's
    /// bytes, eight pixels, a 4 x 4 block or a row at a time) unless `SHELFSCAN_OWN_GRAY=off`.
    static let ownGray = ProcessInfo.processInfo.environment["SHELFSCAN_OWN_GRAY"] != "off"

    /// An 8-bit grayscale version along the colours' main axis of hue, dark on light, nil for
    /// images whose hues spread less than `minimumSpread` (gray, black or white crops; images
    /// not in colour): lettering set apart from its ground by colour, not brightness (red on
    /// dark green, dark red on red), which luminance and every single channel turn into one
    /// gray. Each pixel's chroma (red - green, (red + green) / 2 - blue) is projected on the
    /// main axis of the image's chromas; the 1st to 99th percentiles are stretched over the
    /// whole range, the ground (the median) light.
    public func chromaAxis(minimumSpread: Double) throws(ShelfScanError) -> PixImage? {
        guard depth == 32 else { return nil }
        let (w, h) = (width, height)
        guard w > 0, h > 0 else { return nil }
        // Each pixel's two chromas, summed as they are made (in the same order as summing the
        // arrays after: the same float sums).
        let (a, b, sumA, sumB): ([Float], [Float], Float, Float) = withPix { pix in
            let wpl = Int(pixGetWpl(pix))
            guard let data = pixGetData(pix) else { return ([], [], 0, 0) }
            var sumA: Float = 0, sumB: Float = 0
            var b: [Float] = []
            let a = [Float](unsafeUninitializedCapacity: w * h) { aBuffer, aCount in
                b = [Float](unsafeUninitializedCapacity: w * h) { bBuffer, bCount in
                    for y in 0..<h {
                        let row = data + y * wpl
                        for x in 0..<w {
                            let v = row[x]
                            let r = Float((v >> 24) & 0xff), g = Float((v >> 16) & 0xff), bl = Float((v >> 8) & 0xff)
                            let chromaA = r - g, chromaB = (r + g) / 2 - bl
                            aBuffer[y * w + x] = chromaA
                            bBuffer[y * w + x] = chromaB
                            sumA += chromaA
                            sumB += chromaB
                        }
                    }
                    bCount = w * h
                }
                aCount = w * h
            }
            return (a, b, sumA, sumB)
        }
        guard !a.isEmpty else { return nil }
        // The 2x2 covariance's main eigenvector.
        let n = Float(a.count)
        let ma = sumA / n, mb = sumB / n
        var saa: Float = 0, sbb: Float = 0, sab: Float = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for i in 0..<a.count {
                    let da = a[i] - ma, db = b[i] - mb
                    saa += da * da; sbb += db * db; sab += da * db
                }
            }
        }
        let theta = 0.5 * atan2(2 * sab, saa - sbb)
        let (ca, cb) = (cos(theta), sin(theta))
        // Each pixel on that axis, and the histogram of whole units (a projection lies within
        // +-361) for the percentiles, in one pass.
        var histogram = [Int](repeating: 0, count: 1024)
        let projected = [Float](unsafeUninitializedCapacity: a.count) { buffer, count in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    histogram.withUnsafeMutableBufferPointer { histogram in
                        for i in 0..<a.count {
                            let v = a[i] * ca + b[i] * cb
                            buffer[i] = v
                            histogram[min(1023, max(0, Int(v.rounded()) + 512))] += 1
                        }
                    }
                }
            }
            count = a.count
        }
        func percentile(_ q: Double) -> Float {
            let wanted = Int(Double(projected.count - 1) * q)
            var seen = 0
            for (i, c) in histogram.enumerated() {
                seen += c
                if seen > wanted { return Float(i - 512) }
            }
            return 511
        }
        let lo = percentile(0.01), hi = percentile(0.99)
        guard hi > lo, Double(hi - lo) >= minimumSpread else { return nil }
        // The ground light: the side of the range the median lies on.
        let flip = percentile(0.5) < (lo + hi) / 2
        let scale = 255 / (hi - lo)
        let pixels = [UInt8](unsafeUninitializedCapacity: projected.count) { buffer, count in
            projected.withUnsafeBufferPointer { projected in
                for i in 0..<projected.count {
                    let v = min(max((projected[i] - lo) * scale, 0), 255)
                    buffer[i] = UInt8((flip ? 255 - v : v).rounded())
                }
            }
            count = projected.count
        }
        return try PixImage(gray: GrayBytes(width: w, height: h, pixels: pixels))
    }

    /// The part of the image inside `box` (clamped to the image).
    public func cropped(to box: BoundingBox) throws(ShelfScanError) -> PixImage {
        let x = max(0, box.x), y = max(0, box.y)
        let w = min(width - x, box.width - (x - box.x)), h = min(height - y, box.height - (y - box.y))
        guard w > 0, h > 0 else { throw ShelfScanError(.corruptImage, "crop outside the image") }
        if Self.ownGray, let made = withPix({ shelfscan_crop($0, Int32(x), Int32(y), Int32(w), Int32(h)) }) { return PixImage(owning: made) }
        guard let b = boxCreate(Int32(x), Int32(y), Int32(w), Int32(h)) else {
            throw ShelfScanError(.corruptImage, "crop outside the image")
        }
        var owned: UnsafeMutablePointer<Box>? = b
        defer { boxDestroy(&owned) }
        return try derived("crop") { pixClipRectangle($0, b, nil) }
    }

    /// An 8-bit gray version no larger than `maxSide` on its long side, shrinking colour images
    /// before converting them (cheaper than converting 12 megapixels).
    public func grayscale(fitting maxSide: Int) throws(ShelfScanError) -> PixImage {
        let side = max(width, height)
        if side <= maxSide { return try grayscale() }
        // Colour photos several times too big: subsample to the green channel first (green
        // carries most of the luminance), which costs a fraction of averaging 12 megapixels.
        let subsample = side / maxSide
        if depth == 32 && subsample >= 2 {
            let small = try derived("grayscale") { pixScaleRGBToGrayFast($0, Int32(subsample), Int32(COLOR_GREEN)) }
            return try small.fitting(maxSide: maxSide)
        }
        let factor = Double(maxSide) / Double(side)
        if depth == 32 || depth == 8, pixGetColormap(pix) == nil {
            return try scaled(by: factor).grayscale()
        }
        return try grayscale().scaled(by: factor)
    }

    /// A tag of text drawn on a picture (`annotated`): black letters on a patch of `rgb`, at
    /// `anchor`'s top left, or along it, reading the way `turns` says (1: top to bottom, 3:
    /// bottom to top; anything else: across).
    public struct Label {
        public var text: String
        public var anchor: BoundingBox
        public var turns: Int
        public var rgb: (UInt8, UInt8, UInt8)

        public init(text: String, anchor: BoundingBox, turns: Int = 0, rgb: (UInt8, UInt8, UInt8)) {
            self.text = text
            self.anchor = anchor
            self.turns = turns
            self.rgb = rgb
        }
    }

    /// A colour copy with rectangles drawn on it (line width scaled to the image; `thin` boxes
    /// at half of it), then `labels`.
    public func annotated(_ boxes: [(box: BoundingBox, rgb: (UInt8, UInt8, UInt8))], thin: [(box: BoundingBox, rgb: (UInt8, UInt8, UInt8))] = [],
                          outlines: [(points: [Point], rgb: (UInt8, UInt8, UInt8))] = [],
                          labels: [Label] = []) throws(ShelfScanError) -> PixImage {
        let colour = try derived("annotation") { pixConvertTo32($0) }
        let line = max(2, max(width, height) / 400)
        // Closed polygons (leaning spines) first, under the boxes of the lines read on them.
        for (points, c) in outlines where points.count >= 2 {
            guard let pta = ptaCreate(Int32(points.count)) else { continue }
            var owned: UnsafeMutablePointer<Pta>? = pta
            for p in points { ptaAddPt(pta, Float(p.x), Float(p.y)) }
            pixRenderPolylineArb(colour.pix, pta, Int32(line), c.0, c.1, c.2, 1)
            ptaDestroy(&owned)
        }
        for (list, lineWidth) in [(thin, max(1, line / 2)), (boxes, line)] {
            for (b, c) in list {
                guard let box = boxCreate(Int32(b.x), Int32(b.y), Int32(max(1, b.width)), Int32(max(1, b.height))) else { continue }
                var owned: UnsafeMutablePointer<Box>? = box
                pixRenderBoxArb(colour.pix, box, Int32(lineWidth), c.0, c.1, c.2)
                boxDestroy(&owned)
            }
        }
        guard !labels.isEmpty else { return colour }
        // Leptonica's own bitmap font (no font file), its letters about an 80th of the picture's
        // long side tall: 17 px (size 4, the least) up to 84 (size 20).
        let size = Int32(min(20, max(4, (max(width, height) / 80) * 10 / 42 / 2 * 2)))
        guard let font = bmfCreate(nil, size) else { return colour }
        defer { var owned: UnsafeMutablePointer<L_BMF>? = font; bmfDestroy(&owned) }
        let bmf = font
        let lineHeight = Int(bmf.pointee.lineheight), baseline = Int(bmf.pointee.baseline2)
        for label in labels {
            let text = Self.printable(label.text)
            var textWidth: Int32 = 0
            guard !text.isEmpty, bmfGetStringWidth(bmf, text, &textWidth) == 0 else { continue }
            let pad = max(2, lineHeight / 6)
            guard let tag = pixCreate(textWidth + Int32(2 * pad), Int32(lineHeight + pad), 32) else { continue }
            defer { var owned: UnsafeMutablePointer<Pix>? = tag; pixDestroy(&owned) }
            pixSetAllArbitrary(tag, UInt32(label.rgb.0) << 24 | UInt32(label.rgb.1) << 16 | UInt32(label.rgb.2) << 8)
            var drawn: Int32 = 0, overflow: Int32 = 0
            // Black as 0x01010100: 0 draws mid-gray in 32 bpp (Leptonica 1.82).
            pixSetTextline(tag, bmf, text, 0x0101_0100, Int32(pad), Int32(pad / 2 + baseline), &drawn, &overflow)
            guard let turned = label.turns == 1 || label.turns == 3 ? pixRotate90(tag, label.turns == 1 ? 1 : -1) : pixClone(tag) else { continue }
            defer { var owned: UnsafeMutablePointer<Pix>? = turned; pixDestroy(&owned) }
            let w = Int(pixGetWidth(turned)), h = Int(pixGetHeight(turned))
            let a = label.anchor
            // Along a standing line: over its middle, from its top; across: just above it, or
            // inside its top where the picture ends.
            var x = label.turns == 1 || label.turns == 3 ? a.x + a.width / 2 - w / 2 : a.x
            var y = label.turns == 1 || label.turns == 3 ? a.y : (a.y >= h ? a.y - h : a.y)
            x = min(max(0, x), max(0, width - w))
            y = min(max(0, y), max(0, height - h))
            pixRasterop(colour.pix, Int32(x), Int32(y), Int32(w), Int32(h), PIX_SRC, turned, 0, 0)
        }
        return colour
    }

    /// `text` in the characters Leptonica's bitmap font has (printable ASCII): accents dropped,
    /// typographic quotes and dashes made plain, anything else a question mark.
    static func printable(_ text: String) -> String {
        let plain = text.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        return String(String.UnicodeScalarView(plain.unicodeScalars.map { c -> Unicode.Scalar in
            switch c {
            case "\u{2018}", "\u{2019}": "'"
            case "\u{201C}", "\u{201D}": "\""
            case "\u{2013}", "\u{2014}": "-"
            case "\u{20}"..."\u{7E}": c
            default: "?"
            }
        }))
    }

    /// Writes the image as a PNG file.
    public func writePNG(to path: String) throws(ShelfScanError) {
        guard withPix({ pixWrite(path, $0, Int32(IFF_PNG)) }) == 0 else {
            throw ShelfScanError(.unreadableFile, "\(path): cannot write the picture; check the folder")
        }
    }

    /// Writes the image in `format` (JPEG at quality 90; WebP where Leptonica was built with it).
    public func write(to path: String, format: ImageFormat) throws(ShelfScanError) {
        let code: Int32
        switch format {
        case .jpeg: code = Int32(IFF_JFIF_JPEG)
        case .png: code = Int32(IFF_PNG)
        case .tiff: code = Int32(IFF_TIFF_LZW)
        case .webp: code = Int32(IFF_WEBP)
        case .pnm: code = Int32(IFF_PNM)
        default: code = Int32(IFF_PNG)
        }
        guard withPix({ pixWrite(path, $0, code) }) == 0 else {
            throw ShelfScanError(.unreadableFile, "\(path): cannot write the picture as \(format); check the folder")
        }
    }

    /// A deep copy.
    public func copy() throws(ShelfScanError) -> PixImage {
        try derived("copy") { pixCopy(nil, $0) }
    }

    /// Scaled by `factor` (area-averaged when shrinking, interpolated when enlarging).
    public func scaled(by factor: Double) throws(ShelfScanError) -> PixImage {
        let f = Float(factor)
        if factor < 0.7 && depth >= 8 && pixGetColormap(pix) == nil {
            return try derived("scale") { shelfscan_scale_area_map($0, f, f) }
        }
        return try derived("scale") { shelfscan_scale($0, f, f) }
    }

    /// Scaled down so that neither side exceeds `maxSide` (returns a copy when it already fits).
    public func fitting(maxSide: Int) throws(ShelfScanError) -> PixImage {
        let side = max(width, height)
        guard side > maxSide else { return try copy() }
        return try scaled(by: Double(maxSide) / Double(side))
    }

    /// Rotated clockwise by a multiple of 90 degrees.
    public func rotated(quarterTurns: Int) throws(ShelfScanError) -> PixImage {
        let q = ((quarterTurns % 4) + 4) % 4
        if q == 0 { return try copy() }
        // A quarter turn of gray by the executable (Leptonica's bytes, 4 x 4 pixels at a time).
        if q != 2, Self.ownGray, let made = withPix({ shelfscan_rotate90($0, q == 1 ? 1 : -1) }) { return PixImage(owning: made) }
        return try derived("rotate") { pixRotateOrth($0, Int32(q)) }
    }

    /// Who turns 8-bit gray pictures by area mapping (Leptonica's `pixRotateAMGray`, which
    /// `rotated(degrees:)` reaches): the executable (`.own`, `CRotateAM`: the same pixels, 16 at a
    /// time), or Leptonica (`.library`: no AVX2, another Leptonica than Debian 12's 1.82.0, a
    /// check that disagreed, or `SHELFSCAN_ROTATE_AM=off`); `.undecided` before the first turn.
    public static var areaMapRotation: TesseractEngine.OwnOrLibrary {
        TesseractEngine.OwnOrLibrary(state: shelfscan_rotate_am_state())
    }

    /// Makes the executable turn gray pictures (`own`, where its checks passed) or Leptonica
    /// (for tests: both give the same pixels).
    @discardableResult
    public static func useOwnAreaMapRotation(_ own: Bool) -> TesseractEngine.OwnOrLibrary {
        _ = shelfscan_rotate_am_use(own ? 1 : 0)
        return areaMapRotation
    }

    /// The rotation's self-check so far: turns computed both ways, and how many differed.
    public static var areaMapRotationChecks: (rotations: Int, differed: Int) {
        var rotations = 0, differed = 0
        shelfscan_rotate_am_checked(&rotations, &differed)
        return (rotations, differed)
    }

    /// How many of `trials` random gray pictures the executable and Leptonica turn differently
    /// (nil where the executable's cannot run here).
    public static func areaMapRotationDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_rotate_am_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// Who scales 8-bit gray pictures (`scaled(by:)`: by area mapping under 0.7, by interpolation
    /// from there): the executable (`.own`, `CRotateAM`'s `shelfscan_scale_area_map` and
    /// `shelfscan_scale`: the same pixels, rows first) or Leptonica (`.library`: a self-check
    /// that disagreed, or `SHELFSCAN_SCALE_AREA=off`).
    public static var areaMapScaling: TesseractEngine.OwnOrLibrary {
        TesseractEngine.OwnOrLibrary(state: shelfscan_scale_area_state())
    }

    /// Makes the executable shrink gray pictures (`own`, unless its self-check disagreed) or
    /// Leptonica (for tests: both give the same pixels).
    @discardableResult
    public static func useOwnAreaMapScaling(_ own: Bool) -> TesseractEngine.OwnOrLibrary {
        _ = shelfscan_scale_area_use(own ? 1 : 0)
        return areaMapScaling
    }

    /// The scaling's self-check so far: scalings computed both ways, and how many differed.
    public static var areaMapScalingChecks: (scalings: Int, differed: Int) {
        var scalings = 0, differed = 0
        shelfscan_scale_area_checked(&scalings, &differed)
        return (scalings, differed)
    }

    /// How many of `trials` random gray pictures the executable and Leptonica shrink differently.
    public static func areaMapScalingDisagreements(trials: Int, seed: UInt32) -> Int {
        shelfscan_scale_area_compare(Int32(trials), seed)
    }

    /// Who paints 8-bit pictures through 1-bit masks (Leptonica's `pixSetMasked`, which
    /// Tesseract's stroke widths reach for every blob): the executable (`.own`, `CRotateAM`'s
    /// masked.c: the same bytes, a mask word at a time) or Leptonica (`.library`: another
    /// Leptonica than 1.82.0, a probe that disagreed, `SHELFSCAN_SET_MASKED=off`).
    public static var maskedSetting: TesseractEngine.OwnOrLibrary {
        TesseractEngine.OwnOrLibrary(state: shelfscan_set_masked_state())
    }

    @discardableResult
    public static func useOwnMaskedSetting(_ own: Bool) -> TesseractEngine.OwnOrLibrary {
        _ = shelfscan_set_masked_use(own ? 1 : 0)
        return maskedSetting
    }

    /// How many of `trials` random masks and pictures the executable and Leptonica paint
    /// differently (nil with another Leptonica than 1.82.0).
    public static func maskedSettingDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_set_masked_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// Who computes Tesseract's local (Sauvola) threshold of each picture read so (Leptonica's
    /// `pixSauvolaBinarizeTiled`): the executable (`.own`, `CRotateAM`'s sauvola.c: the same
    /// thresholds and bits, eight pixels at a time, the whole picture at once) or Leptonica
    /// (`.library`: no AVX2, another Leptonica than 1.82.0, a probe or self-check that
    /// disagreed, `SHELFSCAN_TESSERACT_SAUVOLA=library`).
    public static var tesseractSauvola: TesseractEngine.OwnOrLibrary {
        TesseractEngine.OwnOrLibrary(state: shelfscan_tesseract_sauvola_state())
    }

    /// How many of `trials` random pictures, windows, factors and tilings the executable and
    /// Leptonica threshold differently (nil where the executable's cannot run).
    public static func tesseractSauvolaDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_tesseract_sauvola_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// The self-checks on Tesseract's own pictures so far (the first 8 computed both ways), and
    /// how many differed.
    public static var tesseractSauvolaChecks: (checked: Int, differed: Int) {
        var checked = 0, differed = 0
        shelfscan_tesseract_sauvola_checked(&checked, &differed)
        return (checked, differed)
    }

    /// Rotated by an arbitrary angle in degrees (clockwise), bringing in white at the corners
    /// and growing the canvas so nothing is cut off.
    public func rotated(degrees: Double) throws(ShelfScanError) -> PixImage {
        let radians = Float(degrees * Double.pi / 180)
        return try derived("rotate") { shelfscan_rotate_white($0, radians) }
    }

    /// With a border of `pixels` on every side, white (or `gray` for 8-bit images).
    /// Tesseract reads text touching the edge of its image poorly.
    public func padded(by pixels: Int, gray: UInt32 = 255) throws(ShelfScanError) -> PixImage {
        let value: UInt32 = depth == 32 ? 0xffff_ff00 : (depth == 1 ? 0 : gray)
        return try derived("border") { pixAddBorder($0, Int32(pixels), value) }
    }

    /// Mirrored left-right.
    public func flippedHorizontally() throws(ShelfScanError) -> PixImage {
        try derived("flip") { pixFlipLR(nil, $0) }
    }

    /// Mirrored top-bottom.
    public func flippedVertically() throws(ShelfScanError) -> PixImage {
        try derived("flip") { pixFlipTB(nil, $0) }
    }

    /// A 3x3 (or larger) median filter over an 8-bit image: removes noise while keeping bar edges.
    public func medianFiltered(size: Int = 3) throws(ShelfScanError) -> PixImage {
        try derived("median filter") { pixMedianFilter($0, Int32(size), Int32(size)) }
    }

    /// Contrast stretched so the darkest pixel becomes black and the brightest white, then a
    /// further S-curve of `factor` (0.5 is strong). 8-bit input.
    public func contrastEnhanced(factor: Double = 0.5) throws(ShelfScanError) -> PixImage {
        let stretched = try derived("contrast") { pixMaxDynamicRange($0, Int32(L_LINEAR_SCALE)) }
        return try stretched.derived("contrast") { pixContrastTRC(nil, $0, Float(factor)) }
    }

    /// `contrastEnhanced(factor:)` then `sharpened(halfWidth: 2, fraction:)` in one go of the
    /// executable's own (`shelfscan_contrast_sharpen`: Leptonica's pixels exactly, without the
    /// three images between; the barcode reader's contrast remedy, 30-45 ms through Leptonica
    /// on a cover's large false barcode region), Leptonica's own where that does not apply.
    public func contrastSharpened(factor: Double = 0.5, fraction: Double = 0.6) throws(ShelfScanError) -> PixImage {
        if Self.ownContrastSharpen, let made = ownContrastSharpened(factor: factor, fraction: fraction) { return made }
        return try contrastEnhanced(factor: factor).librarySharpened(halfWidth: 2, fraction: fraction)
    }

    /// The executable's `contrastSharpened` (`factor` 0: `sharpened` alone), nil where it does
    /// not apply (not 8-bit gray, under 5x5, all black with a contrast).
    func ownContrastSharpened(factor: Double = 0.5, fraction: Double = 0.6) -> PixImage? {
        withPix { shelfscan_contrast_sharpen($0, Float(factor), Float(fraction)) }.map { PixImage(owning: $0) }
    }

    /// `SHELFSCAN_CONTRAST_SHARPEN=library`: `contrastSharpened` through Leptonica's three calls,
    /// `sharpened` through its one (for measuring).
    static let ownContrastSharpen = ProcessInfo.processInfo.environment["SHELFSCAN_CONTRAST_SHARPEN"] != "library"

    /// A tone curve, 8-bit: `gamma` above 1 darkens the mid-tones (thin, faint bars grow), below 1
    /// lightens them (bars spread by ink or blur shrink).
    public func gammaAdjusted(_ gamma: Double) throws(ShelfScanError) -> PixImage {
        // Leptonica's gamma is the reciprocal: its values above 1 lighten.
        try derived("tone curve") { pixGammaTRC(nil, $0, Float(1 / gamma), 0, 255) }
    }

    /// Grays from `black` to `white` stretched over the whole range (8-bit), darker clipped to
    /// black and lighter to white.
    public func stretched(black: UInt8, white: UInt8) throws(ShelfScanError) -> PixImage {
        try derived("tone curve") { pixGammaTRC(nil, $0, 1, Int32(black), Int32(max(Int(white), Int(black) + 1))) }
    }

    /// The median gray of an 8-bit image (nil when Leptonica cannot rank it).
    public var median: UInt8? { rank(0.5) }

    /// The gray that `fraction` (0-1) of an 8-bit image's pixels are darker than (nil when
    /// Leptonica cannot rank it).
    public func rank(_ fraction: Double) -> UInt8? {
        ranks([fraction])?[0]
    }

    /// `rank` of each fraction, from one histogram: Leptonica's `pixGetRankValue` (its
    /// histogram, `numaHistogramGetValFromRank`, rounded), the histogram counted by the
    /// executable where it can (`shelfscan_gray_histogram`: the same counts).
    public func ranks(_ fractions: [Double]) -> [UInt8]? {
        guard depth == 8 else { return nil }
        return withPix { pix -> [UInt8]? in
            if pixGetColormap(pix) != nil {
                // Leptonica's own, its colormap taken off its way.
                var values: [UInt8] = []
                for fraction in fractions {
                    var value: UInt32 = 0
                    guard pixGetRankValue(pix, 1, Float(min(1, max(0, fraction))), &value) == 0 else { return nil }
                    values.append(UInt8(min(255, value)))
                }
                return values
            }
            var histogram = shelfscan_gray_histogram(pix) ?? pixGetGrayHistogram(pix, 1)
            defer { numaDestroy(&histogram) }
            guard histogram != nil else { return nil }
            var values: [UInt8] = []
            for fraction in fractions {
                var value: Float = 0
                guard numaHistogramGetValFromRank(histogram, Float(min(1, max(0, fraction))), &value) == 0 else { return nil }
                // Leptonica interpolates within a bin: the top of bin 255 comes back as 256.
                values.append(UInt8(min(255, max(0, lept_roundftoi(value)))))
            }
            return values
        }
    }

    /// How far each pixel's gray lies from its surroundings' median (8-bit), dark on white:
    /// letters lighter and darker than their ground come out alike, dark (a title in white on an
    /// orange spine beside the author's name in black, which one threshold cannot both keep).
    /// The ground is the median over `window` pixels, taken on a copy a quarter as large and
    /// scaled back; the distances are stretched so their 99th percentile is black.
    public func distanceFromGround(window: Int) throws(ShelfScanError) -> PixImage {
        let gray = try grayscale()
        let shrink = 4
        // Leptonica's median filter mirrors half its window past each side, and fails where
        // that is more than the image holds: a thin crop's window is cut to fit; one too thin to
        // hold a ground around a letter comes back as it is.
        guard min(gray.width, gray.height) >= 4 * shrink else { return gray }
        let small = try gray.scaled(by: 1 / Double(shrink))
        let fits = 2 * min(small.width, small.height) - 1
        let side = Int32(min(max(3, window / shrink) | 1, fits))
        let ground = try small.derived("median filter") { pixMedianFilter($0, side, side) }
        let w = Int32(gray.width), h = Int32(gray.height)
        let back = try ground.derived("scale") { pixScaleToSize($0, w, h) }
        let distance = try back.withPix { b throws(ShelfScanError) in
            try gray.derived("difference") { pixAbsDifference($0, b) }
        }
        let top = max(8, Int(distance.rank(0.99) ?? 255))
        let stretched = try distance.stretched(black: 0, white: UInt8(min(255, top)))
        return try stretched.inverted()
    }

    /// Local contrast normalisation (8-bit): every region stretched to full range, which evens out
    /// glare, shadows and dim light. Tiles are about 1/6 of the image.
    public func locallyNormalized() throws(ShelfScanError) -> PixImage {
        let sx = max(5, width / 6), sy = max(5, height / 6)
        return try derived("contrast normalisation") { pixContrastNorm(nil, $0, Int32(sx), Int32(sy), 40, 2, 2) }
    }

    /// Sauvola local binarisation (8-bit in, 8-bit black/white out) with a window of
    /// `2 * halfWindow + 1` pixels: crisp bars under uneven light.
    public func binarized(halfWindow: Int) throws(ShelfScanError) -> PixImage {
        try sauvola(halfWindow: halfWindow).derived("binarisation") { pixConvert1To8(nil, $0, 255, 0) }
    }

    /// Sauvola binarisation (k 0.3), 1-bit: dark pixels set.
    func sauvola(halfWindow: Int, factor: Double = 0.3) throws(ShelfScanError) -> PixImage {
        var binary: UnsafeMutablePointer<Pix>?
        let h = Int32(max(2, min(halfWindow, (min(width, height) - 3) / 2)))
        guard withPix({ pixSauvolaBinarize($0, h, Float(factor), 1, nil, nil, nil, &binary) }) == 0, let binary else {
            throw ShelfScanError(.corruptImage, "image operation failed: binarisation")
        }
        return PixImage(owning: binary)
    }

    /// The boxes of the connected dark shapes (8-connected) after Sauvola binarisation with a
    /// window of `2 * halfWindow + 1` pixels: letters, mostly, on text (invert first for light
    /// text on a dark ground). A smaller `factor` (Sauvola's k) keeps fainter shapes: the
    /// threshold is the window's mean times (1 - k) where the window is flat.
    public func darkShapes(halfWindow: Int, factor: Double = 0.3) throws(ShelfScanError) -> [BoundingBox] {
        try sauvola(halfWindow: halfWindow, factor: factor).shapeBoxes()
    }

    /// The boxes of this 1-bit image's 8-connected shapes.
    func shapeBoxes() throws(ShelfScanError) -> [BoundingBox] {
        guard let boxes = withPix({ pixConnCompBB($0, 8) }) else { return [] }
        var owned: UnsafeMutablePointer<Boxa>? = boxes
        defer { boxaDestroy(&owned) }
        return (0..<boxaGetCount(boxes)).compactMap { i in
            var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
            guard boxaGetBoxGeometry(boxes, i, &x, &y, &w, &h) == 0 else { return nil }
            return BoundingBox(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
        }
    }

    /// Light for dark and dark for light.
    public func inverted() throws(ShelfScanError) -> PixImage {
        try derived("invert") { pixInvert(nil, $0) }
    }

    /// Unsharp mask (8-bit): sharpens mild blur.
    public func sharpened(halfWidth: Int = 2, fraction: Double = 0.6) throws(ShelfScanError) -> PixImage {
        // The executable's own for the usual half width (Leptonica's pixels exactly, `contrastSharpened`).
        if halfWidth == 2, Self.ownContrastSharpen, let made = ownContrastSharpened(factor: 0, fraction: fraction) { return made }
        return try librarySharpened(halfWidth: halfWidth, fraction: fraction)
    }

    /// `sharpened` by Leptonica (`pixUnsharpMaskingGray`, its own 2D mask even where the
    /// executable defines `pixUnsharpMaskingGray2D`) whatever the half width.
    func librarySharpened(halfWidth: Int = 2, fraction: Double = 0.6) throws(ShelfScanError) -> PixImage {
        try derived("sharpen") { shelfscan_library_unsharp($0, Int32(halfWidth), Float(fraction)) }
    }

    /// The pixel at (x, y) as (red, green, blue); gray images give three equal values.
    public func rgb(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        var value: UInt32 = 0
        pixGetPixel(pix, Int32(x), Int32(y), &value)
        if depth == 32 {
            return (UInt8((value >> 24) & 0xff), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff))
        }
        if let cmap = pixGetColormap(pix) {
            var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0
            pixcmapGetColor(cmap, Int32(value), &r, &g, &b)
            return (UInt8(r), UInt8(g), UInt8(b))
        }
        let v = depth == 8 ? UInt8(value) : (value == 0 ? 255 : 0)
        return (v, v, v)
    }

    /// The pixels of an 8-bit image as tightly packed rows, one byte per pixel
    /// (Leptonica keeps 32-bit big-endian words with padded rows; ZBar wants plain bytes).
    public func grayBytes() throws(ShelfScanError) -> GrayBytes {
        let gray = depth == 8 && pixGetColormap(pix) == nil ? self : try grayscale()
        let w = gray.width, h = gray.height
        let wpl = Int(pixGetWpl(gray.pix))
        guard let data = pixGetData(gray.pix) else { throw ShelfScanError(.corruptImage, "image has no pixel data") }
        let bytes = [UInt8](unsafeUninitializedCapacity: w * h) { buffer, count in
            let out = buffer.baseAddress!
            for y in 0..<h {
                let row = data + y * wpl
                let dst = out + y * w
                let fullWords = w / 4
                for i in 0..<fullWords {
                    let word = row[i]
                    dst[4 * i] = UInt8(truncatingIfNeeded: word >> 24)
                    dst[4 * i + 1] = UInt8(truncatingIfNeeded: word >> 16)
                    dst[4 * i + 2] = UInt8(truncatingIfNeeded: word >> 8)
                    dst[4 * i + 3] = UInt8(truncatingIfNeeded: word)
                }
                var x = fullWords * 4
                while x < w {
                    let word = row[x / 4]
                    dst[x] = UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32(x % 4)))
                    x += 1
                }
            }
            count = w * h
        }
        return GrayBytes(width: w, height: h, pixels: bytes)
    }

    /// Builds an 8-bit image from packed gray bytes (row-major, `width` bytes per row).
    public convenience init(gray: GrayBytes) throws(ShelfScanError) {
        let w = gray.width, h = gray.height
        guard w > 0, h > 0, gray.pixels.count >= w * h, let pix = pixCreateNoInit(Int32(w), Int32(h), 8) else {
            throw ShelfScanError(.corruptImage, "cannot create a \(w)x\(h) image")
        }
        let wpl = Int(pixGetWpl(pix))
        let data = pixGetData(pix)!
        // Four pixels per big-endian word at a time (a video frame every few milliseconds).
        gray.pixels.withUnsafeBufferPointer { src in
            let s = src.baseAddress!
            for y in 0..<h {
                let row = data + y * wpl
                let line = s + y * w
                let full = w / 4
                for i in 0..<full {
                    let p = line + 4 * i
                    row[i] = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
                }
                if full < wpl {
                    var word: UInt32 = 0
                    for x in (4 * full)..<w { word |= UInt32(line[x]) << (24 - 8 * UInt32(x % 4)) }
                    row[full] = word
                    for i in (full + 1)..<wpl { row[i] = 0 }
                }
            }
        }
        self.init(owning: pix)
    }
}

/// Tightly packed 8-bit gray pixels, row-major.
public struct GrayBytes: Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// A value `PixImage.remembered` keeps (boxed, so that a kept nil is told from none kept).
private final class RememberedValue<T> {
    let value: T
    init(_ value: T) { self.value = value }
}
