/// The protocols shipped as descriptions (`--protocol phoenix`, `--protocol actioncable`, `--protocol graphql`): each
/// is what a user's file would say, in the same lines.
extension ProtocolDescription {
    /// The built-in descriptions by name.
    public static let builtIn: [String: String] = ["phoenix": phoenix, "actioncable": actionCable, "graphql": graphQL]

    /// Phoenix Channels, the V2 JSON serializer (`/socket/websocket?vsn=2.0.0`): every message an array
    /// `[join_ref, ref, topic, event, payload]`. Both roles join the topic (`--channel`); the join's reply makes the
    /// connection ready; the socket's heartbeat goes every 30 s, as phoenix.js sends it; the publisher pushes
    /// `new_msg` with the payload as its `body` (a channel whose `handle_in("new_msg", …)` broadcasts it to the topic).
    static let phoenix = """
        # Phoenix Channels, V2 JSON serializer: [join_ref, ref, topic, event, payload]
        send       ["1","1","{channel_json}","phx_join",{}]
        expect     "phx_reply"
        error      "status":"error"
        error      "phx_error"
        error      "phx_close"
        heartbeat  30s [null,"hb","phoenix","heartbeat",{}]
        publish    ["1","p","{channel_json}","new_msg",{"body":"{payload}"}]
        ignore     "phx_reply"
        """

    /// Rails ActionCable (`/cable`): the server's welcome, then a subscription to the channel whose identifier is
    /// `--channel` (JSON, as `{"channel":"ChatChannel"}`) and its confirmation; the server's pings (every 3 s) need no
    /// answer and are no deliveries; the publisher performs the channel's `speak` action with the payload as its
    /// `message` (a channel whose `speak` broadcasts it).
    static let actionCable = """
        # Rails ActionCable: welcome, subscribe, confirm_subscription; pings every 3 s
        expect     "type":"welcome"
        send       {"command":"subscribe","identifier":"{channel_json}"}
        expect     "type":"confirm_subscription"
        error      "type":"reject_subscription"
        error      "type":"disconnect"
        publish    {"command":"message","identifier":"{channel_json}","data":"{\\"action\\":\\"speak\\",\\"message\\":\\"{payload}\\"}"}
        ignore     "type":"ping"
        ignore     "type":"confirm_subscription"
        """

    /// GraphQL subscriptions over graphql-transport-ws (Apollo Server, GraphQL Yoga, Hasura, Strawberry…): the
    /// subprotocol `graphql-transport-ws`; `connection_init` with `--connection-params` (`{}` without) and its ack; the
    /// subscriber's subscription to the `--channel` document (its results, the `next` messages of the operation `s`,
    /// are the deliveries; the server ending it is an error); pings answered, and one sent every 30 s; the publisher's
    /// `--publish` mutation sent on the socket as an operation of its own, named by the message's id (each is answered
    /// and completed apart). The texts match compact JSON, as graphql-ws, Apollo, Hasura and Strawberry write it.
    static let graphQL = """
        # GraphQL over graphql-transport-ws: connection_init, subscribe, next, ping/pong, complete
        subprotocol graphql-transport-ws
        send       {"type":"connection_init","payload":{connection_params}}
        expect     "type":"connection_ack"
        subscriber send {"id":"s","type":"subscribe","payload":{"query":"{channel_json}"}}
        reply      "type":"ping" => {"type":"pong"}
        heartbeat  30s {"type":"ping"}
        error      "type":"error"
        error      "id":"s","type":"complete"
        deliver    "id":"s"
        ignore     "type":"complete"
        publish    {"id":"{message_id}","type":"subscribe","payload":{"query":"{payload_json}"}}
        """
}
