import CLeptonica
import CRotateAM
import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Rotation by area mapping")
struct RotationTests {
    @Test("the executable's turn of gray pictures agrees with Leptonica's, pixel for pixel")
    func randomPictures() throws {
        guard let disagreements = PixImage.areaMapRotationDisagreements(trials: 400, seed: 3) else {
            // No AVX-512 here, or another Leptonica: its own turn runs.
            _ = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image.grayscale().rotated(degrees: 12)
            #expect(PixImage.areaMapRotation == .library)
            return
        }
        #expect(disagreements == 0)
    }

    @Test("a rendered shelf turned by leaning angles both ways: the same pixels from either, corners white")
    func renderedShelf() throws {
        let gray = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image.grayscale()
        func turns() throws -> [GrayBytes] {
            try [-15.0, -2.5, 0.8, 11.0, 37.0].map { try gray.rotated(degrees: $0).grayBytes() }
        }
        let own = PixImage.useOwnAreaMapRotation(true)
        defer { PixImage.useOwnAreaMapRotation(true) }
        let ours = try turns()
        #expect(own == (ProcessInfo.processInfo.environment["SHELFSCAN_ROTATE_AM"] == "off" || PixImage.areaMapRotationDisagreements(trials: 1, seed: 1) == nil ? .library : .own))
        #expect(PixImage.areaMapRotationChecks.differed == 0)
        #expect(PixImage.useOwnAreaMapRotation(false) == .library)
        let theirs = try turns()
        for (a, b) in zip(ours, theirs) {
            #expect(a.width == b.width && a.height == b.height)
            #expect(a.pixels == b.pixels)
        }
        // Turned 11 degrees, the canvas grows and its corners are brought-in white.
        let turned = ours[3]
        #expect(turned.width > gray.width && turned.height > gray.height)
        #expect(turned.pixels[0] == 255 && turned.pixels[turned.pixels.count - 1] == 255)
    }
}

@Suite("Scaling gray pictures: area mapping and interpolation")
struct AreaMapScalingTests {
    @Test("the executable's scaling of gray pictures (shrunk by area, interpolated from 0.7 up) agrees with Leptonica's, pixel for pixel")
    func randomPictures() {
        #expect(PixImage.areaMapScalingDisagreements(trials: 600, seed: 5) == 0)
    }

    @Test("a rendered shelf scaled by reading factors, down and up: the same pixels from either, averaged")
    func renderedShelf() throws {
        let gray = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image.grayscale()
        let factors = [0.021, 0.13, 0.25, 0.33, 0.5, 0.61, 0.699, 0.85, 1.3, 1.7, 2.0, 3.1]
        func shrunk() throws -> [GrayBytes] { try factors.map { try gray.scaled(by: $0).grayBytes() } }
        let own = PixImage.useOwnAreaMapScaling(true)
        defer { PixImage.useOwnAreaMapScaling(true) }
        let ours = try shrunk()
        #expect(own == (ProcessInfo.processInfo.environment["SHELFSCAN_SCALE_AREA"] == "off" ? .library : .own))
        #expect(PixImage.areaMapScalingChecks.differed == 0)
        #expect(PixImage.useOwnAreaMapScaling(false) == .library)
        let theirs = try shrunk()
        for (a, b) in zip(ours, theirs) {
            #expect(a.width == b.width && a.height == b.height)
            #expect(a.pixels == b.pixels)
        }
        // A third of the size: each pixel the mean of about nine, so the picture's mean survives;
        // 1.7 times: each pixel between its neighbours, the mean again.
        let third = ours[3], larger = ours[9]
        #expect(abs(larger.width - Int((Double(gray.width) * 1.7).rounded())) <= 1)
        #expect(abs(third.width - Int((Double(gray.width) * 0.33).rounded())) <= 1)
        let bytes = try gray.grayBytes()
        let mean = { (p: [UInt8]) in Double(p.reduce(0) { $0 + Int($1) }) / Double(p.count) }
        #expect(abs(mean(third.pixels) - mean(bytes.pixels)) < 3)
        #expect(abs(mean(larger.pixels) - mean(bytes.pixels)) < 3)
    }
}

