import Foundation

/// Decides when a book seen in a stream is reported: after it has been seen in `confirmations`
/// different frames, once; again only after it has been out of view for `forgetAfter` seconds of
/// stream time (then it counts as a new arrival).
///
/// Books out of view that long are forgotten entirely, so the state is bounded by the books in
/// view recently, not by the length of the stream.
public struct SightingTracker: Sendable {
    public let confirmations: Int
    public let forgetAfter: Double

    struct Track {
        /// Distinct frames the book was seen in (at most `confirmations` kept).
        var frames: Set<Int>
        var lastSeen: Double
        var reported: Bool
    }

    private var tracks: [String: Track] = [:]

    public init(confirmations: Int = 2, forgetAfter: Double = 10) {
        self.confirmations = max(1, confirmations)
        self.forgetAfter = forgetAfter
    }

    /// Books currently remembered (in view or recently so).
    public var remembered: Int { tracks.count }

    /// Records that the books named by `keys` were seen in frame `frame` at stream time `time`
    /// (seconds) and returns the keys confirmed by this sighting, in the order given.
    public mutating func observe(_ keys: [String], frame: Int, time: Double) -> [String] {
        forget(before: time)
        var confirmed: [String] = []
        for key in Set(keys).sorted(by: { keys.firstIndex(of: $0)! < keys.firstIndex(of: $1)! }) {
            var track = tracks[key] ?? Track(frames: [], lastSeen: time, reported: false)
            track.lastSeen = max(track.lastSeen, time)
            if !track.reported {
                track.frames.insert(frame)
                if track.frames.count >= confirmations {
                    track.reported = true
                    track.frames.removeAll()
                    confirmed.append(key)
                }
            }
            tracks[key] = track
        }
        return confirmed
    }

    /// Forgets books not seen for longer than `forgetAfter` before `time`.
    public mutating func forget(before time: Double) {
        tracks = tracks.filter { time - $0.value.lastSeen <= forgetAfter }
    }

    /// True when `key` has been seen but not yet confirmed (so another look is worth it).
    public func isPending(_ key: String) -> Bool {
        tracks[key].map { !$0.reported } ?? false
    }
}

/// Percentiles over a stream of durations in fixed memory: logarithmic buckets 2% wide from
/// 0.01 ms to about 17 minutes.
public struct LatencyHistogram: Sendable {
    private static let base = 0.01
    private static let step = 1.02
    private var counts = [Int](repeating: 0, count: 1024)
    public private(set) var count = 0

    public init() {}

    public mutating func record(milliseconds: Double) {
        let ratio = max(milliseconds, Self.base) / Self.base
        let index = min(counts.count - 1, Int(log(ratio) / log(Self.step)))
        counts[index] += 1
        count += 1
    }

    /// The value below which `fraction` of the recorded durations fall (the bucket's middle); nil
    /// when nothing was recorded.
    public func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, n) in counts.enumerated() where n > 0 {
            seen += n
            if seen >= rank { return Self.base * pow(Self.step, Double(index) + 0.5) }
        }
        return nil
    }
}
