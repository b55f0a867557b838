//! XML-RPC on the wire: byte-level replies of every method, every rswiss fault with its code and
//! string, and bad input (malformed XML, wrong types, unknown ids, oversize and chunked bodies)
//! answered with a clear fault while the daemon keeps serving.

use crate::common;

use common::{Server, arr, call_xml, client, fault, i4, ok, parse_fault, parse_pair, xml_post};
use goswiss::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct W {
    c: reqwest::Client,
    url: String,
}

impl W {
    async fn call(&self, method: &str, params: &[&str]) -> String {
        xml_post(&self.c, &self.url, call_xml(method, params)).await
    }
    async fn create(&self, players: &[i64], extra: &[&str]) -> i64 {
        let ids = arr(&players.iter().map(|p| i4(*p)).collect::<Vec<_>>());
        let mut params = vec![ids.as_str()];
        params.extend_from_slice(extra);
        let r = self.call("matchmaker.create_tournament", &params).await;
        r.split("<i4>")
            .nth(1)
            .and_then(|s| s.split("</i4>").next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("create: {r}"))
    }
    async fn checkout(&self, t: i64) -> (i64, i64) {
        let r = self.call("matchmaker.checkout_match", &[&i4(t)]).await;
        parse_pair(&r).unwrap_or_else(|| panic!("checkout: {r}"))
    }
    async fn commit(&self, t: i64, p: (i64, i64), result: i64) -> String {
        self.call(
            "matchmaker.commit_match",
            &[&i4(t), &arr(&[i4(p.0), i4(p.1)]), &i4(result)],
        )
        .await
    }
}

fn seed(s: i64) -> String {
    format!("<struct><member><name>seed</name><value><i4>{s}</i4></value></member></struct>")
}

#[tokio::test]
async fn replies_are_byte_identical_to_rswiss_shapes() {
    let server = Server::start().await;
    let w = W {
        c: client(),
        url: server.url("/"),
    };
    let t = 1;
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[
                &arr(&[i4(1), i4(2), i4(3)]),
                &i4(0),
                "<boolean>1</boolean>",
                &seed(5)
            ]
        )
        .await,
        ok(&i4(t))
    );
    assert_eq!(w.call("matchmaker.round", &[&i4(t)]).await, ok(&i4(0)));
    assert_eq!(
        w.call("matchmaker.has_ended", &[&i4(t)]).await,
        ok("<boolean>0</boolean>")
    );
    assert_eq!(
        w.call("matchmaker.checkedout_matches", &[&i4(t)]).await,
        ok("<array><data></data></array>")
    );
    let (a, b) = w.checkout(t).await;
    assert_eq!(
        w.call("matchmaker.checkedout_matches", &[&i4(t)]).await,
        ok(&arr(&[arr(&[i4(a), i4(b)])]))
    );
    assert_eq!(w.call("matchmaker.round", &[&i4(t)]).await, ok(&i4(1)));
    assert_eq!(w.commit(t, (a, b), -1).await, ok("<boolean>1</boolean>"));
    assert_eq!(
        w.call("matchmaker.repeated_matches", &[&i4(t)]).await,
        ok(&i4(0))
    );
    // Round 1 of 3 players: a beat b, the third had the bye.
    let third = 6 - a - b;
    let table = w.call("matchmaker.table_by_criteria", &[&i4(t)]).await;
    let row =
        |id: i64, matches: i64, sc: &str, bu: &str, ne: &str, cs: &str, oc: &str, wins: i64| {
            arr(&[
                i4(id),
                i4(matches),
                format!("<double>{sc}</double>"),
                format!("<double>{bu}</double>"),
                format!("<double>{ne}</double>"),
                format!("<double>{cs}</double>"),
                format!("<double>{oc}</double>"),
                i4(wins),
            ])
        };
    // Scores: a 1.0 (win), third 1.0 (bye), b 0.0. Ties on score break by buchholz: a (opp b:
    // 0.0) vs third (no opponents: 0.0), then neustadtl a 0.0 = third 0.0, c_score a 1.0 > 0.0.
    let expected = arr(&[
        row(a, 1, "1.0", "0.0", "0.0", "1.0", "0.0", 1),
        row(third, 1, "1.0", "0.0", "0.0", "0.0", "0.0", 0),
        row(b, 1, "0.0", "1.0", "0.0", "0.0", "1.0", 0),
    ]);
    assert_eq!(table, ok(&expected));
    assert_eq!(
        w.call("matchmaker.table_by_score", &[&i4(t)]).await,
        ok(&expected)
    );
    // Play to the end; the winner reply is [i4, string].
    loop {
        let r = w.call("matchmaker.checkout_match", &[&i4(t)]).await;
        if parse_fault(&r).is_some() {
            assert_eq!(r, fault(202, "This tournament reached the end!"));
            break;
        }
        let p = parse_pair(&r).unwrap();
        w.commit(t, p, -1).await;
    }
    assert_eq!(
        w.call("matchmaker.has_ended", &[&i4(t)]).await,
        ok("<boolean>1</boolean>")
    );
    let winner = w.call("matchmaker.winner", &[&i4(t)]).await;
    // The expected winner, worked out from the final table: the first criterion whose maximum
    // is held by one player alone among those still tied.
    let table = w.call("matchmaker.table_by_criteria", &[&i4(t)]).await;
    let rows: Vec<Vec<f64>> = table
        .split("<value><array><data>")
        .skip(2)
        .map(|row| {
            row.split("<value><")
                .skip(1)
                .take(8)
                .map(|v| {
                    v.split('>')
                        .nth(1)
                        .unwrap()
                        .split('<')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap()
                })
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 3, "{table}");
    let names = [
        "score",
        "buchholz_score",
        "neustadtl_score",
        "c_score",
        "opp_c_score",
        "wins",
    ];
    let mut leaders: Vec<&Vec<f64>> = rows.iter().collect();
    let mut expected = fault(
        402,
        "We have a difficult tie to break. Try flipping a coin.",
    );
    for (k, name) in names.iter().enumerate() {
        let best = leaders.iter().map(|r| r[k + 2]).fold(f64::MIN, f64::max);
        leaders.retain(|r| r[k + 2] == best);
        if leaders.len() == 1 {
            expected = ok(&arr(&[
                i4(leaders[0][0] as i64),
                format!("<string>{name}</string>"),
            ]));
            break;
        }
    }
    assert_eq!(winner, expected);
    server.stop().await;
}

