import Foundation

/// A growing window over a byte stream (a pipe, a file, or bytes in memory) that frame splitters
/// walk with offsets relative to the first unconsumed byte.
///
/// Reads are blocking `read(2)` calls in chunks; consumed bytes are dropped from the front now and
/// then, so the window never holds much more than one frame plus one chunk.
public final class ByteInput {
    private var buffer: [UInt8] = []
    /// Index in `buffer` of the first unconsumed byte.
    private var start = 0
    private let fileDescriptor: Int32?
    private let chunkSize: Int
    private var scratch: [UInt8] = []
    public private(set) var reachedEnd = false
    /// Bytes consumed so far (for messages and tests).
    public private(set) var consumed = 0

    /// Reads from an open file descriptor (standard input is 0). The descriptor is not closed.
    public init(fileDescriptor: Int32, chunkSize: Int = 1 << 18) {
        self.fileDescriptor = fileDescriptor
        self.chunkSize = chunkSize
    }

    /// Serves bytes held in memory (tests, and callers that already have the stream).
    public init(bytes: [UInt8]) {
        fileDescriptor = nil
        chunkSize = 0
        buffer = bytes
        reachedEnd = true
    }

    /// Unconsumed bytes currently held.
    public var available: Int { buffer.count - start }

    /// Makes at least `count` unconsumed bytes available, reading as needed; false when the
    /// stream ends first (whatever arrived stays available).
    @discardableResult
    public func ensure(_ count: Int) -> Bool {
        while available < count {
            if reachedEnd || !readChunk() { return false }
        }
        return true
    }

    /// The byte `offset` bytes past the first unconsumed one; nil past the end of the stream.
    @inline(__always)
    public func byte(at offset: Int) -> UInt8? {
        if offset >= available && !ensure(offset + 1) { return nil }
        return buffer[start + offset]
    }

    /// The first `count` unconsumed bytes (fewer at the end of the stream), consumed.
    public func take(_ count: Int) -> [UInt8] {
        ensure(count)
        let n = min(count, available)
        let bytes = Array(buffer[start..<start + n])
        skip(n)
        return bytes
    }

    /// Drops `count` bytes (fewer at the end of the stream).
    public func skip(_ count: Int) {
        ensure(count)
        let n = min(count, available)
        start += n
        consumed += n
    }

    /// Runs `body` over the unconsumed bytes held now (no read).
    public func withAvailable<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try buffer.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[start..<all.count]))
        }
    }

    /// The offset of the first occurrence of `pattern` at or after `from`, reading as far as needed;
    /// nil when the stream ends without one.
    public func find(_ pattern: [UInt8], from: Int = 0, within limit: Int = .max, where accept: ((Int) -> Bool)? = nil) -> Int? {
        var offset = from
        while true {
            if offset + pattern.count > limit { return nil }
            if available < offset + pattern.count && !ensure(offset + pattern.count) { return nil }
            let hit: Int? = withAvailable { bytes in
                var i = offset
                let last = bytes.count - pattern.count
                while i <= last {
                    if bytes[i] == pattern[0] {
                        var j = 1
                        while j < pattern.count && bytes[i + j] == pattern[j] { j += 1 }
                        if j == pattern.count { return i }
                    }
                    i += 1
                }
                offset = max(offset, last + 1)
                return nil
            }
            if let hit {
                if hit + pattern.count > limit { return nil }
                if accept?(hit) ?? true { return hit }
                offset = hit + 1
            }
        }
    }

    private func readChunk() -> Bool {
        guard let fd = fileDescriptor else { reachedEnd = true; return false }
        // Drop consumed bytes before growing: memory stays at about a frame plus a chunk.
        if start > 0 && (start >= buffer.count / 2 || start > 1 << 22) {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        // One read(2) into a fixed scratch chunk, then one append: a pipe hands over 64 KB at a
        // time, and growing the buffer by a whole frame per read would clear megabytes each time.
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: chunkSize) }
        var got = 0
        repeat {
            got = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        } while got < 0 && errno == EINTR
        guard got > 0 else {
            reachedEnd = true
            return false
        }
        buffer.append(contentsOf: scratch[0..<got])
        return true
    }
}
