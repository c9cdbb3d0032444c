/// The measuring thread's end of a channel from a share of the subscribers (``SubscriberGroup``): the descriptor
/// (non-blocking) and the ids it carries. It carries echo frames and ``SubscriberReport``s.
struct SubscriberChannel: Sendable {
    let descriptor: Int32
    let ids: Range<Int>
    var isOpen = true

    init(descriptor: Int32, ids: Range<Int>) {
        self.descriptor = descriptor
        self.ids = ids
    }
}
