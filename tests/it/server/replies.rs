//! Replies on their way out: a heavy call's turn (`max_heavy_calls`) stays taken until its
//! reply has been read, on XML-RPC, JSON-RPC over HTTP and over WebSocket; a client reading a
//! big reply slower than `min_read_bytes_per_sec` is cut off and its turn given back; a reply
//! over `max_reply_bytes` is error -32013 naming the limit on every wire, batches included.
//!
//! The big replies are `sgf.parse` of a one-node record with a 12 MB comment: little work
//! (a scan of the text) for a reply bigger than every buffer between the daemon and a client
//! that reads nothing, which holds it in the daemon for as long as the test wants.

use crate::common;

use std::time::Duration;

use common::{Server, call_xml};
use goswiss::config::Config;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A record whose `sgf.parse` reply is about `n` bytes.
fn big_record(n: usize) -> String {
    format!("(;C[{}])", "x".repeat(n))
}

const BIG: usize = 12 << 20;

/// One heavy turn, a budget of 2 s (a call waiting for the turn is answered -32012 then), room
/// for the big record, and no slow-reader cut-off (the test decides when to read).
fn one_turn() -> Config {
    Config {
        max_heavy_calls: 1,
        request_budget_ms: 2000,
        max_body_bytes: 32 << 20,
        write_timeout_secs: 600,
        min_read_bytes_per_sec: 0,
        ws_ping_secs: 0,
        ..Config::default()
    }
}

/// A connection whose receive buffer is small, so that the daemon's writes wait on it.
async fn small_reader(server: &Server) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(server.addr).await.unwrap()
}

fn http_post(path: &str, content_type: &str, body: &str) -> Vec<u8> {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body.as_bytes());
    req
}

/// Opens a JSON-RPC WebSocket session by hand (the test must be able to stop reading in the
/// middle of a message).
async fn ws_session(server: &Server) -> TcpStream {
    let mut s = small_reader(server).await;
    s.write_all(
        b"GET /jsonrpc HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\
          Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
          Sec-WebSocket-Version: 13\r\n\r\n",
    )
    .await
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).await.unwrap(), 1, "handshake cut short");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    s
}

/// Sends one masked text frame.
async fn ws_send(s: &mut TcpStream, text: &str) {
    let payload = text.as_bytes();
    let mut frame = vec![0x81u8];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= 0xFFFF => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&frame).await.unwrap();
}

/// Reads one whole message (the frames up to one with FIN) and returns its payload.
async fn ws_message(s: &mut TcpStream) -> Vec<u8> {
    let mut message = Vec::new();
    loop {
        let mut head = [0u8; 2];
        s.read_exact(&mut head).await.unwrap();
        let len = match head[1] & 0x7F {
            126 => u64::from(s.read_u16().await.unwrap()),
            127 => s.read_u64().await.unwrap(),
            n => u64::from(n),
        };
        let mut payload = vec![0u8; len as usize];
        s.read_exact(&mut payload).await.unwrap();
        message.extend_from_slice(&payload);
        if head[0] & 0x80 != 0 {
            return message;
        }
    }
}

fn json_call(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

/// A small heavy call, answered at once when the turn is free and -32012 when it stays taken
/// for the whole budget.
async fn small_parse(server: &Server) -> Value {
    server.jsonrpc("sgf.parse", json!(["(;B[aa])"])).await
}

/// Reads a reply's head: its body's length (`Content-Length`).
async fn reply_head(s: &mut TcpStream) -> usize {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(60), s.read(&mut byte))
            .await
            .expect("a reply within 60 s")
            .unwrap();
        assert_eq!(
            n,
            1,
            "closed in the head: {:?}",
            String::from_utf8_lossy(&head)
        );
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    head.lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no length: {head}"))
}

/// Reads a WebSocket frame's head: its payload's length.
async fn frame_head(s: &mut TcpStream) -> usize {
    let mut head = [0u8; 2];
    tokio::time::timeout(Duration::from_secs(60), s.read_exact(&mut head))
        .await
        .expect("a reply within 60 s")
        .unwrap();
    assert_eq!(head[0], 0x81, "one whole text frame");
    match head[1] & 0x7F {
        126 => usize::from(s.read_u16().await.unwrap()),
        127 => s.read_u64().await.unwrap() as usize,
        n => usize::from(n),
    }
}

/// While `reader`'s big reply (`len` bytes still to read) is unread the turn stays taken: a
/// small heavy call waits for it all its budget; once the reply has been read the turn is
/// free again.
async fn the_turn_waits_for(server: &Server, reader: &mut TcpStream, len: usize) {
    assert!(len > BIG, "a reply of {len} bytes");
    let waited = small_parse(server).await;
    assert_eq!(
        waited["error"]["code"],
        json!(-32012),
        "a heavy call got the turn while a big reply was still unread: {waited}"
    );
    let mut rest = vec![0u8; len];
    tokio::time::timeout(Duration::from_secs(60), reader.read_exact(&mut rest))
        .await
        .expect("the reply within 60 s")
        .unwrap();
    let free = small_parse(server).await;
    assert!(
        free["result"].is_object(),
        "the turn was not given back: {free}"
    );
}

