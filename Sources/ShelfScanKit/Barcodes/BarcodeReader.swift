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

        for pass in passes(base: base) {
            guard let pix = try pass.make() else { continue }
            tried.append(pass.name)
            let symbols = scanner.scan(try pix.grayBytes())
            let mapping = PassMapping(
                scale: baseScale * pass.scale, degrees: pass.degrees,
                passSize: (pix.width, pix.height), baseSize: (Double(base.width) * pass.scale, Double(base.height) * pass.scale))
            let found = accept(symbols, mapping: mapping, limit: (gray.width, gray.height), pass: pass.name)
            if !found.isEmpty { return BarcodeReadout(barcodes: found, passesTried: tried) }
            if !options.retries { break }
        }
        return BarcodeReadout(barcodes: [], passesTried: tried)
    }

    /// One way of looking at the image.
    private struct Pass {
        let name: String
        /// Scale relative to the base image, and rotation (clockwise degrees) applied after it.
        let scale: Double
        let degrees: Double
        let make: () throws(ShelfScanError) -> PixImage?
    }

    private func passes(base: PixImage) -> [Pass] {
        let side = max(base.width, base.height)
        var list: [Pass] = [Pass(name: "direct", scale: 1, degrees: 0) { () throws(ShelfScanError) -> PixImage? in base }]
        list.append(Pass(name: "median", scale: 1, degrees: 0) { () throws(ShelfScanError) -> PixImage? in try base.medianFiltered() })
        // Small images: modules of 1-2 px; interpolation gives ZBar's edge finder more to work with.
        if side <= 1400 {
            list.append(Pass(name: "upscale2", scale: 2, degrees: 0) { () throws(ShelfScanError) -> PixImage? in try base.scaled(by: 2) })
        }
        // Blur spreads edges over several pixels; shrinking sharpens them back.
        list.append(Pass(name: "downscale", scale: 0.5, degrees: 0) { () throws(ShelfScanError) -> PixImage? in try base.scaled(by: 0.5) })
        // Horizontal and vertical scan lines cover tilts up to about 30 degrees either way;
        // a 45-degree turn covers the diagonal band between them.
        list.append(Pass(name: "rotate45", scale: 1, degrees: 45) { () throws(ShelfScanError) -> PixImage? in try base.rotated(degrees: 45) })
        list.append(Pass(name: "rotate-45", scale: 1, degrees: -45) { () throws(ShelfScanError) -> PixImage? in try base.rotated(degrees: -45) })
        list.append(Pass(name: "contrast", scale: 1, degrees: 0) { () throws(ShelfScanError) -> PixImage? in try base.contrastEnhanced().sharpened() })
        list.append(Pass(name: "median-downscale", scale: 0.5, degrees: 0) { () throws(ShelfScanError) -> PixImage? in try base.scaled(by: 0.5).medianFiltered() })
        return list
    }

    /// Turns raw ZBar symbols into verified barcodes, with add-ons attached and positions mapped back.
    private func accept(_ symbols: [RawSymbol], mapping: PassMapping, limit: (Int, Int), pass: String) -> [Barcode] {
        let mains = symbols.filter { $0.type != ZBAR_EAN2 && $0.type != ZBAR_EAN5 }
        let addOns = symbols.filter { ($0.type == ZBAR_EAN2 || $0.type == ZBAR_EAN5) && $0.addOn == nil }
        var result: [Barcode] = []
        for symbol in mains where symbol.quality >= options.minScanLines {
            guard let symbology = Symbology(zbar: symbol.type),
                  let digits = GTIN.canonical(symbol.data, symbology: symbology) else { continue }
            if result.contains(where: { $0.digits == digits }) { continue }
            let box = BoundingBox(enclosing: symbol.points.map(mapping.toOriginal), limit: limit)
            var addOn = symbol.addOn
            if addOn == nil {
                // A separate add-on belongs to the main code just left of it on the same line.
                addOn = addOns.first { mapping.isAddOn($0, of: symbol) }?.data
            }
            result.append(Barcode(symbology: symbology, digits: digits, addOn: addOn, box: box,
                                  scanLines: symbol.quality, pass: pass))
        }
        return result
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
