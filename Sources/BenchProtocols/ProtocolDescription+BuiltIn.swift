/// The protocols shipped as descriptions (`--protocol phoenix`, `--protocol actioncable`): each is what a user's file
/// would say, in the same lines.
extension ProtocolDescription {
    /// The built-in descriptions by name.
    public static let builtIn: [String: String] = ["phoenix": phoenix, "actioncable": actionCable]

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
}
