//! Who is calling and what they may do: tokens, access classes, who may create tournaments
//! and how many.
//!
//! A caller presents a token as `Authorization: Bearer TOKEN` or as the password of HTTP Basic
//! (`http://any:TOKEN@host/`, which Python's xmlrpc.client and Ruby's XMLRPC::Client send
//! without code changes), on an HTTP request or on a WebSocket upgrade. Only the token's
//! SHA-256 travels with the call ([`Caller`]), and only hashes are stored (a director token's
//! hash sits in its tournament's log) and compared, in constant time.
//!
//! With auth on (`admin_token` set, or `auth = true`), `tournament.*` writes need the
//! tournament's director token or the admin token, and with `matchmaker_auth` the
//! `matchmaker.*` writes need the admin token; reads and the stateless namespaces stay open.
//! [`authorize`] refuses what it can before a call runs (an unknown tournament, a wrong
//! token), but the decision that counts for a tournament write is taken again under the
//! tournament's lock, against the token hash its state holds, in the same step that computes
//! the write's events ([`Writer`]): a write can never land on a tournament created, or whose
//! token was rotated, after it was let in.
//!
//! Creating tournaments needs the admin token with auth on, unless `open_creation`; then each
//! caller's network prefix (or the admin token) has a quota, counted by the store in the same
//! step as each creation ([`Creator`], [`crate::store::Store::create_owned`]). With auth off
//! anyone may create, without a quota.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use axum::http::{HeaderMap, header};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::{Digest, Sha256};

use super::{Access, Ctx, Method, Params, RpcError};
use crate::store::{Owner, TournamentId};

/// This layer's error codes (README "Error codes").
pub mod codes {
    /// No token, or one that does not open this call.
    pub const UNAUTHORIZED: i32 = -32010;
    /// The caller's tournament quota is used up.
    pub const FORBIDDEN: i32 = -32011;
}

/// A token's SHA-256.
pub type TokenHash = [u8; 32];

pub fn hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// Equality of two hashes in time independent of where they differ.
pub fn same(a: &TokenHash, b: &TokenHash) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub fn to_hex(h: &TokenHash) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn from_hex(s: &str) -> Option<TokenHash> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (k, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * k..2 * k + 2], 16).ok()?;
    }
    Some(out)
}

/// A fresh director token (256 random bits, URL-safe base64) and its hash in hex.
pub fn new_token() -> (String, String) {
    let bytes: [u8; 32] = rand::random();
    let token = URL_SAFE_NO_PAD.encode(bytes);
    let hashed = to_hex(&hash(&token));
    (token, hashed)
}

/// The caller of one request: the hash of the token it sent (if any) and its address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Caller {
    token: Option<TokenHash>,
    addr: Option<IpAddr>,
}

impl Caller {
    pub fn new(token: Option<&str>, addr: Option<IpAddr>) -> Caller {
        Caller {
            token: token.filter(|t| !t.is_empty()).map(hash),
            addr,
        }
    }

    /// The token of an `Authorization` header: Bearer, or Basic with the token as password
    /// (or as user name when the password is empty: `http://TOKEN@host/`). Anything else is
    /// no token.
    pub fn from_headers(headers: &HeaderMap, addr: Option<IpAddr>) -> Caller {
        let value = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .trim();
        let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
        let rest = rest.trim();
        let token = if scheme.eq_ignore_ascii_case("bearer") {
            Some(rest.to_string())
        } else if scheme.eq_ignore_ascii_case("basic") {
            STANDARD
                .decode(rest)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .map(|pair| match pair.split_once(':') {
                    Some((user, "")) => user.to_string(),
                    Some((_, password)) => password.to_string(),
                    None => pair,
                })
        } else {
            None
        };
        Caller::new(token.as_deref(), addr)
    }

    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// The client's address (none outside a server: tests, the library).
    pub fn addr(&self) -> Option<IpAddr> {
        self.addr
    }

    /// Whether the caller's token is the one whose hash is `stored`.
    pub fn holds(&self, stored: &TokenHash) -> bool {
        self.token.as_ref().is_some_and(|t| same(t, stored))
    }

