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
