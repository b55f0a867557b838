//! Who is calling and what they may do: tokens, access classes and creation quotas.
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
//! Creating tournaments is open to every caller (each gets the new tournament's director
//! token) but bounded by quotas, auth on or off.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use axum::http::{HeaderMap, header};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Answer, Ctx, Method, Params, RpcError};
use crate::store::TournamentId;

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

/// What a call needs.
enum Access {
    Open,
    Admin,
    /// A write to this `tournament.*` tournament.
    Director(TournamentId),
    /// Creates a tournament: counted against the caller's quota.
    Create,
}

/// `tournament.*` methods anyone may call with auth on: they change nothing, or (create)
/// are bounded by quotas instead. Any other `tournament.*` method whose first parameter is a
/// tournament id is a write needing the tournament's token, so a method added later is closed
/// until it is listed here.
const TOURNAMENT_READS: &[&str] = &[
    "tournament.get",
    "tournament.list",
    "tournament.events",
    "tournament.player.list",
    "tournament.round.get",
    "tournament.round.explain",
    "tournament.game.sgf",
    "tournament.standings",
    "tournament.crosstable",
    "tournament.export",
    // WebSocket-only (answered -32020 anywhere else); a subscription changes nothing.
    "tournament.subscribe",
    "tournament.unsubscribe",
];

const MATCHMAKER_WRITES: &[&str] = &["matchmaker.checkout_match", "matchmaker.commit_match"];

fn access(ctx: &Ctx, method: &Method, params: &Params) -> Result<Access, RpcError> {
    let name = method.name;
    if name == "matchmaker.create_tournament" {
        return Ok(if ctx.config.matchmaker_auth && ctx.config.auth_on() {
            Access::Admin
        } else {
            Access::Create
        });
    }
    if MATCHMAKER_WRITES.contains(&name) {
        return Ok(if ctx.config.matchmaker_auth {
            Access::Admin
        } else {
            Access::Open
        });
    }
    if !name.starts_with("tournament.") || TOURNAMENT_READS.contains(&name) {
        return Ok(Access::Open);
    }
    if method.params.first().map(|p| p.name) == Some("tournament_id") {
        return Ok(Access::Director(params.get(0, "tournament_id")?));
    }
    Ok(Access::Create)
}

