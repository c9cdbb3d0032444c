/// A chat run's deliveries as the columns of the ledger's rows: each sender's message of one round (its `sequence`)
/// goes to every other member of its room, one column each, the sender's columns side by side.
///
/// Sender `s`'s columns are `start(of: s) ..< start(of: s + 1)`, one per other member in ascending id order. A fan-out
/// broadcast is the same shape with one sender (the server) and every client a column.
public struct ChatColumns: Sendable, Equatable {
    public let rooms: ChatRooms
    /// Per sender (and one past the last): where its columns begin.
    public let columnStart: [Int]
    /// Per column: its sender and the member who receives it.
    public let senderOfColumn: [Int32]
    public let receiverOfColumn: [Int32]

    public init(_ rooms: ChatRooms) {
        self.rooms = rooms
        let clients = rooms.roomOfClient.count
        var start = [Int](repeating: 0, count: clients + 1)
        for client in 0..<clients { start[client + 1] = start[client] + rooms.roomSize(of: client) - 1 }
        columnStart = start
        var senders = [Int32](repeating: 0, count: start[clients])
        var receivers = [Int32](repeating: 0, count: start[clients])
        for sender in 0..<clients {
            var column = start[sender]
            for member in rooms.members(ofRoom: Int(rooms.roomOfClient[sender])) where Int(member) != sender {
                senders[column] = Int32(sender)
                receivers[column] = member
                column += 1
            }
        }
        senderOfColumn = senders
        receiverOfColumn = receivers
    }

    /// Columns of a round: every sender's deliveries.
    public var count: Int { columnStart[columnStart.count - 1] }

    /// The column of `sender`'s message to `member`; nil when `member` is not another member of `sender`'s room.
    @inline(__always)
    public func column(sender: Int, member: Int) -> Int? {
        let clients = rooms.roomOfClient.count
        guard sender >= 0, sender < clients, member >= 0, member < clients, sender != member,
            rooms.roomOfClient[sender] == rooms.roomOfClient[member]
        else { return nil }
        let (own, theirs) = (Int(rooms.placeInRoom[sender]), Int(rooms.placeInRoom[member]))
        return columnStart[sender] + (theirs < own ? theirs : theirs - 1)
    }

    /// The columns `member` receives: one per other member of its room.
    public func incomingColumns(of member: Int) -> [Int] {
        rooms.members(ofRoom: Int(rooms.roomOfClient[member])).compactMap { column(sender: Int($0), member: member) }
    }
}