    fn is_admin(&self, ctx: &Ctx) -> bool {
        ctx.config.admin_token.is_set() && self.holds(&hash(ctx.config.admin_token.expose()))
    }
}

/// What a call needs, once its method's [`Access`] is read with this daemon's settings.
enum Need {
    Open,
    Admin,
    /// A write to this `tournament.*` tournament.
    Director(TournamentId),
    /// Creates a tournament: the admin's (with auth on, unless `open_creation`), counted
    /// against the caller's quota.
    Create,
}

/// What a call of `method` needs: its declared [`Access`] with the daemon's settings.
fn need(ctx: &Ctx, method: &Method, params: &Params) -> Result<Need, RpcError> {
    let config = &ctx.config;
    Ok(match method.access {
        Access::Public => Need::Open,
        Access::Admin => Need::Admin,
        Access::Director => Need::Director(params.get(0, "tournament_id")?),
        Access::Create => Need::Create,
        // A simulation spends the daemon's CPU for minutes: starting one is the operator's,
        // as creating a tournament is, unless creation is open to all; reading or cancelling
        // one needs only its random id.
        Access::AdminUnlessOpen if config.open_creation => Need::Open,
        Access::AdminUnlessOpen => Need::Admin,
        Access::MatchmakerWrite if config.matchmaker_auth => Need::Admin,
        Access::MatchmakerWrite => Need::Open,
        Access::MatchmakerCreate if config.matchmaker_auth && config.auth_on() => Need::Admin,
        Access::MatchmakerCreate => Need::Create,
    })
}

/// What [`authorize`] found out about a call it let through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    directs: bool,
}

impl Grant {
    /// With auth on, whether the call is made with the admin token, or is a write to a
    /// tournament made with that tournament's director token: such calls may take the
    /// directors' turns at heavy work (`director_heavy_calls`), which anonymous work cannot.
    pub fn directs(&self) -> bool {
        self.directs
    }
}

fn unauthorized(method: &Method, what: &str, caller: &Caller) -> RpcError {
    let sent = if caller.has_token() {
        "the token sent does not"
    } else {
        "no token was sent"
    };
    RpcError::new(
        codes::UNAUTHORIZED,
        format!(
            "unauthorized: {} needs {what} ({sent}; use Authorization: Bearer TOKEN)",
            method.name
        ),
    )
}

/// Who a call writes to tournaments as. Decided once from the call's token; a write asks
/// [`Writer::opens`] of the tournament's state under its lock, in the same step that computes
/// the write, so a tournament created, or a token rotated, after the call was let in is judged
/// as it is when the write lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Writer {
    /// Auth off, or the admin token: every tournament.
    Anyone,
    /// The hash of the token sent, if any: it opens the tournaments it is the director token
    /// of.
    Holder(Option<TokenHash>),
}

impl Writer {
    pub fn of(ctx: &Ctx, caller: &Caller) -> Writer {
        if !ctx.config.auth_on() || caller.is_admin(ctx) {
            Writer::Anyone
        } else {
            Writer::Holder(caller.token)
        }
    }

    /// Whether this writer may write to a tournament whose director token hash (hex) is
    /// `stored` (`None`: it has none, and only the admin may).
    pub fn opens(&self, stored: Option<&str>) -> bool {
        match self {
            Writer::Anyone => true,
            Writer::Holder(token) => match (token, stored.and_then(from_hex)) {
                (Some(t), Some(h)) => same(t, &h),
                _ => false,
            },
        }
    }

    /// The answer to a write this writer may not make to tournament `id`.
    pub fn refusal(&self, id: TournamentId) -> RpcError {
        let sent = match self {
            Writer::Holder(Some(_)) => "the token sent does not",
            _ => "no token was sent",
        };
        RpcError::new(
            codes::UNAUTHORIZED,
            format!(
                "unauthorized: writing to tournament {id} needs its director token or the \
                 admin token ({sent}; use Authorization: Bearer TOKEN)"
            ),
        )
    }
}

/// Whether `caller` may act as the director of a tournament whose director token hash (hex)
/// is `stored`: anyone with auth off, else the holder of that token or of the admin token —
/// the rule every tournament write is held to ([`Writer`]). The web pages ask it to decide
/// who sees rounds not yet published.
pub fn directs(ctx: &Ctx, caller: &Caller, stored: Option<&str>) -> bool {
    Writer::of(ctx, caller).opens(stored)
}

