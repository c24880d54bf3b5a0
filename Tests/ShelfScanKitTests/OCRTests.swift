import Foundation
import Testing
import CLeptonica
import COpenMP
@testable import ShelfScanKit

/// Printed text in the Odyssey back cover (SampleImages/barcodes/isbn-odyssey-ean5-clean.png,
/// 1280x720): a bold "CLASSICS" above "US $17.00" at the bottom left, and
/// "ISBN 978-0-14-303995-2" above the barcode. Crops keep recognition cheap.
enum OCRSample {
    static let path = Fixtures.sample("barcodes/isbn-odyssey-ean5-clean.png")
    static let priceLabel = BoundingBox(x: 30, y: 545, width: 240, height: 100)
    static let isbnLine = BoundingBox(x: 520, y: 405, width: 345, height: 45)

    static func crop(_ box: BoundingBox) throws -> PixImage {
        try ImageLoader().load(path: path).image.cropped(to: box)
    }

    static func text(_ page: OCRPage) -> String { page.lines.map(\.text).joined(separator: "\n") }

    /// `image` read as one block: its text, and the page as JSON with sorted keys (lines,
    /// letters, confidences and boxes), for comparing two ways of reading it.
    static func reading(_ image: PixImage, by engine: TesseractEngine) throws -> (text: String, json: String) {
        let page = try engine.recognize(image, layout: .block)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (text(page), String(decoding: try encoder.encode(page), as: UTF8.self))
    }
}

@Suite("OCR", .timeLimit(.minutes(10)))
struct OCRTests {
    @Test("Sauvola of an image and of its inverse from one pass, in C and in Swift: pixel for pixel Leptonica's, crops of rendered photos, small to wide windows")
    func sauvolaBoth() throws {
        var random = SplitMix64(state: 31)
        var compared = 0
        for file in ["shelves/shelf-1row-english-ttb.jpg", "shelves/shelf-1row-lowres-noise.jpg", "covers/" + (try FileManager.default.contentsOfDirectory(atPath: Fixtures.sample("covers")).filter { $0.hasSuffix(".jpg") }.sorted().first ?? "")] {
            let photo = try ImageLoader().load(path: Fixtures.sample(file)).image.grayscale()
            for _ in 0..<6 {
                let w = 7 + Int(random.next() % UInt64(min(600, photo.width - 7)))
                let h = 7 + Int(random.next() % UInt64(min(400, photo.height - 7)))
                let x = Int(random.next() % UInt64(photo.width - w + 1)), y = Int(random.next() % UInt64(photo.height - h + 1))
                let crop = try photo.cropped(to: BoundingBox(x: x, y: y, width: w, height: h))
                let inverse = try crop.inverted()
                for (window, factor) in [(2, 0.3), (8, 0.3), (20, 0.15), (max(8, w / 4), 0.3), (300, 0.2)] {
                    // Eight at a time in C (AVX2) and the Swift loops: each Leptonica's.
                    let (dark, light) = try crop.sauvolaBoth(halfWindow: window, factor: factor)
                    let (swiftDark, swiftLight) = try crop.sauvolaBoth(halfWindow: window, factor: factor, simd: false)
                    let expected = (try crop.sauvola(halfWindow: window, factor: factor), try inverse.sauvola(halfWindow: window, factor: factor))
                    for (mine, theirs) in [(dark, expected.0), (light, expected.1), (swiftDark, expected.0), (swiftLight, expected.1)] {
                        var same: Int32 = 0
                        mine.withPix { a in theirs.withPix { b in _ = pixEqual(a, b, &same) } }
                        #expect(same == 1, "\(file) \(w)x\(h) at \(x),\(y), window \(window), k \(factor)")
                        compared += 1
                    }
                }
                #expect(try crop.darkAndLightShapes(halfWindow: 8).dark == (try crop.darkShapes(halfWindow: 8)))
            }
        }
        #expect(compared == 3 * 6 * 5 * 4)
    }