extension AreaMapScalingTests {
    @Test("Leptonica's own pixScale (Tesseract's scaling of each line) reaches the executable's steps: area map and unsharp mask of 1, interpolation and unsharp mask of 2, the same pixels as Leptonica's own steps")
    func leptonicaReachesThem() throws {
        guard PixImage.useOwnAreaMapScaling(true) == .own else { return }  // SHELFSCAN_SCALE_AREA=off
        var bytes = SeededBytes(seed: 77)
        let gray = try PixImage(gray: bytes.grays(width: 301, height: 67, low: 0, high: 255))
        for factor: Float in [0.45, 0.9] {
            let before = shelfscan_scale_steps_here()
            let made = try #require(gray.withPix { pixScale($0, factor, factor) })
            // Two steps each: the scaling and its sharpening.
            #expect(shelfscan_scale_steps_here() - before >= 2)
            let own = try PixImage(owning: made).grayBytes()
            PixImage.useOwnAreaMapScaling(false)
            defer { PixImage.useOwnAreaMapScaling(true) }
            let theirs = try #require(gray.withPix { pixScale($0, factor, factor) })
            let library = try PixImage(owning: theirs).grayBytes()
            #expect(own.width == library.width && own.height == library.height)
            #expect(own.pixels == library.pixels)
        }
    }

    @Test("the ranks of a picture's grays from the executable's histogram: Leptonica's pixGetRankValue, every width's padding")
    func ranks() throws {
        for (w, h, seed) in [(1, 1, 1), (3, 7, 2), (4, 4, 3), (5, 9, 4), (37, 11, 5), (640, 93, 6)] as [(Int, Int, UInt64)] {
            var bytes = SeededBytes(seed: seed)
            let gray = try PixImage(gray: bytes.grays(width: w, height: h, low: UInt8(seed * 20), high: 250))
            let fractions = [0.0, 0.01, 0.25, 0.5, 0.99, 1.0]
            let ranks = try #require(gray.ranks(fractions))
            for (fraction, rank) in zip(fractions, ranks) {
                var value: UInt32 = 0
                #expect(gray.withPix { pixGetRankValue($0, 1, Float(fraction), &value) } == 0)
                #expect(UInt32(rank) == min(255, value), "\(w)x\(h) at \(fraction)")
            }
            // The counts themselves, bin by bin.
            var own = gray.withPix { shelfscan_gray_histogram($0) }
            var library = gray.withPix { pixGetGrayHistogram($0, 1) }
            defer { numaDestroy(&own); numaDestroy(&library) }
            try #require(own != nil && library != nil)
            for bin in 0..<256 {
                var a: Float = 0, b: Float = 0
                numaGetFValue(own, Int32(bin), &a)
                numaGetFValue(library, Int32(bin), &b)
                #expect(a == b, "\(w)x\(h) bin \(bin)")
            }
        }
    }
}

@Suite("Gray crops from the whole picture's gray")
struct GrayCropTests {
    @Test("a crop of the whole photo's gray is the gray of the crop: luminance and darkest channel, edges clamped")
    func sameAsCroppingFirst() throws {
        let image = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image
        #expect(image.depth == 32)
        let boxes = [
            BoundingBox(x: 0, y: 0, width: 37, height: 300), BoundingBox(x: 101, y: 57, width: 213, height: 91),
            BoundingBox(x: image.width - 50, y: image.height - 40, width: 80, height: 90),
            BoundingBox(x: -10, y: 13, width: 33, height: 1),
        ]
        for box in boxes {
            for darkest in [false, true] {
                let crop = try image.cropped(to: box)
                let first = try (darkest ? crop.darkestChannel() : crop.grayscale()).grayBytes()
                let whole = try image.grayCrop(box, darkest: darkest).grayBytes()
                #expect(whole.width == first.width && whole.height == first.height)
                #expect(whole.pixels == first.pixels)
            }
        }
        // Luminance and darkest channel differ on a colour shelf: the two wholes are kept apart.
        #expect(try image.grayCrop(boxes[1]).grayBytes().pixels != image.grayCrop(boxes[1], darkest: true).grayBytes().pixels)
    }
}