/// Checks a call before it runs. For a tournament write this is only the early answer (no
/// such tournament, a wrong token): the write itself checks again under the tournament's lock
/// ([`Writer`]).
pub async fn authorize(ctx: &Ctx, method: &Method, params: &Params) -> Result<Grant, RpcError> {
    let caller = params.caller();
    let on = ctx.config.auth_on();
    let admin = on && caller.is_admin(ctx);
    let access = need(ctx, method, params)?;
    match access {
        Need::Open => {}
        Need::Admin => {
            if on && !admin {
                return Err(unauthorized(method, "the admin token", caller));
            }
        }
        Need::Director(id) => {
            if on && !admin {
                let stored = ctx
                    .tournaments
                    .read(id, |t, _| t.director_token.clone())
                    .await;
                match stored {
                    // Refused now, so the call can never run later, when a tournament of that
                    // id may exist.
                    Err(crate::app::registry::RegistryError::NotFound(_)) => {
                        return Err(RpcError::new(
                            super::error::codes::NO_TOURNAMENT,
                            format!("no tournament {id}"),
                        ));
                    }
                    Ok(stored) if !Writer::of(ctx, caller).opens(stored.as_deref()) => {
                        return Err(unauthorized(
                            method,
                            "the tournament's director token or the admin token",
                            caller,
                        ));
                    }
                    // Any other failure (the store) is the handler's to meet and answer; its
                    // write is checked under the lock anyway.
                    _ => {}
                }
            }
        }
        Need::Create => {
            if on && !admin && !ctx.config.open_creation {
                let what = if ctx.config.admin_token.is_set() {
                    "the admin token: with auth on only the operator creates tournaments \
                     (open_creation = false)"
                } else {
                    "the admin token, and this daemon has none (auth = true without \
                     admin_token, open_creation = false): nobody can create tournaments here \
                     until the operator sets admin_token or open_creation"
                };
                return Err(unauthorized(method, what, caller));
            }
        }
    }
    Ok(Grant {
        directs: admin || (on && matches!(access, Need::Director(_))),
    })
}

/// [`authorize`] for inline (`Handler::Sync`) methods, which never need a tournament's lock:
/// none of them is a tournament write or a creation.
pub fn authorize_inline(ctx: &Ctx, method: &Method, params: &Params) -> Result<(), RpcError> {
    match need(ctx, method, params)? {
        Need::Open => Ok(()),
        Need::Admin if !ctx.config.auth_on() || params.caller().is_admin(ctx) => Ok(()),
        Need::Admin => Err(unauthorized(method, "the admin token", params.caller())),
        Need::Director(_) | Need::Create => Err(RpcError::internal(format!(
            "{} cannot run inline",
            method.name
        ))),
    }
}

/// Whom a tournament created by a caller counts against, and its quota: the admin token's
/// (`max_tournaments_per_token`) or the caller's network prefix's
/// (`max_tournaments_per_address`). The quotas apply with auth on only; with auth off the
/// owner is still recorded (so that turning auth on later counts what was made before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Creator {
    owner: Owner,
    setting: &'static str,
}

/// The owner key of tournaments created with the admin token.
pub const ADMIN_OWNER: &str = "admin";

impl Creator {
    pub fn of(ctx: &Ctx, caller: &Caller) -> Creator {
        let c = &ctx.config;
        let on = c.auth_on();
        let (key, cap, setting) = if on && caller.is_admin(ctx) {
            (
                ADMIN_OWNER.to_string(),
                c.max_tournaments_per_token,
                "max_tournaments_per_token",
            )
        } else {
            (
                network(caller.addr, c.quota_ipv4_prefix, c.quota_ipv6_prefix),
                c.max_tournaments_per_address,
                "max_tournaments_per_address",
            )
        };
        Creator {
            owner: Owner {
                key,
                cap: if on { cap } else { 0 },
            },
            setting,
        }
    }

    /// What the store records and counts.
    pub fn owner(&self) -> Owner {
        self.owner.clone()
    }