#[tokio::test]
async fn every_rswiss_fault_over_the_wire() {
    let server = Server::start().await;
    let w = W {
        c: client(),
        url: server.url("/RPC2"),
    };
    // 1: unknown method and wrong parameter counts.
    assert_eq!(
        w.call("matchmaker.nope", &[]).await,
        fault(
            1,
            "Method matchmaker.nope missing or wrong number of parameters!"
        )
    );
    assert_eq!(
        w.call("matchmaker.table2array", &[]).await,
        fault(
            1,
            "Method matchmaker.table2array missing or wrong number of parameters!"
        )
    );
    assert_eq!(
        w.call("matchmaker.checkout_match", &[]).await,
        fault(
            1,
            "Method matchmaker.checkout_match missing or wrong number of parameters!"
        )
    );
    assert_eq!(
        w.call("matchmaker.round", &[&i4(1), &i4(2)]).await,
        fault(
            1,
            "Method matchmaker.round missing or wrong number of parameters!"
        )
    );
    assert_eq!(
        w.call("matchmaker.create_tournament", &[]).await,
        fault(
            1,
            "Method matchmaker.create_tournament missing or wrong number of parameters!"
        )
    );
    let five = [
        arr(&[i4(1)]),
        i4(0),
        "<boolean>1</boolean>".into(),
        seed(1),
        i4(9),
    ];
    let five: Vec<&str> = five.iter().map(String::as_str).collect();
    assert_eq!(
        w.call("matchmaker.create_tournament", &five).await,
        fault(
            1,
            "Method matchmaker.create_tournament missing or wrong number of parameters!"
        )
    );
    // 2: clear messages for what rswiss reported as Ruby exceptions.
    assert_eq!(
        w.call("matchmaker.checkout_match", &[&i4(17)]).await,
        fault(2, "no tournament 17")
    );
    assert_eq!(
        w.call("matchmaker.round", &["<string>abc</string>"]).await,
        fault(2, "tournament id must be an integer, got \"abc\"")
    );
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &["<array><data></data></array>"]
        )
        .await,
        fault(2, "players must not be empty")
    );
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[&arr(&[i4(1), "<string>2</string>".into()])]
        )
        .await,
        fault(2, "player ids must be integers; item 1 is \"2\"")
    );
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[&arr(&[i4(1), i4(2)]), &i4(-2)]
        )
        .await,
        fault(2, "additional_rounds must be ≥ 0, got -2")
    );
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[
                &arr(&[i4(1), i4(2)]),
                &i4(0),
                "<boolean>1</boolean>",
                "<struct><member><name>pairing</name><value>greedy</value></member></struct>"
            ]
        )
        .await,
        fault(
            2,
            "unknown pairing mode \"greedy\" (available: optimal, rswiss)"
        )
    );
    // 101.
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[&arr(&[i4(1), i4(2), i4(1)])]
        )
        .await,
        fault(101, "Repeated player ids detected!")
    );
    // nil for an optional parameter means its default (Python with allow_none sends it).
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[&arr(&[i4(7), i4(8)]), "<nil/>", "<nil/>", "<nil/>"]
        )
        .await,
        ok(&i4(1))
    );
    // Nothing was created by the failed calls before: that one got id 1.
    let t = w
        .create(&[1, 2, 3, 4], &[&i4(0), "<boolean>0</boolean>", &seed(3)])
        .await;
    assert_eq!(t, 2);
    // 401 before the end.
    assert_eq!(
        w.call("matchmaker.winner", &[&i4(t)]).await,
        fault(401, "The Tournament has not ended yet.")
    );
    // 201 with the count of matches out; numeric strings work as ids, as in rswiss.
    let p1 = w.checkout(t).await;
    let r = w
        .call("matchmaker.checkout_match", &["<string>2</string>"])
        .await;
    let p2 = parse_pair(&r).unwrap();
    assert_eq!(
        w.call("matchmaker.checkout_match", &[&i4(t)]).await,
        fault(201, "Still 2 matches to be returned!")
    );
    // 303 for a pair that is not out; 2 for an unknown player, a bad result, a 3-element pair.
    assert_eq!(
        w.commit(t, (p1.0, p2.0), 0).await,
        fault(303, "This match has not been checked out!")
    );
    assert_eq!(
        w.commit(t, (p1.0, 99), 0).await,
        fault(2, "no player 99 in tournament 2")
    );
    assert_eq!(
        w.commit(t, p1, 5).await,
        fault(
            2,
            "result must be -1 (first player wins), 0 (draw) or 1 (second player wins), got 5"
        )
    );
    assert_eq!(
        w.call(
            "matchmaker.commit_match",
            &[&i4(t), &arr(&[i4(p1.0), i4(p1.1), i4(1)]), &i4(0)]
        )
        .await,
        fault(
            2,
            "the pair must be an array of exactly two player ids, got [1,2,1]"
                .replace("[1,2,1]", &format!("[{},{},1]", p1.0, p1.1))
                .as_str()
        )
    );
    // The rejected results stored nothing: the match is still out and commits now.
    assert_eq!(
        w.commit(t, (p1.1, p1.0), "-1".parse().unwrap()).await,
        ok("<boolean>1</boolean>")
    );
    assert_eq!(
        w.commit(t, p1, 0).await,
        fault(303, "This match has not been checked out!")
    );
    assert_eq!(w.commit(t, p2, 1).await, ok("<boolean>1</boolean>"));
    // 204: two players, one extra round, no repetition allowed.
    let t2 = w.create(&[1, 2], &[&i4(1), "<boolean>0</boolean>"]).await;
    let p = w.checkout(t2).await;
    w.commit(t2, p, 0).await;
    for _ in 0..2 {
        assert_eq!(
            w.call("matchmaker.checkout_match", &[&i4(t2)]).await,
            fault(204, "Reached maximum number of rearrangements allowed.")
        );
    }
    assert_eq!(
        w.call("matchmaker.has_ended", &[&i4(t2)]).await,
        ok("<boolean>0</boolean>")
    );
    // 205: repetition allowed once, then exhausted.
    let t3 = w.create(&[1, 2], &[&i4(2)]).await;
    for _ in 0..2 {
        let p = w.checkout(t3).await;
        w.commit(t3, p, 0).await;
    }
    assert_eq!(
        w.call("matchmaker.repeated_matches", &[&i4(t3)]).await,
        ok(&i4(2))
    );
    assert_eq!(
        w.call("matchmaker.checkout_match", &[&i4(t3)]).await,
        fault(
            205,
            "Allowing match repetition as last resort was not enough."
        )
    );
    // 202 and 402: two players, one draw.
    let t4 = w.create(&[5, 6], &[]).await;
    let p = w.checkout(t4).await;
    w.commit(t4, p, 0).await;
    assert_eq!(
        w.call("matchmaker.checkout_match", &[&i4(t4)]).await,
        fault(202, "This tournament reached the end!")
    );
    assert_eq!(
        w.call("matchmaker.winner", &[&i4(t4)]).await,
        fault(
            402,
            "We have a difficult tie to break. Try flipping a coin."
        )
    );
    // A one-player tournament has ended at once.
    let t5 = w.create(&[9], &[]).await;
    assert_eq!(
        w.call("matchmaker.checkout_match", &[&i4(t5)]).await,
        fault(202, "This tournament reached the end!")
    );
    assert_eq!(
        w.call("matchmaker.winner", &[&i4(t5)]).await,
        ok(&arr(&[i4(9), "<string>score</string>".into()]))
    );
    server.stop().await;
}