extension GrayCropTests {
    /// Leptonica's own conversion's bytes, padding included, and its resolution.
    static func words(_ pix: UnsafeMutablePointer<Pix>) -> [UInt32] {
        let n = Int(pixGetWpl(pix)) * Int(pixGetHeight(pix))
        return Array(UnsafeBufferPointer(start: pixGetData(pix), count: n)) + [UInt32(pixGetXRes(pix)), UInt32(pixGetYRes(pix))]
    }

    @Test("colour to gray by the executable (luminance, darkest channel): Leptonica's bytes, every width's tail, random colours and a photo")
    func ownConversions() throws {
        var random = SplitMix64(state: 41)
        var pictures: [PixImage] = []
        for (w, h) in [(1, 1), (3, 2), (7, 5), (8, 3), (9, 9), (31, 4), (64, 17), (203, 11)] {
            let pix = try #require(pixCreate(Int32(w), Int32(h), 32))
            let data = try #require(pixGetData(pix))
            for k in 0..<(Int(pixGetWpl(pix)) * h) { data[k] = UInt32(truncatingIfNeeded: random.next()) }
            pixSetResolution(pix, Int32(w * 3), Int32(h * 5))
            pictures.append(PixImage(owning: pix))
        }
        pictures.append(try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-mixed.jpg")).image)
        for picture in pictures {
            #expect(picture.depth == 32)
            let luminance = try picture.grayscale(), darkest = try picture.darkestChannel()
            let theirs = try #require(picture.withPix { pixConvertRGBToLuminance($0) })
            let theirDarkest = try #require(picture.withPix { pixConvertRGBToGrayMinMax($0, Int32(L_CHOOSE_MIN)) })
            defer { var a: UnsafeMutablePointer<Pix>? = theirs, b: UnsafeMutablePointer<Pix>? = theirDarkest; pixDestroy(&a); pixDestroy(&b) }
            #expect(luminance.withPix { Self.words($0) } == Self.words(theirs), "\(picture.width)x\(picture.height)")
            #expect(darkest.withPix { Self.words($0) } == Self.words(theirDarkest), "\(picture.width)x\(picture.height)")
        }
    }
}

extension RotationTests {
    @Test("quarter turns of gray by the executable, both ways: Leptonica's pixRotate90 bytes, padding and resolution, every width and height's tail")
    func quarterTurns() throws {
        var bytes = SeededBytes(seed: 19)
        for (w, h) in [(1, 1), (1, 6), (5, 1), (3, 3), (4, 4), (5, 7), (8, 8), (9, 13), (17, 6), (33, 47), (301, 122)] {
            let gray = try PixImage(gray: bytes.grays(width: w, height: h))
            gray.withPix { _ = pixSetResolution($0, 150, 300) }
            for direction: Int32 in [1, -1] {
                let own = try #require(gray.withPix { shelfscan_rotate90($0, direction) })
                let library = try #require(gray.withPix { pixRotate90($0, direction) })
                defer { var a: UnsafeMutablePointer<Pix>? = own, b: UnsafeMutablePointer<Pix>? = library; pixDestroy(&a); pixDestroy(&b) }
                #expect(pixGetWidth(own) == Int32(h) && pixGetHeight(own) == Int32(w))
                #expect(GrayCropTests.words(own) == GrayCropTests.words(library), "\(w)x\(h) turned \(direction)")
            }
            // Through rotated(quarterTurns:), a whole turn round comes back.
            let round = try gray.rotated(quarterTurns: 1).rotated(quarterTurns: 3)
            #expect(try round.grayBytes().pixels == gray.grayBytes().pixels)
        }
    }
}

extension GrayCropTests {
    @Test("crops by the executable, gray and colour, every start and width within a word: Leptonica's pixClipRectangle words, padding, resolution and text")
    func ownCrops() throws {
        var random = SplitMix64(state: 23)
        for depth: Int32 in [8, 32] {
            let (w, h) = (53, 29)
            let pix = try #require(pixCreate(Int32(w), Int32(h), depth))
            let data = try #require(pixGetData(pix))
            for k in 0..<(Int(pixGetWpl(pix)) * h) { data[k] = UInt32(truncatingIfNeeded: random.next()) }
            pixSetResolution(pix, 200, 100)
            pixSetText(pix, "source")
            let picture = PixImage(owning: pix)
            for _ in 0..<60 {
                let x = Int(random.next() % UInt64(w)), y = Int(random.next() % UInt64(h))
                let bw = 1 + Int(random.next() % UInt64(w - x)), bh = 1 + Int(random.next() % UInt64(h - y))
                let own = try #require(picture.withPix { shelfscan_crop($0, Int32(x), Int32(y), Int32(bw), Int32(bh)) })
                let box = try #require(boxCreate(Int32(x), Int32(y), Int32(bw), Int32(bh)))
                let library = try #require(picture.withPix { pixClipRectangle($0, box, nil) })
                defer { var a: UnsafeMutablePointer<Pix>? = own, b: UnsafeMutablePointer<Pix>? = library, c: UnsafeMutablePointer<Box>? = box
                        pixDestroy(&a); pixDestroy(&b); boxDestroy(&c) }
                #expect(GrayCropTests.words(own) == GrayCropTests.words(library), "\(depth) bits, \(bw)x\(bh) at \(x),\(y)")
                #expect(pixGetSpp(own) == pixGetSpp(library) && pixGetInputFormat(own) == pixGetInputFormat(library))
                #expect(String(cString: pixGetText(own)) == "source")
            }
        }
    }
}

@Suite("Painting through a mask")
struct MaskedSettingTests {
    @Test("the executable's pixSetMasked and pixDistanceFunction give what Leptonica's do: random masks and blobs, and Tesseract's readings either way")
    func sameAsLeptonica() throws {
        guard let disagreements = PixImage.maskedSettingDisagreements(trials: 2000, seed: 9) else {
            // Another Leptonica than the one read: its own runs.
            #expect(PixImage.useOwnMaskedSetting(true) == .library)
            return
        }
        #expect(disagreements == 0)
        let own = PixImage.useOwnMaskedSetting(true)
        defer { PixImage.useOwnMaskedSetting(true) }
        #expect(own == (ProcessInfo.processInfo.environment["SHELFSCAN_SET_MASKED"] == "off" ? .library : .own))
        // Tesseract's stroke widths paint every blob through it while finding the lines.
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
            .grayscale().rotated(quarterTurns: 3)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let ours = try encoder.encode(try engine.recognize(shelf, layout: .block))
        #expect(PixImage.useOwnMaskedSetting(false) == .library)
        let theirs = try encoder.encode(try engine.recognize(shelf, layout: .block))
        #expect(ours == theirs)
    }
}

@Suite("Tesseract's local threshold")
struct TesseractSauvolaTests {
    @Test("the executable's pixSauvolaBinarizeTiled gives Leptonica's thresholds and bits, tiled or not; a locally thresholded reading checks itself against it")
    func sameAsLeptonica() throws {
        guard let disagreements = PixImage.tesseractSauvolaDisagreements(trials: 300, seed: 4) else {
            // No AVX2, or another Leptonica: its own runs.
            #expect(PixImage.tesseractSauvola == .library)
            return
        }
        #expect(disagreements == 0)
        #expect(PixImage.tesseractSauvola == (ProcessInfo.processInfo.environment["SHELFSCAN_TESSERACT_SAUVOLA"] == "library" ? .library : .own))
        // A reading with Tesseract's local threshold: its first pictures are thresholded both
        // ways and compared (the self-check), none differing; the reading reads.
        let engine = try TesseractEngine(tessdata: Fixtures.models)
        let shelf = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-english-ttb.jpg")).image
            .grayscale().rotated(quarterTurns: 3)
        let page = try engine.recognize(shelf, layout: .block, thresholding: .local)
        #expect(OCRSample.text(page).contains("Pride"), "read: \(OCRSample.text(page))")
        let checks = PixImage.tesseractSauvolaChecks
        if PixImage.tesseractSauvola == .own || checks.differed > 0 {
            #expect(checks.checked > 0)
            #expect(checks.differed == 0)
        }
    }
}
