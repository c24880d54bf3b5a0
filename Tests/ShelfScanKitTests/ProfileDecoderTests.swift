import Foundation
import Testing
@testable import ShelfScanKit

/// A scan line across a printed EAN-13, drawn the way a camera sees it: each pixel the share
/// of bar it covers, softened by blur, with sensor noise.
enum ScanLine {
    static func render(_ digits: String, start: Double, module: Double, width: Int, blur: Double, seed: UInt64) -> [UInt8] {
        let bars = ProfileDecoder.modules(of: digits)!
        func coverage(_ a: Double, _ b: Double) -> Double {
            // Share of [a, b) covered by bars.
            var covered = 0.0
            for (i, bar) in bars.enumerated() where bar {
                let lo = max(a, start + Double(i) * module), hi = min(b, start + Double(i + 1) * module)
                if hi > lo { covered += hi - lo }
            }
            return covered / (b - a)
        }
        let sharp = (0..<width).map { coverage(Double($0), Double($0 + 1)) }
        let radius = Int((3 * blur).rounded(.up))
        var noise = SeededBytes(seed: seed)
        return (0..<width).map { x in
            var sum = 0.0, weight = 0.0
            for dx in -radius...radius where (0..<width).contains(x + dx) {
                let w = blur > 0 ? exp(-Double(dx * dx) / (2 * blur * blur)) : (dx == 0 ? 1 : 0)
                sum += w * sharp[x + dx]; weight += w
            }
            let ink = sum / weight
            let level = 225 - 180 * ink + Double(Int(noise.next() % 21) - 10)
            return UInt8(max(0, min(255, level.rounded())))
        }
    }
}

@Suite("Grid reading of scan lines (ProfileDecoder)")
struct ProfileDecoderTests {
    @Test("an EAN-13's 95 modules: guards in place, two bars per digit")
    func modules() throws {
        let m = try #require(ProfileDecoder.modules(of: "9780441014989"))
        #expect(m.count == 95)
        #expect(Array(m[0..<3]) == [true, false, true])
        #expect(Array(m[45..<50]) == [false, true, false, true, false])
        #expect(Array(m[92..<95]) == [true, false, true])
        let bars = zip(m, [false] + m.dropLast()).filter { $0.0 && !$0.1 }.count
        #expect(bars == 2 + 2 + 2 + 12 * 2)
        #expect(ProfileDecoder.modules(of: "97804410149") == nil)
    }

    @Test("reads the code a line crosses, from a hint covering only half of it",
          arguments: [("9780441014989", 2.2, 0.8), ("0023942431015", 2.9, 1.0), ("5000213002834", 1.6, 0.6),
                      ("9784872348880", 3.5, 1.4)])
    func readsLine(_ digits: String, _ module: Double, _ blur: Double) throws {
        let start = 37.0
        let row = ScanLine.render(digits, start: start, module: module, width: Int(start + 120 * module), blur: blur, seed: 7)
        // ZBar's points can span only the left half of the code.
        let hint = start...(start + 48 * module)
        let length = hint.upperBound - hint.lowerBound
        let decoder = ProfileDecoder(brightness: row, hint: hint, modules: (0.8 * length / 95)...(2.6 * length / 95))
        let reading = try #require(decoder.read())
        #expect(reading.digits == digits)
        #expect(abs(reading.grid.start - start) < module)
        #expect(abs(reading.grid.module - module) < 0.05 * module)
    }

    @Test("a weak decode that its own lines contradict is replaced by what they read")
    func rivalReplaces() throws {
        let truth = "0023942431015", misread = "9074932437075"
        let rows = (0..<4).map { ScanLine.render(truth, start: 20, module: 2.9, width: 340, blur: 1, seed: UInt64($0)) }
        // ZBar's points covered the left half only, as they did on the real photo.
        let profiles = BarcodeReader.ScanProfiles(rows: rows, hint: 20...160)
        let claimed = Barcode(symbology: .ean13, digits: misread, addOn: nil, box: BoundingBox(x: 0, y: 0, width: 140, height: 10),
                              scanLines: 4, pass: "region-direct")
        guard case .rival(let rival) = BarcodeReader.profileVerdict(of: claimed, profiles) else {
            Issue.record("the misread was not contradicted")
            return
        }
        #expect(rival.digits == truth)
        #expect(rival.symbology == .upcA)
        // The right code is held by the same lines.
        let right = Barcode(symbology: .upcA, digits: truth, addOn: nil, box: claimed.box, scanLines: 4, pass: "region-direct")
        guard case .agrees = BarcodeReader.profileVerdict(of: right, profiles) else {
            Issue.record("the right code was not held by its lines")
            return
        }
    }

    @Test("one line alone, or lines of noise, decide nothing")
    func needsAgreement() throws {
        let claimed = Barcode(symbology: .ean13, digits: "9074932437075", addOn: nil, box: BoundingBox(x: 0, y: 0, width: 140, height: 10),
                              scanLines: 4, pass: "direct")
        let one = [ScanLine.render("0023942431015", start: 20, module: 2.9, width: 340, blur: 1, seed: 1)]
        let noisyRow: (UInt64) -> [UInt8] = { seed in var g = SeededBytes(seed: seed); return g.bytes(340) }
        for rows in [one, (1...4).map(noisyRow)] {
            guard case .unclear = BarcodeReader.profileVerdict(of: claimed, .init(rows: rows, hint: 20...160)) else {
                Issue.record("\(rows.count) line(s) decided alone")
                continue
            }
        }
    }

    /// upca-4/6: ZBar's misread 9074932437075 (four scan lines, no other view reads anything);
    /// upca-4/15: a right weak code whose darker view gives another code.
    @Test("real weak decodes of the shared corpus come out as the printed code",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"),
          arguments: ["upca-4/6", "upca-4/15"])
    func realWeakDecodes(_ name: String) throws {
        let directory = Fixtures.sharedCorpora + "/barcodes"
        let record = try #require(try TruthRecord.load(directory: directory).first { $0.image == name + ".png" })
        let image = try ImageLoader().load(path: directory + "/" + record.image).image
        let codes = try BarcodeReader().read(image).barcodes.map(\.digits)
        #expect(codes == record.expectedCodes.map(\.main))
    }
}