#[tokio::test]
async fn introspection_and_multicall() {
    let server = Server::start().await;
    let w = W {
        c: client(),
        url: server.url("/xmlrpc"),
    };
    let list = w.call("system.listMethods", &[]).await;
    assert!(
        list.starts_with(
            &ok("<array><data><value><string>system.listMethods</string></value>")[..90]
        ),
        "{list}"
    );
    for m in [
        "matchmaker.create_tournament",
        "matchmaker.winner",
        "system.multicall",
        "matchmaker.table_by_score",
    ] {
        assert!(list.contains(&format!("<string>{m}</string>")), "{m}");
    }
    assert!(!list.contains("table2array"));
    assert_eq!(
        w.call(
            "system.methodSignature",
            &["<string>matchmaker.commit_match</string>"]
        )
        .await,
        ok(
            "<array><data><value><array><data><value><string>boolean</string></value><value><string>int</string></value><value><string>array</string></value><value><string>int</string></value></data></array></value></data></array>"
        )
    );
    let help = w.call("system.methodHelp", &["matchmaker.round"]).await;
    assert_eq!(help, ok("<string>Number of rounds paired so far.</string>"));
    let call = |name: &str, params: &str| {
        format!(
            "<struct><member><name>methodName</name><value><string>{name}</string></value></member><member><name>params</name><value><array><data>{params}</data></array></value></member></struct>"
        )
    };
    let calls = arr(&[
        call(
            "matchmaker.create_tournament",
            &format!("<value>{}</value>", arr(&[i4(1), i4(2)])),
        ),
        call("matchmaker.round", "<value><i4>1</i4></value>"),
        call("matchmaker.nope", ""),
        call(
            "system.multicall",
            "<value><array><data></data></array></value>",
        ),
    ]);
    assert_eq!(
        w.call("system.multicall", &[&calls]).await,
        ok(&format!(
            "<array><data><value>{}</value><value>{}</value><value>{}</value><value>{}</value></data></array>",
            arr(&[i4(1)]),
            arr(&[i4(0)]),
            "<struct><member><name>faultCode</name><value><i4>1</i4></value></member><member><name>faultString</name><value><string>Method matchmaker.nope missing or wrong number of parameters!</string></value></member></struct>",
            "<struct><member><name>faultCode</name><value><i4>-32600</i4></value></member><member><name>faultString</name><value><string>system.multicall cannot be nested</string></value></member></struct>"
        ))
    );
    let many = arr(&vec![call("system.listMethods", ""); 1001]);
    assert_eq!(
        w.call("system.multicall", &[&many]).await,
        fault(
            -32602,
            "system.multicall takes at most 1000 calls, got 1001"
        )
    );
    server.stop().await;
}