    @Test("a region's crop made once for the passes: the same crop again for the same region and settings once kept, a new one for another photo, region or setting, none past the limit")
    func preparedOnce() throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
        let other = try photo.inverted()
        let region = TextRegion(layout: .spine, box: BoundingBox(x: 100, y: 40, width: 60, height: 400), lean: 2,
                                typicalThickness: 50, row: 0, index: 0)
        let reader = RegionReader()
        // Not kept before `keepFromNow` (the first reading's crops, of every region).
        #expect(try reader.prepare(region, in: photo).sized !== (try reader.prepare(region, in: photo).sized))
        reader.crops.keepFromNow()
        let first = try reader.prepare(region, in: photo)
        #expect(try reader.prepare(region, in: photo).sized === first.sized)
        func same(_ a: PixImage, _ b: PixImage) -> Bool {
            var equal: Int32 = 0
            a.withPix { x in b.withPix { y in _ = pixEqual(x, y, &equal) } }
            return equal == 1
        }
        // Another photo of the same size: its own pixels, not the first photo's crop.
        let inverse = try reader.prepare(region, in: other)
        #expect(!same(inverse.sized, first.sized))
        #expect(same(inverse.sized, try RegionReader().prepare(region, in: other).sized))
        // Another region, another setting: made anew.
        let moved = TextRegion(layout: .spine, box: BoundingBox(x: 160, y: 40, width: 60, height: 400), lean: 2,
                               typicalThickness: 50, row: 0, index: 1)
        #expect(try reader.prepare(moved, in: other).sized !== inverse.sized)
        var darkest = reader
        darkest.darkestChannel = true
        #expect(try darkest.prepare(region, in: other).sized !== inverse.sized)
        #expect(try reader.prepare(region, in: other, leastTurn: 0.5).sized !== inverse.sized)
        // All but the crops of regions still to be read again let go; those stay, and the space
        // of the others is free again.
        let movedCrop = try reader.prepare(moved, in: other)
        reader.keepCrops(of: [moved])
        #expect(try reader.prepare(moved, in: other).sized === movedCrop.sized)
        let afresh = try reader.prepare(region, in: other)
        #expect(afresh.sized !== inverse.sized && same(afresh.sized, inverse.sized))
        #expect(try reader.prepare(region, in: other).sized === afresh.sized)
        // Let go.
        reader.crops.clear()
        #expect(try reader.prepare(region, in: other).sized !== inverse.sized)
        // No more than the limit's bytes kept: the first crop fits, the second not.
        let crop = try reader.prepare(region, in: photo), bytes = crop.sized.width * crop.sized.height + crop.upright!.width * crop.upright!.height
        let small = PreparedCrops(limit: bytes + 10)
        small.keepFromNow()
        let key = { (x: Int) in PreparedCrops.Key(box: BoundingBox(x: x, y: 0, width: 1, height: 1), lean: 0, band: [], layout: .spine, typical: 1,
                                                  leastTurn: 1.5, darkest: false, stretch: true, grayPadding: false, target: 32) }
        small.keep(crop, key(0), of: photo)
        small.keep(crop, key(1), of: photo)
        #expect(small.crop(key(0), of: photo)?.sized === crop.sized)
        #expect(small.crop(key(1), of: photo) == nil)
        // Once the first is let go, the second fits.
        small.keepOnly([])
        small.keep(crop, key(1), of: photo)
        #expect(small.crop(key(0), of: photo) == nil)
        #expect(small.crop(key(1), of: photo)?.sized === crop.sized)
        // Without a limit set: 24 MB, or a photo's own size decoded where that is more.
        let open = PreparedCrops(limit: nil)
        #expect(open.limit(for: photo) == 24 << 20)
        let big = try PixImage(gray: GrayBytes(width: 4032, height: 3024, pixels: [UInt8](repeating: 200, count: 4032 * 3024)))
        #expect(open.limit(for: big) == 4032 * 3024 * 4)
        #expect(small.limit(for: big) == bytes + 10)
    }

    @Test("a reading runs Tesseract's OpenMP regions on the reading thread: through the executable's GOMP_parallel, libgomp's levels 0 there, no OMP_THREAD_LIMIT needed")
    func openMPSerial() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let crop = try OCRSample.crop(OCRSample.priceLabel)
        // A thread of its own: the levels and the count are per thread, and this one has read nothing yet.
        let seen = ResultSlots<(before: Int32, after: Int32, regions: Int, read: Bool, libraryLSTM: Bool)>(count: 1)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let before = shelfscan_openmp_levels()
            let regions = shelfscan_openmp_regions()
            // Whether the library's LSTM::Forward ran throughout (another test may switch it).
            let libraryBefore = TesseractEngine.lstmGates != .own
            let read = (try? engine.recognize(crop, layout: .block)).map { !$0.lines.isEmpty } ?? false
            let libraryAfter = TesseractEngine.lstmGates != .own
            seen.set(0, (before, shelfscan_openmp_levels(), shelfscan_openmp_regions() - regions, read, libraryBefore && libraryAfter))
            done.signal()
        }
        thread.start()
        done.wait()
        let result = try #require(seen.values[0])
        #expect(result.before != -1, "libgomp is loaded with Tesseract")
        #expect(result.before != 0, "a fresh thread starts with OpenMP's default levels")
        #expect(result.read)
        #expect(result.after == 0)
        // Tesseract's layers open their regions through here; the library's LSTM::Forward one per
        // time step, hundreds for one crop (the executable's own, `lstmGates`, opens none).
        #expect(result.regions > 0, "regions through GOMP_parallel: \(result.regions)")
        if result.libraryLSTM { #expect(result.regions > 100, "regions through GOMP_parallel: \(result.regions)") }
    }

    @Test("recognises the printed label on a sample cover")
    func recognisesLabel() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let page = try engine.recognize(try OCRSample.crop(OCRSample.priceLabel), layout: .block)
        let text = OCRSample.text(page)
        #expect(text.localizedCaseInsensitiveContains("CLASSICS"), "read: \(text)")
        #expect(text.contains("17"), "read: \(text)")
        #expect(page.lines.count >= 2)
        #expect((0...100).contains(page.meanConfidence))
        for line in page.lines {
            #expect(line.box.width > 0 && line.box.height > 0)
            #expect(line.box.x >= 0 && line.box.x + line.box.width <= OCRSample.priceLabel.width)
            #expect(line.box.y >= 0 && line.box.y + line.box.height <= OCRSample.priceLabel.height)
        }
    }

    @Test("lettering in a colour as light as its ground reads through the darkest channel, not by luminance")
    func darkestChannel() throws {
        // The price label recoloured: yellow ink (255, 255, 0) on a gray ground (204, 204, 204),
        // both of luminance 204 by Leptonica's weights (0.3, 0.5, 0.2); edges mixed in between.
        let gray = try OCRSample.crop(OCRSample.priceLabel).grayBytes()
        let pix = try #require(pixCreate(Int32(gray.width), Int32(gray.height), 32))
        for y in 0..<gray.height {
            for x in 0..<gray.width {
                let ground = Double(gray.pixels[y * gray.width + x]) / 255
                func mix(_ ink: Double) -> Int32 { Int32((ink + (204 - ink) * ground).rounded()) }
                var value: UInt32 = 0
                composeRGBPixel(mix(255), mix(255), mix(0), &value)
                pixSetPixel(pix, Int32(x), Int32(y), value)
            }
        }
        let colour = PixImage(owning: pix)
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let darkest = OCRSample.text(try engine.recognize(try colour.darkestChannel(), layout: .block))
        let luminance = OCRSample.text(try engine.recognize(try colour.grayscale(), layout: .block))
        #expect(darkest.localizedCaseInsensitiveContains("CLASSICS"), "read: \(darkest)")
        #expect(!luminance.localizedCaseInsensitiveContains("CLASSICS"), "read: \(luminance)")
    }

    @Test("lettering set apart by hue alone reads along the main axis of hue, not by luminance or the darkest channel")
    func chromaAxis() throws {
        // The price label in two colours (no edges mixed in between, whose rounding would leave
        // the letters an outline of one gray level): red ink (234, 50, 70) on a green ground (50,
        // 160, 70), both of luminance 109 by Leptonica's weights (0.3, 0.5, 0.2), darkest channel 50.
        let gray = try OCRSample.crop(OCRSample.priceLabel).grayBytes()
        func recoloured(ink: (Int, Int, Int), ground: (Int, Int, Int)) throws -> PixImage {
            let pix = try #require(pixCreate(Int32(gray.width), Int32(gray.height), 32))
            for y in 0..<gray.height {
                for x in 0..<gray.width {
                    let c = gray.pixels[y * gray.width + x] < 128 ? ink : ground
                    var value: UInt32 = 0
                    composeRGBPixel(Int32(c.0), Int32(c.1), Int32(c.2), &value)
                    pixSetPixel(pix, Int32(x), Int32(y), value)
                }
            }
            return PixImage(owning: pix)
        }
        let colour = try recoloured(ink: (234, 50, 70), ground: (50, 160, 70))
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let hue = try #require(try colour.chromaAxis(minimumSpread: 40))
        // Dark on light: the ground (most of the label) comes out light.
        #expect(try #require(hue.rank(0.5)) > 128)
        let byHue = OCRSample.text(try engine.recognize(hue, layout: .block))
        let luminance = OCRSample.text(try engine.recognize(try colour.grayscale(), layout: .block))
        let darkest = OCRSample.text(try engine.recognize(try colour.darkestChannel(), layout: .block))
        #expect(byHue.localizedCaseInsensitiveContains("CLASSICS"), "read: \(byHue)")
        #expect(!luminance.localizedCaseInsensitiveContains("CLASSICS"), "read: \(luminance)")
        #expect(!darkest.localizedCaseInsensitiveContains("CLASSICS"), "read: \(darkest)")
        // The same label in grays (black on white) has no hue to read by; nor has a gray image.
        #expect(try recoloured(ink: (20, 20, 20), ground: (235, 235, 235)).chromaAxis(minimumSpread: 40) == nil)
        #expect(try OCRSample.crop(OCRSample.priceLabel).grayscale().chromaAxis(minimumSpread: 0) == nil)
    }

    /// `chromaAxis` written plainly, one pass per step (the code before its passes were fused):
    /// the reference its bytes are compared with.
    static func plainChromaAxis(_ image: PixImage, minimumSpread: Double) -> [UInt8]? {
        let (w, h) = (image.width, image.height)
        var a = [Float](repeating: 0, count: w * h), b = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let c = image.rgb(x: x, y: y)
                let r = Float(c.r), g = Float(c.g), bl = Float(c.b)
                a[y * w + x] = r - g
                b[y * w + x] = (r + g) / 2 - bl
            }
        }
        let n = Float(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var saa: Float = 0, sbb: Float = 0, sab: Float = 0
        for i in a.indices {
            let da = a[i] - ma, db = b[i] - mb
            saa += da * da; sbb += db * db; sab += da * db
        }
        let theta = 0.5 * atan2(2 * sab, saa - sbb)
        let (ca, cb) = (cos(theta), sin(theta))
        var projected = a.indices.map { a[$0] * ca + b[$0] * cb }
        var histogram = [Int](repeating: 0, count: 1024)
        for v in projected { histogram[min(1023, max(0, Int(v.rounded()) + 512))] += 1 }
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
        let flip = percentile(0.5) < (lo + hi) / 2
        let scale = 255 / (hi - lo)
        for i in projected.indices {
            let v = min(max((projected[i] - lo) * scale, 0), 255)
            projected[i] = flip ? 255 - v : v
        }
        return projected.map { UInt8($0.rounded()) }
    }

    @Test("the main axis of hue, its passes fused: the bytes of the plain passes, on colour crops of a rendered shelf and a cover")
    func chromaAxisPlain() throws {
        var random = SplitMix64(state: 5)
        var compared = 0
        for file in ["shelves/shelf-1row-mixed.jpg", "covers/cover-dune.jpg"] {
            let photo = try ImageLoader().load(path: Fixtures.sample(file)).image
            #expect(photo.depth == 32)
            for _ in 0..<5 {
                let w = 20 + Int(random.next() % UInt64(min(300, photo.width - 20)))
                let h = 20 + Int(random.next() % UInt64(min(300, photo.height - 20)))
                let x = Int(random.next() % UInt64(photo.width - w + 1)), y = Int(random.next() % UInt64(photo.height - h + 1))
                let crop = try photo.cropped(to: BoundingBox(x: x, y: y, width: w, height: h))
                let fused = try crop.chromaAxis(minimumSpread: 10).map { try $0.grayBytes().pixels }
                #expect(fused == Self.plainChromaAxis(crop, minimumSpread: 10), "\(file) \(w)x\(h) at \(x),\(y)")
                if fused != nil { compared += 1 }
            }
        }
        #expect(compared >= 5)
    }

    @Test("reads the ISBN line as one line")
    func readsISBNLine() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let page = try engine.recognize(try OCRSample.crop(OCRSample.isbnLine), layout: .line)
        let text = OCRSample.text(page)
        #expect(text.localizedCaseInsensitiveContains("ISBN"), "read: \(text)")
        // The digits, whatever Tesseract made of the hyphens, parse back to the book's ISBN.
        let digits = text.filter(\.isASCIIDigit)
        #expect(digits.contains("9780143039952"), "read: \(text)")
    }

    @Test("a deadline in CPU time cuts a long reading short, and it is the CPU deadline that cuts it")
    func cpuDeadline() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
        let turned = try photo.rotated(quarterTurns: 1)
        func words(_ page: OCRPage) -> Int { page.lines.reduce(0) { $0 + $1.words.count } }
        let whole = try engine.recognize(turned, layout: .auto)
        #expect(!engine.lastCutByCPU, "no deadline, no cut")
        // On the clock, 1 ms cuts the reading too, but not by the CPU deadline's callback.
        engine.cpuDeadline = false
        let clock = try engine.recognize(turned, layout: .auto, deadline: 1)
        #expect(words(clock) < words(whole) / 2 && !engine.lastCutByCPU)
        engine.cpuDeadline = true
        // The wall-clock backup a minute away: however loaded the machine, only the CPU
        // deadline can cut this reading.
        engine.wallBackupFloorMS = 60_000
        let cut = try engine.recognize(turned, layout: .auto, deadline: 1)
        #expect(words(whole) >= 20, "the whole reading read \(words(whole)) words")
        #expect(words(cut) < words(whole) / 2, "cut after 1 ms of CPU: \(words(cut)) of \(words(whole)) words")
        #expect(engine.lastCutByCPU, "the CPU deadline's callback did not cut the reading")
        // A generous CPU deadline lets the same reading finish whole, and says so.
        let full = try engine.recognize(turned, layout: .auto, deadline: 30_000)
        #expect(!engine.lastCutByCPU)
        #expect(words(full) == words(whole), "\(words(full)) of \(words(whole)) words under a 30 s deadline")
    }

    @Test("one engine serves several images in turn")
    func engineReused() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let label = try OCRSample.crop(OCRSample.priceLabel), isbn = try OCRSample.crop(OCRSample.isbnLine)
        let first = OCRSample.text(try engine.recognize(label))
        let second = OCRSample.text(try engine.recognize(isbn, layout: .line))
        let third = OCRSample.text(try engine.recognize(label))
        #expect(first == third)
        #expect(!second.localizedCaseInsensitiveContains("CLASSICS"))
    }

    @Test("Tesseract's inverted reading is off for lines of dark letters on a light ground, on for any other")
    func inversionByLine() throws {
        // The picture test: rendered text both ways, and pictures that are not clearly dark
        // letters on a light ground.
        let label = try OCRSample.crop(OCRSample.priceLabel).grayscale()
        #expect(TesseractEngine.darkOnLight(label))
        #expect(!TesseractEngine.darkOnLight(try label.inverted()))
        func picture(_ gray: (Int) -> UInt8) throws -> PixImage {
            try PixImage(gray: GrayBytes(width: 60, height: 20, pixels: (0..<1200).map(gray)))
        }
        // Flat; faint stripes (two classes 20 grays apart, the darker a fifth of the pixels);
        // half dark, half light.
        #expect(!TesseractEngine.darkOnLight(try picture { _ in 128 }))
        #expect(!TesseractEngine.darkOnLight(try picture { $0 % 60 < 12 ? 120 : 140 }))
        #expect(!TesseractEngine.darkOnLight(try picture { $0 % 60 < 30 ? 40 : 220 }))
        // Dark strokes on a pale ground: dark on light; with white strokes on that ground too
        // (a black author's name beside a white title on a pale orange spine): not.
        #expect(TesseractEngine.darkOnLight(try picture { $0 % 10 < 2 ? 40 : 180 }))
        #expect(!TesseractEngine.darkOnLight(try picture { $0 % 10 < 2 ? 40 : $0 % 10 == 5 ? 240 : 180 }))
        // White letters on a narrow dark band between white neighbours (the letters and the
        // neighbours one tone, the dark a third of the pixels): the dark is a band, not strokes.
        #expect(!TesseractEngine.darkOnLight(try picture { i in
            let x = i % 60, y = i / 60
            return (20..<40).contains(x) && !((7..<13).contains(y) && x % 4 == 0) ? 40 : 220
        }))
        // Real readings of a rendered shelf, its spines turned level: Tesseract reads most lines
        // a second time inverted on its own; with the gate, the lines it passes are read once.
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
            .grayscale().rotated(quarterTurns: 3)
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        engine.invertsByLine = false
        let start = TesseractEngine.lineInversionCounts
        _ = try engine.recognize(shelf, layout: .block)
        let before = TesseractEngine.lineInversionCounts
        #expect(before.inverted > start.inverted)
        #expect(before.gated == start.gated)
        engine.invertsByLine = true
        let text = OCRSample.text(try engine.recognize(shelf, layout: .block))
        let after = TesseractEngine.lineInversionCounts
        #expect(text.contains("Pride and Prejudice"), "read: \(text)")
        // Tesseract's line pictures came through CLineInvert (the test binary exports it too).
        #expect(TesseractEngine.decidesInversionByLine)
        let lines = after.lines - before.lines, gated = after.gated - before.gated, inverted = after.inverted - before.inverted
        #expect(lines == before.lines - start.lines)
        #expect(gated > 0)
        #expect(inverted <= lines - gated)
        #expect(inverted < before.inverted - start.inverted)
        // Light letters on a dark ground: no line passes, and the inverted reading reads them.
        let inverse = OCRSample.text(try engine.recognize(try label.inverted(), layout: .block))
        let last = TesseractEngine.lineInversionCounts
        #expect(inverse.localizedCaseInsensitiveContains("CLASSICS"), "read: \(inverse)")
        #expect(last.lines > after.lines)
        #expect(last.gated == after.gated)
        #expect(last.inverted > after.inverted)
    }

    @Test("Tesseract's LSTM steps: the executable's agree with the library's, case by case and reading by reading")
    func lstmSteps() throws {
        // Random maps and positions, writes, poolings and convolutions, through both sets.
        #expect(TesseractEngine.lstmStepDisagreements(trials: 20_000, seed: 7) == 0)
        // A rendered shelf, its spines turned level, read with the executable's methods and with
        // the library's: the same lines, letters, confidences and boxes.
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
            .grayscale().rotated(quarterTurns: 3)
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        func reading() throws -> (text: String, json: String) { try OCRSample.reading(shelf, by: engine) }
        let own = TesseractEngine.useOwnLSTMSteps(true)
        defer { TesseractEngine.useOwnLSTMSteps(true) }
        let poolings = TesseractEngine.ownPoolings, copies = TesseractEngine.ownLineCopies
        let ours = try reading()
        // The executable's do the work where the library is the one whose layout was checked
        // (the test binary exports them too); with any other, the library's own run.
        #expect(own == (TesseractEngine.libraryVersion == "5.3.0" ? .own : .library))
        // Its pooling too, once per line read, where the library's Maxpool::Forward is the one
        // whose machine code was read (Debian 12's).
        if own == .own { #expect(TesseractEngine.ownPoolings > poolings) }
        // And each line's pixels into the network's input (gray, int8), through the gray table.
        if own == .own { #expect(TesseractEngine.ownLineCopies > copies) }
        #expect(TesseractEngine.useOwnLSTMSteps(false) == .library)
        let theirs = try reading()
        #expect(ours.text.contains("Pride and Prejudice"), "read: \(ours.text)")
        #expect(ours.json == theirs.json)
    }

    @Test("Tesseract's int8 products: the executable's kernels (AVX-512 VNNI, AVX2) agree with the library's bit for bit")
    func intMatrixProducts() throws {
        _ = try TesseractEngine(tessdata: Fixtures.models)
        // The AVX2 kernel wherever it can run, also on machines that get the VNNI one.
        if let avx2 = TesseractEngine.intMatrixAVX2Disagreements(trials: 5_000, seed: 12) {
            #expect(avx2 == 0)
        }
        guard let disagreements = TesseractEngine.intMatrixDisagreements(trials: 5_000, seed: 11) else {
            // No AVX2 here, or another libtesseract: the library's kernel runs.
            #expect(TesseractEngine.intMatrix == .library)
            return
        }
        #expect(disagreements == 0)
        #expect(TesseractEngine.intMatrix == (ProcessInfo.processInfo.environment["SHELFSCAN_INT_MATRIX"] == "off" ? .library : .own))
    }

    @Test("Tesseract's LSTM gates: the executable's tanh and logistic agree with the library's, value by value and reading by reading")
    func lstmGates() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        guard let disagreements = TesseractEngine.lstmGateDisagreements(count: 100_000, seed: 5) else {
            // No AVX-512 here, or another libtesseract: the library computes them.
            #expect(TesseractEngine.lstmGates == .library)
            return
        }
        #expect(disagreements == 0)
        // A rendered shelf's spines turned level, read with the gates computed here and by the
        // library: the same lines, letters, confidences and boxes.
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
            .grayscale().rotated(quarterTurns: 3)
        func reading() throws -> (text: String, json: String) { try OCRSample.reading(shelf, by: engine) }
        let own = TesseractEngine.useOwnLSTMGates(true)
        defer { TesseractEngine.useOwnLSTMGates(true) }
        let ours = try reading()
        #expect(own == (ProcessInfo.processInfo.environment["SHELFSCAN_LSTM_GATES"] == "off" ? .library : .own))
        // Its first regions were computed both ways too, and none differed.
        let checks = TesseractEngine.lstmGateChecks
        #expect(checks.differed == 0)
        if own == .own { #expect(checks.regions > 0) }
        #expect(TesseractEngine.useOwnLSTMGates(false) == .library)
        let theirs = try reading()
        #expect(ours.text.contains("Pride and Prejudice"), "read: \(ours.text)")
        #expect(ours.json == theirs.json)
    }

    @Test("Tesseract's histogram and Otsu threshold of each picture: the executable's agree with the library's, picture by picture and reading by reading")
    func pageSteps() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image
            .grayscale().rotated(quarterTurns: 1)
        func reading() throws -> (text: String, json: String) { try OCRSample.reading(shelf, by: engine) }
        let own = TesseractEngine.useOwnPageSteps(true)
        defer { TesseractEngine.useOwnPageSteps(true) }
        let ours = try reading()
        guard let disagreements = TesseractEngine.pageStepDisagreements(trials: 3000, seed: 7) else {
            // Another libtesseract than the one read: the library's run.
            #expect(own == .library)
            return
        }
        #expect(disagreements == 0)
        #expect(own == (ProcessInfo.processInfo.environment["SHELFSCAN_PAGE_STEPS"] == "off" ? .library : .own))
        #expect(TesseractEngine.useOwnPageSteps(false) == .library)
        let theirs = try reading()
        #expect(!ours.text.isEmpty)
        #expect(ours.json == theirs.json)
    }

    @Test("outlines' winding numbers: the executable's agree with the library's, chain by chain and reading by reading")
    func windingNumbers() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image
            .grayscale().rotated(quarterTurns: 1)
        func reading() throws -> (text: String, json: String) { try OCRSample.reading(shelf, by: engine) }
        let own = TesseractEngine.useOwnWindingNumbers(true)
        defer { TesseractEngine.useOwnWindingNumbers(true) }
        let answered = TesseractEngine.ownWindingNumbers
        let ours = try reading()
        guard let disagreements = TesseractEngine.windingDisagreements(trials: 5000, seed: 3) else {
            // Another libtesseract than the one read: the library's runs.
            #expect(own == .library)
            return
        }
        #expect(disagreements == 0)
        #expect(own == (ProcessInfo.processInfo.environment["SHELFSCAN_WINDING"] == "off" ? .library : .own))
        // The reading (on this thread) nested its letters' outlines through the executable's.
        if own == .own { #expect(TesseractEngine.ownWindingNumbers > answered) }
        #expect(TesseractEngine.useOwnWindingNumbers(false) == .library)
        let theirs = try reading()
        #expect(!ours.text.isEmpty)
        #expect(ours.json == theirs.json)
    }

    @Test("engines of LSTM-only models load without the legacy engine's ambiguity table and read the same as with it",
          arguments: [ModelLocator.language, ModelLocator.secondLanguage])
    func ambiguityTable(language: String) throws {
        let before = TesseractEngine.ambiguityTablesSkipped
        let without = try TesseractEngine(tessdata: Fixtures.models, language: language, skippingAmbiguities: true)
        let skipped = TesseractEngine.ambiguityTablesSkipped - before
        let with = try TesseractEngine(tessdata: Fixtures.models, language: language, skippingAmbiguities: false)
        // Tesseract settled on the LSTM alone (mode 1) both ways; the first load skipped the
        // table (other tests' loads may run meanwhile: at least this one).
        #expect(without.mode == 1 && with.mode == 1)
        #expect(skipped >= 1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image.rotated(quarterTurns: 1)
        let spines = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image.rotated(quarterTurns: 3)
        let pictures: [(PixImage, PageLayout)] = [(shelf, .block), (spines, .sparse), (try OCRSample.crop(OCRSample.priceLabel), .block)]
        for (picture, layout) in pictures {
            let a = try without.recognize(picture, layout: layout), b = try with.recognize(picture, layout: layout)
            #expect(!OCRSample.text(a).isEmpty)
            #expect(try encoder.encode(a) == encoder.encode(b))
        }
    }

    @Test("blobs' stroke widths: skipped in block and line readings, which read the same as with them; measured in sparse readings")
    func strokeWidths() throws {
        let skipping = try TesseractEngine(tessdata: Fixtures.models), measuring = try TesseractEngine(tessdata: Fixtures.models)
        measuring.skipsUnneededStrokeWidths = false
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image.rotated(quarterTurns: 1)
        let spines = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image.rotated(quarterTurns: 3)
        let label = try OCRSample.crop(OCRSample.priceLabel)
        for (picture, layout) in [(shelf, PageLayout.block), (spines, .block), (label, .block), (label, .line), (spines, .line)] {
            let before = TesseractEngine.strokeWidthCounts
            let a = try skipping.recognize(picture, layout: layout)
            let skipped = TesseractEngine.strokeWidthCounts.skipped - before.skipped
            let b = try measuring.recognize(picture, layout: layout)
            #expect(!OCRSample.text(a).isEmpty)
            #expect(try encoder.encode(a) == encoder.encode(b), "\(layout): \(OCRSample.text(a)) / \(OCRSample.text(b))")
            // The skipping engine's reading skipped its blobs (other tests' readings may add).
            if TesseractEngine.strokeWidthsUnneeded(layout) { #expect(skipped > 0) }
        }
        // A sparse reading measures them (Tesseract's neighbour finding reads them).
        let before = TesseractEngine.strokeWidthCounts
        _ = try skipping.recognize(spines, layout: .sparse)
        #expect(TesseractEngine.strokeWidthCounts.measured > before.measured)
    }

    @Test("outlines' edge offsets: skipped in an LSTM-only engine's readings, which read the same as with them",
          arguments: [ModelLocator.language, ModelLocator.secondLanguage])
    func edgeOffsets(language: String) throws {
        let skipping = try TesseractEngine(tessdata: Fixtures.models, language: language)
        let computing = try TesseractEngine(tessdata: Fixtures.models, language: language)
        skipping.skipsUnneededEdgeOffsets = true
        computing.skipsUnneededEdgeOffsets = false
        #expect(skipping.readsWithLSTMAlone && computing.readsWithLSTMAlone)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image.rotated(quarterTurns: 1)
        let spines = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image.rotated(quarterTurns: 3)
        let label = try OCRSample.crop(OCRSample.priceLabel)
        for (picture, layout) in [(shelf, PageLayout.block), (spines, .sparse), (label, .line), (spines, .auto)] {
            let before = TesseractEngine.edgeOffsetCounts
            let a = try skipping.recognize(picture, layout: layout)
            let skipped = TesseractEngine.edgeOffsetCounts.skipped - before.skipped
            let b = try computing.recognize(picture, layout: layout)
            #expect(try encoder.encode(a) == encoder.encode(b), "\(layout): \(OCRSample.text(a)) / \(OCRSample.text(b))")
            // The skipping engine's reading skipped its blocks' offsets (others' readings may add).
            #expect(skipped > 0)
        }
    }

    @Test("an LSTM-only engine takes rows for proportional text unless SHELFSCAN_PITCH=measure")
    func pitchSetting() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        #expect(engine.readsWithLSTMAlone)
        #expect(engine.pitchAnalysisSkipped == TesseractEngine.skipsPitchAnalysis)
    }

    /// In a child process each (Tesseract holds the setting for the whole process): the same
    /// lines, confidences and boxes with the rows' fixed-pitch analysis skipped and measured.
    /// One rendered shelf, two runs (the debug build's readings are slow under the suite's load;
    /// 34 photos were compared with the release build, README).
    @Test("rows taken for proportional text without measuring their pitch: the same lines as with the analysis",
          .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"))
    func pitchAnalysis() async throws {
        let dir = try TemporaryDirectory()
        let arguments = ["ocr", "--tessdata", Fixtures.models, "--rotate", "270", Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")]
        let skipped = try await CLI.run(arguments, environment: ["SHELFSCAN_PITCH": "skip"], in: dir)
        let measured = try await CLI.run(arguments, environment: ["SHELFSCAN_PITCH": "measure"], in: dir)
        #expect(skipped.status == 0 && measured.status == 0, "\(skipped.stderr) \(measured.stderr)")
        #expect(skipped.stdout.contains("Pride and Prejudice"), "read: \(skipped.stdout.prefix(500))")
        #expect(skipped.stdout == measured.stdout)
    }

    /// In a child process each (the kernel is chosen once, before any model loads): the same
    /// lines, confidences and boxes with either kernel.
    @Test("a reading with the executable's int8 kernel and LSTM steps (AVX-512 or AVX2) and with the library's: the same lines",
          .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"))
    func intMatrixReadings() async throws {
        let dir = try TemporaryDirectory()
        let shelf = Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")
        let ours = try await CLI.run(["ocr", "--tessdata", Fixtures.models, "--rotate", "270", shelf], in: dir)
        let theirs = try await CLI.run(["ocr", "--tessdata", Fixtures.models, "--rotate", "270", shelf],
                                       environment: ["SHELFSCAN_INT_MATRIX": "off"], in: dir)
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.stderr) \(theirs.stderr)")
        #expect(ours.stdout.contains("Pride and Prejudice"), "read: \(ours.stdout.prefix(500))")
        #expect(ours.stdout == theirs.stdout)
        // The int8 kernel's and the LSTM steps' AVX2 versions (what a processor without AVX-512
        // runs), and every piece of the executable's arithmetic off: the same lines again.
        let narrow = try await CLI.run(["ocr", "--tessdata", Fixtures.models, "--rotate", "270", shelf],
                                       environment: ["SHELFSCAN_SIMD": "avx2"], in: dir)
        let library = try await CLI.run(["ocr", "--tessdata", Fixtures.models, "--rotate", "270", shelf],
                                        environment: ["SHELFSCAN_INT_MATRIX": "off", "SHELFSCAN_LSTM_GATES": "off",
                                                      "SHELFSCAN_LSTM_STEPS": "off", "SHELFSCAN_ROTATE_AM": "off"], in: dir)
        #expect(narrow.stdout == ours.stdout)
        #expect(library.stdout == ours.stdout)
    }

    @Test("lines go to the recogniser as uncompressed PNG; PNG files written outside stay compressed")
    func uncompressedLines() throws {
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let text = OCRSample.text(try engine.recognize(try OCRSample.crop(OCRSample.priceLabel), layout: .block))
        #expect(text.localizedCaseInsensitiveContains("CLASSICS"), "read: \(text)")
        // Tesseract wrote its lines through CFastPNG (the test binary exports the symbol too).
        #expect(TesseractEngine.storesLinesUncompressed)
        // After the recognition, on the same thread: a flat 400x400 picture compresses to a
        // few hundred bytes, against 160 kB stored.
        let dir = try TemporaryDirectory()
        let flat = try PixImage(gray: GrayBytes(width: 400, height: 400, pixels: [UInt8](repeating: 200, count: 400 * 400)))
        let path = dir.file("flat.png")
        try flat.writePNG(to: path)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > 0 && size < 20_000, "\(size) bytes")
    }

    @Test("a folder without the model: .modelMissing naming the folder")
    func missingModel() throws {
        let dir = try TemporaryDirectory()
        #expect {
            try TesseractEngine(tessdata: dir.path)
        } throws: { error in
            guard let error = error as? ShelfScanError else { return false }
            return error.code == .modelMissing && error.message.contains(dir.path)
        }
        let nowhere = dir.file("no-such-folder")
        #expect {
            try OCREnginePool(tessdata: nowhere, size: 2)
        } throws: { error in
            guard let error = error as? ShelfScanError else { return false }
            return error.code == .modelMissing && error.message.contains(nowhere)
        }
    }

    /// Run through the executable, in a child process: if loading a bad model crashes the engine,
    /// this test fails and the rest of the suite still runs and reports.
    /// Both files are ones Tesseract itself rejects cleanly (TessBaseAPIInit3 returns -1).
    @Test("a model file Tesseract cannot load: a one-line error naming it, not a crash",
          .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"),
          arguments: ["truncated download", "text file"])
    func unloadableModel(_ kind: String) async throws {
        let dir = try TemporaryDirectory()
        let models = dir.file("models")
        try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
        let bytes = kind == "text file"
            ? Array("not a tesseract model\n".utf8)
            : Array(try Fixtures.bytes(Fixtures.models + "/eng.traineddata").prefix(1000))
        try dir.write("models/eng.traineddata", bytes)
        let run = try await CLI.run(["ocr", "--tessdata", models, OCRSample.path], in: dir)
        #expect(run.terminationReason == .exit, "shelfscan died from signal \(run.status)")
        #expect(run.status == 1)
        #expect(run.stderrLines.count == 1, "stderr: \(run.stderr.prefix(300))")
        #expect(run.stderr.contains(models + "/eng.traineddata"))
    }

    @Test("ModelLocator: an explicit folder must hold the model")
    func locatorExplicit() throws {
        let dir = try TemporaryDirectory()
        #expect {
            try ModelLocator.tessdata(explicit: dir.path)
        } throws: { error in
            guard let error = error as? ShelfScanError else { return false }
            return error.code == .modelMissing && error.message.contains(dir.path)
        }
        #expect(try ModelLocator.tessdata(explicit: Fixtures.models) == Fixtures.models)
    }

    @Test("ModelLocator: $SHELFSCAN_TESSDATA comes first")
    func locatorEnvironment() throws {
        #expect(try ModelLocator.tessdata(explicit: nil, environment: ["SHELFSCAN_TESSDATA": Fixtures.models]) == Fixtures.models)
        #expect(ModelLocator.searchPath(environment: ["SHELFSCAN_TESSDATA": "/opt/models"]).first == "/opt/models")
        #expect(ModelLocator.searchPath(environment: [:]).last == "/usr/share/tesseract-ocr/5/tessdata")
    }

    @Test("ModelLocator: an installed binary finds PREFIX/share/shelfscan/Models, a copied one its checkout's Models")
    func locatorInstalled() throws {
        let path = ModelLocator.searchPath(environment: [:], executable: "/opt/shelf/bin/shelfscan")
        let share = try #require(path.firstIndex(of: "/opt/shelf/share/shelfscan/Models"))
        let built = try #require(path.firstIndex(of: ModelLocator.builtFrom))
        // Beside the executable first, then the install prefix, then the checkout, Debian last.
        #expect(path.firstIndex(of: "/opt/shelf/bin/Models")! < share && share < built && built < path.count - 1)
        #expect(ModelLocator.builtFrom == Fixtures.models)
        // A missing second model is said in one line naming where it was looked for.
        let fastOnly = try TemporaryDirectory()
        #expect(ModelLocator.secondModelWarning(explicit: Fixtures.models) == nil)
        let warning = try #require(ModelLocator.secondModelWarning(explicit: fastOnly.path))
        #expect(warning.contains("eng_main.traineddata") && warning.contains(fastOnly.path) && !warning.contains("\n"))
    }

    @Test("ModelLocator: the second model is found where it lies, only in an explicit folder when one is given")
    func locatorSecond() throws {
        let empty = try TemporaryDirectory()
        #expect(ModelLocator.secondTessdata(explicit: Fixtures.models) == Fixtures.models)
        #expect(ModelLocator.secondTessdata(explicit: empty.path) == nil)
        #expect(ModelLocator.secondTessdata(explicit: nil, environment: ["SHELFSCAN_TESSDATA": empty.path]) != empty.path)
        // A pool over a folder without it has no second pool; one over the project's has one, of
        // the same size, that loads it.
        #expect(OCRWorkers(tessdata: empty.path, size: 1).second == nil)
        let second = try #require(OCRWorkers(tessdata: Fixtures.models, size: 2).second)
        #expect(second.size == 2 && second.language == ModelLocator.secondLanguage)
        let crop = try OCRSample.crop(OCRSample.priceLabel)
        let text = try second.withEngine { engine throws(ShelfScanError) in
            try engine.recognize(crop, layout: .block).lines.map(\.text).joined(separator: " ")
        }
        #expect(!text.isEmpty)
    }

    @Test("a pool of two engines runs four recognitions at once and returns four results")
    func pool() async throws {
        let pool = try OCREnginePool(tessdata: Fixtures.models, size: 2)
        #expect(await pool.size == 2)
        let image = try OCRSample.crop(OCRSample.priceLabel)
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await pool.withEngine { engine in OCRSample.text(try engine.recognize(image)) }
                }
            }
            var texts: [String] = []
            for try await text in group { texts.append(text) }
            return texts
        }
        #expect(texts.count == 4)
        for text in texts {
            #expect(text.localizedCaseInsensitiveContains("CLASSICS"), "read: \(text)")
        }
        // The same image through any engine of the pool gives the same text.
        #expect(Set(texts).count == 1)
    }
}
