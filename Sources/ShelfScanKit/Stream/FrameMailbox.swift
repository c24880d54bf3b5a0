import Foundation

/// A small hand-over point between threads. In `.newest` mode a put never waits: when full, the
/// oldest item is dropped (a camera frame that could not be processed in time is stale anyway);
/// in `.every` mode a put waits for room, so a file is processed frame by frame at its own pace.
/// Either way at most `capacity` items are held: memory does not grow with the stream.
///
/// `@unchecked Sendable`: every stored property is touched only while `condition` is locked.
public final class FrameMailbox<Item: Sendable>: @unchecked Sendable {
    public enum Policy: Sendable { case newest, every }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private let capacity: Int
    private let policy: Policy
    /// Items dropped unprocessed because newer ones arrived.
    public private(set) var dropped = 0

    public init(capacity: Int, policy: Policy) {
        self.capacity = max(1, capacity)
        self.policy = policy
    }

    /// Hands `item` over; returns false when the mailbox was closed (the item is discarded).
    @discardableResult
    public func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while policy == .every && items.count >= capacity && !closed { condition.wait() }
        if closed { return false }
        if items.count >= capacity {
            items.removeFirst()
            dropped += 1
        }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The next item (for `.newest`, the latest one; older ones are counted as dropped), waiting
    /// for one; nil once the mailbox is closed and empty.
    public func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let item: Item
        if policy == .newest {
            item = items.removeLast()
            dropped += items.count
            items.removeAll()
        } else {
            item = items.removeFirst()
        }
        condition.broadcast()
        return item
    }

    /// No more puts; takers drain what is held, then get nil.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Items dropped so far, read under the lock.
    public var droppedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return dropped
    }
}
