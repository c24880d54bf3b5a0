import CZBar

/// One symbol as ZBar reported it, before checksum and canonical-form checks.
struct RawSymbol: Sendable {
    /// ZBar's type: EAN-13, UPC-A, UPC-E, EAN-8, EAN-2, EAN-5 (composites are split into parts).
    let type: zbar_symbol_type_t
    let data: String
    /// How many scan lines agreed on this decode.
    let quality: Int
    /// Where the scan lines crossed the symbol, in the scanned image's pixels.
    let points: [(x: Int, y: Int)]
    /// The add-on that ZBar tied to this symbol in a composite, if any.
    var addOn: String?
}

/// Owns a ZBar image scanner configured for the EAN/UPC family with EAN-2/EAN-5 add-ons.
/// Not thread-safe: one per worker. The corresponding C type is `zbar_image_scanner_t`.
final class ZBarScanner {
    private let scanner: OpaquePointer
    private static let y800 = zbar_fourcc_parse("Y800")

    /// - Parameter density: scan every `density`-th row and column (1 = every line).
    init(density: Int = 1) {
        zbar_set_verbosity(0)
        scanner = zbar_image_scanner_create()
        // Everything off, then only what books and groceries carry. Fewer decoders: faster,
        // and no Code 39 / DataBar misreads in text and wood grain.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for symbology in [ZBAR_EAN13, ZBAR_UPCA, ZBAR_UPCE, ZBAR_EAN8, ZBAR_EAN2, ZBAR_EAN5] {
            zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_ENABLE, 1)
        }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(density))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(density))
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// Scans one 8-bit gray image. The corresponding C function is `zbar_scan_image`.
    func scan(_ gray: GrayBytes) -> [RawSymbol] {
        guard gray.width > 0, gray.height > 0 else { return [] }
        let image = zbar_image_create()!
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, ZBarScanner.y800)
        zbar_image_set_size(image, UInt32(gray.width), UInt32(gray.height))
        return gray.pixels.withUnsafeBufferPointer { buffer -> [RawSymbol] in
            // ZBar borrows the buffer only for the duration of zbar_scan_image.
            zbar_image_set_data(image, buffer.baseAddress, UInt(buffer.count), nil)
            let found = zbar_scan_image(scanner, image)
            guard found > 0 else { return [] }
            var out: [RawSymbol] = []
            var symbol = zbar_image_first_symbol(image)
            while let s = symbol {
                out.append(contentsOf: ZBarScanner.flatten(s))
                symbol = zbar_symbol_next(s)
            }
            zbar_image_set_data(image, nil, 0, nil)
            return out
        }
    }

    private static func flatten(_ s: OpaquePointer) -> [RawSymbol] {
        let type = zbar_symbol_get_type(s)
        if type == ZBAR_COMPOSITE, let set = zbar_symbol_get_components(s) {
            var parts: [RawSymbol] = []
            var c = zbar_symbol_set_first_symbol(set)
            while let part = c {
                parts.append(contentsOf: flatten(part))
                c = zbar_symbol_next(part)
            }
            let addOn = parts.first { $0.type == ZBAR_EAN2 || $0.type == ZBAR_EAN5 }
            return parts.filter { $0.type != ZBAR_EAN2 && $0.type != ZBAR_EAN5 }.map {
                var main = $0
                main.addOn = addOn?.data
                return main
            } + (addOn.map { [$0] } ?? [])
        }
        let data = String(cString: zbar_symbol_get_data(s))
        let n = Int(zbar_symbol_get_loc_size(s))
        var points: [(x: Int, y: Int)] = []
        points.reserveCapacity(n)
        for i in 0..<n {
            points.append((Int(zbar_symbol_get_loc_x(s, UInt32(i))), Int(zbar_symbol_get_loc_y(s, UInt32(i)))))
        }
        return [RawSymbol(type: type, data: data, quality: Int(zbar_symbol_get_quality(s)), points: points, addOn: nil)]
    }
}