#[tokio::test]
async fn a_heavy_calls_turn_is_held_until_its_reply_is_read() {
    let server = Server::start_with(one_turn()).await;
    let record = big_record(BIG);

    // XML-RPC: the reply's head shows the work is done and the reply on its way.
    let mut xml = small_reader(&server).await;
    let body = call_xml("sgf.parse", &[&format!("<string>{record}</string>")]);
    xml.write_all(&http_post("/RPC2", "text/xml", &body))
        .await
        .unwrap();
    let len = reply_head(&mut xml).await;
    the_turn_waits_for(&server, &mut xml, len).await;

    // JSON-RPC over HTTP.
    let mut http = small_reader(&server).await;
    let body = json_call("sgf.parse", json!([record]));
    http.write_all(&http_post("/jsonrpc", "application/json", &body))
        .await
        .unwrap();
    let len = reply_head(&mut http).await;
    the_turn_waits_for(&server, &mut http, len).await;

    // JSON-RPC over WebSocket: the frame's head has come.
    let mut ws = ws_session(&server).await;
    ws_send(&mut ws, &body).await;
    let len = frame_head(&mut ws).await;
    the_turn_waits_for(&server, &mut ws, len).await;

    // The session goes on: a reply read frame by frame is the whole answer.
    ws_send(&mut ws, &json_call("sgf.parse", json!(["(;B[aa])"]))).await;
    let reply: Value = serde_json::from_slice(&ws_message(&mut ws).await).unwrap();
    assert!(reply["result"].is_object(), "{reply}");
    server.stop().await;
}

/// Reads `s` 1 KiB every 100 ms (10 KiB/s however fast the machine, and never a pause as long
/// as the write timeout, 600 s here, which is not what cuts it off) until the daemon closes
/// it: the bytes read, or a failure if it is still open after 1,200 reads.
async fn trickle(s: &mut TcpStream) -> usize {
    let mut got = 0usize;
    let mut buf = [0u8; 1024];
    for _ in 0..1200 {
        match tokio::time::timeout(Duration::from_secs(60), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return got,
            Ok(Ok(n)) => got += n,
            Err(_) => panic!("the daemon neither sent nor closed for 60 s"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("a client reading 10 KiB/s was not cut off (read {got} bytes)");
}

#[tokio::test]
async fn a_client_that_reads_too_slowly_is_cut_off_and_its_turn_given_back() {
    let server = Server::start_with(Config {
        min_read_bytes_per_sec: 64 << 10,
        min_read_window_secs: 2,
        ..one_turn()
    })
    .await;
    let record = big_record(BIG);
    let body = json_call("sgf.parse", json!([record]));
    // Over HTTP.
    let mut slow = small_reader(&server).await;
    slow.write_all(&http_post("/jsonrpc", "application/json", &body))
        .await
        .unwrap();
    let got = trickle(&mut slow).await;
    assert!(got < BIG, "the whole reply was sent");
    // Its reply is gone, and with it the turn.
    let free = small_parse(&server).await;
    assert!(free["result"].is_object(), "{free}");
    // Over WebSocket: the session ends, and its turn comes back.
    let mut ws = ws_session(&server).await;
    ws_send(&mut ws, &body).await;
    let got = trickle(&mut ws).await;
    assert!(got < BIG, "the whole message was sent");
    let free = small_parse(&server).await;
    assert!(free["result"].is_object(), "{free}");
    // A client that reads at once gets the whole reply under the same minimum.
    let reply = server.jsonrpc("sgf.parse", json!([record])).await;
    assert!(reply["result"].is_object(), "{}", &reply.to_string()[..200]);
    server.stop().await;
}

/// The daemon with a 100,000-byte reply limit.
async fn capped() -> Server {
    Server::start_with(Config {
        max_reply_bytes: 100_000,
        ws_ping_secs: 0,
        ..Config::default()
    })
    .await
}

const CAP_MESSAGE: &str = "the reply exceeds max_reply_bytes (100000 bytes)";

#[tokio::test]
async fn a_reply_over_max_reply_bytes_is_an_error_naming_it_on_every_wire() {
    let server = capped().await;
    let c = common::client();
    let big = "y".repeat(150_000);
    let small = "y".repeat(50_000);
    // XML-RPC: a value answer, an encoded answer (sgf.parse), a multicall's.
    for (method, params) in [
        ("system.echo", vec![format!("<string>{big}</string>")]),
        (
            "sgf.parse",
            vec![format!("<string>{}</string>", big_record(150_000))],
        ),
        (
            "system.multicall",
            vec![common::rpc::xml_value(&json!([
                {"methodName": "system.echo", "params": [small]},
                {"methodName": "system.echo", "params": [small]},
                {"methodName": "system.echo", "params": [small]}
            ]))],
        ),
    ] {
        let refs: Vec<&str> = params.iter().map(String::as_str).collect();
        let reply = common::xml_post(&c, &server.url("/RPC2"), call_xml(method, &refs)).await;
        assert_eq!(
            common::parse_fault(&reply),
            Some((-32013, CAP_MESSAGE.to_string())),
            "{method}: {}",
            &reply[..reply.len().min(300)]
        );
    }
    let reply = common::xml_post(
        &c,
        &server.url("/RPC2"),
        call_xml("system.echo", &[&format!("<string>{small}</string>")]),
    )
    .await;
    assert!(reply.contains(&small), "a reply under the limit");

    // JSON-RPC over HTTP, and over WebSocket: the error keeps the call's id.
    let mut ws = ws_session(&server).await;
    for (method, params) in [
        ("system.echo", json!([big])),
        ("sgf.parse", json!([big_record(150_000)])),
    ] {
        let http = server.jsonrpc(method, params.clone()).await;
        assert_eq!(
            http,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32013, "message": CAP_MESSAGE, "data": {"max_reply_bytes": 100_000}}}),
            "{method}"
        );
        ws_send(&mut ws, &json_call(method, params)).await;
        let over_ws: Value = serde_json::from_slice(&ws_message(&mut ws).await).unwrap();
        assert_eq!(over_ws, http, "{method} over WebSocket");
    }
    let ok = server.jsonrpc("system.echo", json!([small])).await;
    assert_eq!(ok["result"], json!(small));

    // A batch: an entry over the limit is that entry's error; replies over it together are
    // one error for the batch.
    let batch = |calls: Vec<Value>| {
        let c = c.clone();
        let url = server.url("/jsonrpc");
        async move {
            c.post(url)
                .json(&Value::Array(calls))
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let echo = |id: i64, s: &str| json!({"jsonrpc": "2.0", "id": id, "method": "system.echo", "params": [s]});
    let one_over = batch(vec![echo(1, "a"), echo(2, &big), echo(3, "c")]).await;
    assert_eq!(
        one_over,
        json!([
            {"jsonrpc": "2.0", "id": 1, "result": "a"},
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32013, "message": CAP_MESSAGE, "data": {"max_reply_bytes": 100_000}}},
            {"jsonrpc": "2.0", "id": 3, "result": "c"}
        ])
    );
    let together = batch(vec![echo(1, &small), echo(2, &small), echo(3, &small)]).await;
    assert_eq!(
        together,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32013, "message": CAP_MESSAGE, "data": {"max_reply_bytes": 100_000}}})
    );
    server.stop().await;
}