/// What [`settle`] does once the call has run.
pub enum Ticket {
    None,
    /// A reserved quota slot: kept for the new tournament, or given back on failure.
    Create(Owner),
    /// A tournament being deleted: its slot is given back if the delete succeeds.
    Delete(TournamentId),
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

/// Whether `caller` may act as the director of a tournament whose director token hash (hex)
/// is `stored`: anyone with auth off, else the holder of that token or of the admin token —
/// the rule [`authorize`] applies to the tournament's writes. The web pages ask it to decide
/// who sees rounds not yet published.
pub fn directs(ctx: &Ctx, caller: &Caller, stored: Option<&str>) -> bool {
    !ctx.config.auth_on()
        || caller.is_admin(ctx)
        || stored.and_then(from_hex).is_some_and(|h| caller.holds(&h))
}

/// Checks a call before it runs; the ticket goes to [`settle`] afterwards.
pub async fn authorize(ctx: &Ctx, method: &Method, params: &Params) -> Result<Ticket, RpcError> {
    let caller = params.caller();
    let on = ctx.config.auth_on();
    match access(ctx, method, params)? {
        Access::Open => {}
        Access::Admin => {
            if on && !caller.is_admin(ctx) {
                return Err(unauthorized(method, "the admin token", caller));
            }
        }
        Access::Director(id) => {
            if on && !caller.is_admin(ctx) {
                let stored = ctx
                    .tournaments
                    .read(id, |t, _| t.director_token.clone())
                    .await;
                // A missing tournament is the handler's error to give (code 1001).
                if let Ok(stored) = stored {
                    let opens = stored
                        .as_deref()
                        .and_then(from_hex)
                        .is_some_and(|h| caller.holds(&h));
                    if !opens {
                        return Err(unauthorized(
                            method,
                            "the tournament's director token or the admin token",
                            caller,
                        ));
                    }
                }
            }
        }
        Access::Create => return ctx.quotas.reserve(ctx, caller).map(Ticket::Create),
    }
    if method.name == "tournament.delete" {
        return Ok(Ticket::Delete(params.get(0, "tournament_id")?));
    }
    Ok(Ticket::None)
}

/// [`authorize`] for inline (`Handler::Sync`) methods, which never need a tournament's lock:
/// none of them is a tournament write or a creation.
pub fn authorize_inline(ctx: &Ctx, method: &Method, params: &Params) -> Result<(), RpcError> {
    match access(ctx, method, params)? {
        Access::Open => Ok(()),
        Access::Admin if !ctx.config.auth_on() || params.caller().is_admin(ctx) => Ok(()),
        Access::Admin => Err(unauthorized(method, "the admin token", params.caller())),
        Access::Director(_) | Access::Create => Err(RpcError::internal(format!(
            "{} cannot run inline",
            method.name
        ))),
    }
}

/// Books the call's effect on the quotas.
pub fn settle(ctx: &Ctx, ticket: Ticket, result: &Result<Answer, RpcError>) {
    match ticket {
        Ticket::None => {}
        Ticket::Create(owner) => {
            let id = result
                .as_ref()
                .ok()
                .and_then(Answer::as_value)
                .and_then(|v| match v {
                    Value::Object(m) => m.get("id").and_then(Value::as_i64),
                    v => v.as_i64(),
                });
            match id {
                Some(id) => ctx.quotas.keep(owner, id),
                None => ctx.quotas.give_back(&owner),
            }
        }
        Ticket::Delete(id) => {
            if result.is_ok() {
                ctx.quotas.forget(id);
            }
        }
    }
}

/// Whom a created tournament counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    Admin,
    Address(Option<IpAddr>),
}

/// Tournaments created per owner since the daemon started, less those deleted. In memory
/// only: a restart starts every count again.
#[derive(Default)]
pub struct Quotas {
    inner: Mutex<QuotaBook>,
}

#[derive(Default)]
struct QuotaBook {
    counts: HashMap<Owner, u32>,
    owners: HashMap<TournamentId, Owner>,
}

impl Quotas {
    fn book(&self) -> std::sync::MutexGuard<'_, QuotaBook> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a slot for a tournament about to be created (taken before, so that concurrent
    /// creations cannot overshoot).
    fn reserve(&self, ctx: &Ctx, caller: &Caller) -> Result<Owner, RpcError> {
        let (owner, cap, setting) = if caller.is_admin(ctx) {
            (
                Owner::Admin,
                ctx.config.max_tournaments_per_token,
                "max_tournaments_per_token",
            )
        } else {
            (
                Owner::Address(caller.addr),
                ctx.config.max_tournaments_per_address,
                "max_tournaments_per_address",
            )
        };
        let mut book = self.book();
        let n = book.counts.entry(owner.clone()).or_insert(0);
        if cap > 0 && *n >= cap {
            return Err(RpcError::new(
                codes::FORBIDDEN,
                format!(
                    "forbidden: quota exceeded, this caller already has {n} tournaments \
                     ({setting} = {cap}); delete some or ask the operator"
                ),
            ));
        }
        *n += 1;
        Ok(owner)
    }

    fn give_back(&self, owner: &Owner) {
        let mut book = self.book();
        if let Some(n) = book.counts.get_mut(owner) {
            *n = n.saturating_sub(1);
        }
    }

    fn keep(&self, owner: Owner, id: TournamentId) {
        self.book().owners.insert(id, owner);
    }

    fn forget(&self, id: TournamentId) {
        let owner = self.book().owners.remove(&id);
        if let Some(owner) = owner {
            self.give_back(&owner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

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