async fn raw(addr: std::net::SocketAddr, request: &[u8]) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn bad_input_gets_clear_faults_and_the_daemon_keeps_serving() {
    let server = Server::start_with(Config {
        max_body_bytes: 64 * 1024,
        ..Config::default()
    })
    .await;
    let c = client();
    let url = server.url("/some/other/path");
    let secret = "NEVER-ECHO-THIS-0123456789";
    // Malformed XML: -32700 with the parser's message, not the request.
    for body in [
        format!("<methodCall><methodName>x</methodName><params><param><value><i4>{secret}"),
        format!("{secret} not xml at all"),
        format!(
            "<methodCall><methodName>matchmaker.round</methodName><params><param><value><i4>1</i4></value></param></params></methodCall><extra>{secret}</extra>"
        ),
        format!(
            "<methodCall><methodName>x</methodName><params><param><value><bogus>{secret}</bogus></value></param></params></methodCall>"
        ),
    ] {
        let r = xml_post(&c, &url, body).await;
        let (code, msg) = parse_fault(&r).unwrap_or_else(|| panic!("{r}"));
        assert_eq!(code, -32700, "{msg}");
        assert!(msg.starts_with("parse error: "), "{msg}");
        assert!(!msg.contains(secret), "{msg}");
    }
    // Oversize: a fault, not a bare 413, with or without a Content-Length.
    let big = call_xml(
        "system.listMethods",
        &[&format!("<string>{}</string>", "x".repeat(70 * 1024))],
    );
    assert_eq!(
        xml_post(&c, &url, big.clone()).await,
        fault(-32600, "request body exceeds the limit of 65536 bytes")
    );
    let chunked = |body: &str| {
        let mut req = String::from(
            "POST /RPC2 HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        );
        for piece in body.as_bytes().chunks(1000) {
            req.push_str(&format!(
                "{:x}\r\n{}\r\n",
                piece.len(),
                String::from_utf8_lossy(piece)
            ));
        }
        req.push_str("0\r\n\r\n");
        req
    };
    let r = raw(server.addr, chunked(&big).as_bytes()).await;
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(
        r.ends_with(&fault(
            -32600,
            "request body exceeds the limit of 65536 bytes"
        )),
        "{r}"
    );
    // A chunked body within the limit is served.
    let r = raw(
        server.addr,
        chunked(&call_xml("matchmaker.round", &[&i4(1)])).as_bytes(),
    )
    .await;
    assert!(r.ends_with(&fault(2, "no tournament 1")), "{r}");
    // Wrong types and unknown ids.
    let w = W {
        c: c.clone(),
        url: url.clone(),
    };
    assert_eq!(
        w.call("matchmaker.has_ended", &["<double>1.5</double>"])
            .await,
        fault(2, "tournament id must be an integer, got 1.5")
    );
    assert_eq!(
        w.call("matchmaker.create_tournament", &["<string>x</string>"])
            .await,
        fault(2, "players must be an array of integer ids, got \"x\"")
    );
    assert_eq!(
        w.call(
            "matchmaker.create_tournament",
            &[&arr(&[i4(1)]), &i4(0), "<string>yes</string>"]
        )
        .await,
        fault(2, "allow_repeat must be a boolean, got \"yes\"")
    );
    assert_eq!(
        w.call("system.methodHelp", &["<i4>3</i4>"]).await,
        fault(
            -32602,
            "parameter method_name: invalid type: integer `3`, expected a string"
        )
    );
    // Non-XML-RPC paths and methods.
    let r = c.get(server.url("/RPC2")).send().await.unwrap();
    assert_eq!(r.status(), 405);
    let r = c.get(server.url("/health")).send().await.unwrap();
    assert_eq!(r.text().await.unwrap(), "ok\n");
    let r = c
        .post(server.url("/elsewhere"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // Still serving.
    let t = w.create(&[1, 2], &[]).await;
    assert_eq!(t, 1);
    let metrics = c
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("goswiss_rpc_requests_total{proto=\"xmlrpc\",method=\"matchmaker.create_tournament\",outcome=\"ok\"}"), "{metrics}");
    assert!(
        metrics.contains("goswiss_rpc_duration_seconds_bucket"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("bogus"),
        "labels come from the method table only"
    );
    server.stop().await;
}