/// A batch keeps its turn between its heavy calls, but not while it waits on a tournament's
/// lock: that lock's holder may be waiting for the turn. Here, with one turn and no budget
/// (nothing would ever time out), batch A takes the turn for a parse, then reads tournament
/// X, whose big checkout (call B) holds X's lock while it waits for a turn. Had A kept its
/// turn, neither could go on.
#[tokio::test]
async fn a_batch_gives_its_turn_back_before_waiting_on_a_tournament() {
    let server = Server::start_with(Config {
        request_budget_ms: 0,
        ..one_turn()
    })
    .await;
    // Over 512 players: X's first checkout pairs them on the blocking pool, with a turn.
    let players: Vec<u32> = (1..=600).collect();
    let x = server
        .ok("matchmaker.create_tournament", json!([players]))
        .await;
    // The turn is held by a big reply nobody reads yet.
    let mut holder = small_reader(&server).await;
    let body = json_call("sgf.parse", json!([big_record(BIG)]));
    holder
        .write_all(&http_post("/jsonrpc", "application/json", &body))
        .await
        .unwrap();
    let len = reply_head(&mut holder).await;
    // A: a marker tournament (2), a parse that waits for the turn, then a read of X.
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "matchmaker.create_tournament", "params": [[1, 2]]},
        {"jsonrpc": "2.0", "id": 2, "method": "sgf.parse", "params": ["(;B[aa])"]},
        {"jsonrpc": "2.0", "id": 3, "method": "matchmaker.round", "params": [x]},
    ]);
    let url = server.url("/jsonrpc");
    let a = tokio::spawn(async move {
        let reply = common::client().post(url).json(&batch).send().await?;
        reply.json::<Value>().await
    });
    let mut started = false;
    for _ in 0..600 {
        if server.call("matchmaker.round", json!([2])).await.is_ok() {
            started = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(started, "the batch did not start");
    // Give A's parse the time to queue for the turn first (only how often this test would
    // catch a batch that kept its turn depends on it).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let url = server.url("/jsonrpc");
    let b = tokio::spawn(async move {
        common::rpc::jsonrpc(
            &common::client(),
            &url,
            "matchmaker.checkout_match",
            json!([x]),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The turn comes back; both calls end.
    let mut rest = vec![0u8; len];
    holder.read_exact(&mut rest).await.unwrap();
    let a = tokio::time::timeout(Duration::from_secs(60), a)
        .await
        .expect("the batch and the checkout waited on each other")
        .unwrap()
        .unwrap();
    assert!(a[1]["result"].is_object(), "{a}");
    assert!(a[2]["result"].is_u64(), "{a}");
    let b = tokio::time::timeout(Duration::from_secs(60), b)
        .await
        .expect("the checkout did not end")
        .unwrap();
    assert!(b["result"].is_array(), "{b}");
    server.stop().await;
}