    /// The answer when the store found the quota full.
    pub fn over_quota(&self) -> RpcError {
        let Owner { key, cap } = &self.owner;
        let whose = if key == ADMIN_OWNER {
            "the admin token has".to_string()
        } else {
            format!("the callers of network {key} have")
        };
        RpcError::new(
            codes::FORBIDDEN,
            format!(
                "forbidden: quota exceeded, {whose} {cap} tournaments already ({} = {cap}); \
                 delete some or ask the operator",
                self.setting
            ),
        )
    }
}

/// The network `addr` is counted in for the quotas: its first `v4` (IPv4) or `v6` (IPv6)
/// bits, as `address/bits` with the rest zeroed (an IPv4 address mapped into IPv6 is taken
/// as IPv4). Lengths past the address's are the whole address.
pub fn network(addr: Option<IpAddr>, v4: u8, v6: u8) -> String {
    match addr.map(|a| a.to_canonical()) {
        None => "unknown".into(),
        Some(IpAddr::V4(a)) => {
            let bits = u32::from(v4.min(32));
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            format!("{}/{bits}", Ipv4Addr::from(u32::from(a) & mask))
        }
        Some(IpAddr::V6(a)) => {
            let bits = u32::from(v6.min(128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            format!("{}/{bits}", Ipv6Addr::from(u128::from(a) & mask))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    /// Every method declares its access; this holds the declarations against the rules the
    /// README's Auth section states, so a write cannot be declared public by a slip without
    /// this test being changed with it.
    #[test]
    fn every_method_declares_the_access_the_auth_rules_give_it() {
        // tournament.* methods that change nothing (or only their own session).
        const READS: &[&str] = &[
            "tournament.get",
            "tournament.list",
            "tournament.events",
            "tournament.player.list",
            "tournament.round.get",
            "tournament.round.explain",
            "tournament.round.warnings",
            "tournament.game.sgf",
            "tournament.standings",
            "tournament.crosstable",
            "tournament.export",
            "tournament.settings.check",
            "tournament.subscribe",
            "tournament.unsubscribe",
        ];
        let mut seen = 0;
        for m in crate::rpc::TABLE.iter() {
            let first = m.params.first().map(|p| p.name);
            let want = match m.name {
                "tournament.create" | "tournament.import" => Access::Create,
                "ratings.import" => Access::Admin,
                "simulate.start" => Access::AdminUnlessOpen,
                "matchmaker.checkout_match" | "matchmaker.commit_match" => Access::MatchmakerWrite,
                "matchmaker.create_tournament" => Access::MatchmakerCreate,
                n if n.starts_with("tournament.") && !READS.contains(&n) => Access::Director,
                _ => Access::Public,
            };
            assert_eq!(m.access, want, "{}", m.name);
            if m.access == Access::Director {
                assert_eq!(first, Some("tournament_id"), "{}", m.name);
            }
            seen += 1;
        }
        assert!(seen > 70, "{seen} methods");
    }

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn tokens_come_from_bearer_or_basic() {
        let want = Caller::new(Some("s3cret"), None);
        assert!(want.has_token());
        assert_eq!(Caller::from_headers(&headers("Bearer s3cret"), None), want);
        assert_eq!(
            Caller::from_headers(&headers("bearer  s3cret "), None),
            want
        );
        let basic = |pair: &str| format!("Basic {}", STANDARD.encode(pair));
        assert_eq!(
            Caller::from_headers(&headers(&basic("director:s3cret")), None),
            want
        );
        assert_eq!(
            Caller::from_headers(&headers(&basic("s3cret:")), None),
            want
        );
        assert_eq!(Caller::from_headers(&headers(&basic("s3cret")), None), want);
        for other in ["Bearer", "Digest s3cret", "Basic !!!", "s3cret"] {
            assert!(
                !Caller::from_headers(&headers(other), None).has_token(),
                "{other}"
            );
        }
        assert!(!Caller::from_headers(&HeaderMap::new(), None).has_token());
    }

    #[test]
    fn networks_keep_the_prefix_bits_only() {
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(network(ip("203.0.113.77"), 24, 64), "203.0.113.0/24");
        assert_eq!(
            network(ip("127.0.0.1"), 24, 64),
            network(ip("127.0.0.40"), 24, 64)
        );
        assert_ne!(
            network(ip("127.0.0.1"), 24, 64),
            network(ip("127.0.1.1"), 24, 64)
        );
        assert_eq!(network(ip("127.0.1.1"), 16, 64), "127.0.0.0/16");
        assert_eq!(network(ip("10.1.2.3"), 32, 64), "10.1.2.3/32");
        assert_eq!(network(ip("10.1.2.3"), 40, 64), "10.1.2.3/32");
        assert_eq!(network(ip("10.1.2.3"), 0, 64), "0.0.0.0/0");
        assert_eq!(
            network(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), 24, 64),
            "2001:db8:1:2::/64"
        );
        assert_eq!(network(ip("2001:db8:1:2::9"), 24, 48), "2001:db8:1::/48");
        assert_eq!(network(ip("::1"), 24, 200), "::1/128");
        assert_eq!(network(ip("::ffff:192.0.2.9"), 24, 64), "192.0.2.0/24");
        assert_eq!(network(None, 24, 64), "unknown");
    }

    #[test]
    fn a_writer_opens_only_what_its_token_directs() {
        let (token, hashed) = new_token();
        let other = new_token().1;
        let holder = Writer::Holder(Some(hash(&token)));
        assert!(holder.opens(Some(&hashed)));
        assert!(!holder.opens(Some(&other)));
        assert!(
            !holder.opens(None),
            "a tournament without a token is the admin's"
        );
        assert!(!holder.opens(Some("not hex")));
        assert!(!Writer::Holder(None).opens(Some(&hashed)));
        assert!(Writer::Anyone.opens(None) && Writer::Anyone.opens(Some(&other)));
        assert_eq!(holder.refusal(7).code, codes::UNAUTHORIZED);
        assert!(holder.refusal(7).message.contains("tournament 7"));
    }

    #[test]
    fn hashes_compare_and_round_trip() {
        let (token, hashed) = new_token();
        assert!(
            token.len() >= 43
                && token
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        let h = from_hex(&hashed).unwrap();
        assert!(Caller::new(Some(&token), None).holds(&h));
        assert!(!Caller::new(Some("other"), None).holds(&h));
        assert!(!Caller::default().holds(&h));
        assert_eq!(to_hex(&h), hashed);
        assert!(from_hex("zz").is_none());
        assert_ne!(new_token().0, token);
    }
}

/// Tournament writes and heavy turns through the method table, on a daemon's state without its
/// HTTP front: calls that slip past [`authorize`] (as a racing one could), and the directors'
/// share of heavy turns with the general turns held.
#[cfg(test)]
mod calls {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::app::registry::Registry;
    use crate::config::{Config, Secret};
    use crate::rpc::{Handler, RpcResult, lookup};
    use crate::store::Store;
    use crate::store::sqlite::SqliteStore;

    const ADMIN: &str = "admin-token-for-the-unit-tests";

    fn with_admin() -> Config {
        Config {
            admin_token: Secret(ADMIN.into()),
            // No time budget: nothing here may depend on how fast the machine is.
            request_budget_ms: 0,
            ..Config::default()
        }
    }

    async fn daemon(config: Config) -> (tempfile::TempDir, Arc<Ctx>) {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> =
            Arc::new(SqliteStore::open(dir.path().join("t.db")).await.unwrap());
        let heavy = Ctx::heavy_permits(&config);
        let ctx = Ctx {
            registry: Registry::open(Arc::clone(&store), &[])
                .unwrap()
                .with_heavy_turns(Arc::clone(&heavy)),
            tournaments: Registry::open(store, &[])
                .unwrap()
                .with_heavy_turns(Arc::clone(&heavy)),
            heavy,
            directors_heavy: Ctx::director_permits(&config),
            config,
            simulations: Default::default(),
            ratings: Default::default(),
        };
        (dir, Arc::new(ctx))
    }

    fn as_(token: Option<&str>) -> Caller {
        Caller::new(token, Some("127.0.0.1".parse().unwrap()))
    }

    async fn call(ctx: &Arc<Ctx>, who: &Caller, method: &str, params: Vec<Value>) -> RpcResult {
        let params = Params::positional(params).with_caller(who.clone());
        crate::rpc::call(ctx, lookup(method).unwrap(), params).await
    }

    /// A method's handler alone, without [`authorize`]: what a call that got past the early
    /// check (before a rotation, or before its tournament existed) goes on to do.
    async fn past_the_check(
        ctx: &Arc<Ctx>,
        who: &Caller,
        method: &str,
        params: Vec<Value>,
    ) -> RpcResult {
        let Handler::Async(f) = lookup(method).unwrap().handler else {
            panic!("{method} is not async")
        };
        f(
            Arc::clone(ctx),
            Params::positional(params).with_caller(who.clone()),
        )
        .await
    }

    async fn create(ctx: &Arc<Ctx>) -> (i64, String) {
        let v = call(ctx, &as_(Some(ADMIN)), "tournament.create", vec![json!({})])
            .await
            .unwrap();
        let token = v["director_token"].as_str().unwrap().to_string();
        (v["id"].as_i64().unwrap(), token)
    }

    async fn revision(ctx: &Arc<Ctx>, id: i64) -> i64 {
        let v = call(ctx, &as_(None), "tournament.get", vec![json!(id)]).await;
        v.unwrap()["revision"].as_i64().unwrap()
    }

    fn writes(id: i64) -> Vec<(&'static str, Vec<Value>)> {
        vec![
            (
                "tournament.player.add",
                vec![json!(id), json!({"name": "Intruder", "rank": "1d"})],
            ),
            (
                "tournament.settings.set",
                vec![json!(id), json!({"name": "Taken"})],
            ),
            ("tournament.token.rotate", vec![json!(id)]),
            ("tournament.archive", vec![json!(id)]),
            ("tournament.delete", vec![json!(id)]),
        ]
    }

    #[tokio::test]
    async fn a_write_past_the_early_check_is_refused_under_the_lock() {
        let (_dir, ctx) = daemon(with_admin()).await;
        let (id, token) = create(&ctx).await;
        let (_, foreign) = create(&ctx).await;
        let before = revision(&ctx, id).await;
        for who in [as_(None), as_(Some(&foreign)), as_(Some("guess"))] {
            for (method, params) in writes(id) {
                let r = past_the_check(&ctx, &who, method, params).await;
                let e = r.expect_err(method);
                assert_eq!(e.code, codes::UNAUTHORIZED, "{method}: {e:?}");
                assert!(e.message.contains(&format!("tournament {id}")), "{e:?}");
            }
        }
        assert_eq!(revision(&ctx, id).await, before, "nothing recorded");

        // A rotation that lands between the early check and the write: the old token no
        // longer writes, the new one does.
        let v = call(
            &ctx,
            &as_(Some(ADMIN)),
            "tournament.token.rotate",
            vec![json!(id)],
        )
        .await
        .unwrap();
        let rotated = v["director_token"].as_str().unwrap().to_string();
        for (method, params) in writes(id) {
            let r = past_the_check(&ctx, &as_(Some(&token)), method, params).await;
            assert_eq!(r.expect_err(method).code, codes::UNAUTHORIZED, "{method}");
        }
        let (method, params) = writes(id).remove(0);
        past_the_check(&ctx, &as_(Some(&rotated)), method, params)
            .await
            .expect("the tournament's token writes");
        past_the_check(
            &ctx,
            &as_(Some(&rotated)),
            "tournament.delete",
            vec![json!(id)],
        )
        .await
        .expect("and deletes");
    }

    #[tokio::test]
    async fn a_write_to_a_missing_tournament_is_refused_before_it_runs() {
        let (_dir, ctx) = daemon(with_admin()).await;
        let (id, _) = create(&ctx).await;
        for (method, params) in writes(id + 1) {
            let params = Params::positional(params).with_caller(as_(None));
            let r = authorize(&ctx, lookup(method).unwrap(), &params).await;
            let e = r.expect_err(method);
            assert_eq!(e.code, 1001, "{method}: {e:?}");
        }
        // With auth off there is nothing to check: the handler answers for itself.
        let (_dir, open) = daemon(Config::default()).await;
        let r = call(
            &open,
            &as_(None),
            "tournament.token.rotate",
            vec![json!(99)],
        )
        .await;
        assert_eq!(r.unwrap_err().code, 1001);
    }

    /// A tournament of 501 players, over the inline size: its commands run on the blocking
    /// pool and take a turn at heavy work. Returns its id and director token.
    async fn big(ctx: &Arc<Ctx>) -> (i64, String) {
        use crate::tournament::model::{Player, Settings, System, parse_rank};
        use crate::tournament::{Event, Tournament};
        let mut created = Tournament::create(Settings::defaults(System::default()), 7).unwrap();
        let (token, hashed) = new_token();
        if let Event::Created {
            director_token_sha256,
            ..
        } = &mut created
        {
            *director_token_sha256 = Some(hashed);
        }
        let mut events = vec![created];
        let mut state = Tournament::replay(&events).unwrap();
        for k in 0..501 {
            let player: Player = serde_json::from_value(json!({
                "name": format!("Big{k}"),
                "first_name": "P",
                "rank": parse_rank(&format!("{}k", 1 + k % 20)).unwrap(),
            }))
            .unwrap();
            let (new, _) = state.register_player(player).unwrap();
            for e in &new {
                state.apply(e).unwrap();
            }
            events.extend(new);
        }
        let id = ctx.tournaments.create(events).await.unwrap();
        (id, token)
    }

    const HANG: Duration = Duration::from_secs(120);

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_director_gets_a_heavy_turn_while_anonymous_work_holds_every_other() {
        let (_dir, ctx) = daemon(Config {
            max_heavy_calls: 2,
            director_heavy_calls: 1,
            ..with_admin()
        })
        .await;
        let (id, token) = big(&ctx).await;
        // Anonymous heavy work holds every general turn.
        let held = Arc::clone(&ctx.heavy).acquire_many_owned(2).await.unwrap();
        let anonymous = {
            let ctx = Arc::clone(&ctx);
            tokio::spawn(async move {
                call(&ctx, &as_(None), "sgf.parse", vec![json!("(;SZ[9];B[ee])")]).await
            })
        };
        // The director's pairing of 501 players gets the directors' turn and completes.
        let paired = tokio::time::timeout(
            HANG,
            call(
                &ctx,
                &as_(Some(&token)),
                "tournament.round.pair",
                vec![json!(id), json!(1)],
            ),
        )
        .await
        .expect("the director was kept waiting behind anonymous work")
        .expect("paired");
        assert_eq!(paired["games"].as_array().unwrap().len(), 250);
        // So does the admin's stateless heavy call.
        tokio::time::timeout(
            HANG,
            call(
                &ctx,
                &as_(Some(ADMIN)),
                "sgf.parse",
                vec![json!("(;SZ[9];B[ee])")],
            ),
        )
        .await
        .expect("the admin was kept waiting behind anonymous work")
        .expect("parsed");
        // The anonymous call is still waiting: the directors' turn is not for it.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            !anonymous.is_finished(),
            "anonymous work took the directors' turn"
        );
        assert_eq!(ctx.directors_heavy.available_permits(), 1);
        drop(held);
        tokio::time::timeout(HANG, anonymous)
            .await
            .expect("a general turn came free")
            .unwrap()
            .expect("parsed");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn with_auth_off_everyone_waits_for_the_same_turns() {
        let (_dir, ctx) = daemon(Config {
            max_heavy_calls: 1,
            director_heavy_calls: 1,
            request_budget_ms: 0,
            ..Config::default()
        })
        .await;
        assert_eq!(ctx.directors_heavy.available_permits(), 0);
        let (id, token) = big(&ctx).await;
        let held = Arc::clone(&ctx.heavy).acquire_owned().await.unwrap();
        let director = {
            let ctx = Arc::clone(&ctx);
            tokio::spawn(async move {
                call(
                    &ctx,
                    &as_(Some(&token)),
                    "tournament.round.pair",
                    vec![json!(id), json!(1)],
                )
                .await
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            !director.is_finished(),
            "with auth off nobody is told apart"
        );
        drop(held);
        let paired = tokio::time::timeout(HANG, director)
            .await
            .expect("the turn came free")
            .unwrap()
            .expect("paired");
        assert_eq!(paired["games"].as_array().unwrap().len(), 250);
    }
}
