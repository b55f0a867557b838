//! Strict input: what a caller sends is read strictly, whatever the namespace. A key that no
//! struct has is refused, naming it, its path (`settings.handicap.max`, `games[2].whte`) and
//! the nearest valid key by edit distance; a value of the wrong type or out of its bounds is
//! refused with its path. Every parameter read through [`crate::rpc::Params`] comes here.
//!
//! Two mechanisms, one message format. Structs made for input (`options`, game structs, …)
//! are `deny_unknown_fields`: serde refuses the key and this module turns its message into
//! ours ([`from_value`]). Settings and players are also what stored events hold, which must
//! replay whatever an older version wrote, so those types read leniently; for them the
//! caller's value is first checked against the JSON Schema the types derive ([`check`]): its
//! keys, number bounds, text and list lengths. The same schemas are published in
//! `rpc.discover` ([`components`]) and make docs/tournament.md's settings table
//! ([`settings_table`]), so a new setting is one field with its doc comment.

use std::sync::LazyLock;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::rpc::RpcError;
use crate::tournament::model::{Player, Settings};

/// Where the published schemas live in the OpenRPC document, and so what their `$ref`s say.
const DEFINITIONS: &str = "#/components/schemas/";

/// The schemas of the input types that read leniently, and every type they use.
pub struct Schemas {
    /// Every named schema, by name (the OpenRPC document's `components.schemas`).
    pub definitions: Map<String, Value>,
    pub settings: Value,
    pub player: Value,
}

/// The schemas, generated once from the types.
pub static SCHEMAS: LazyLock<Schemas> = LazyLock::new(|| {
    let mut generator = schemars::generate::SchemaSettings::draft07()
        .for_deserialize()
        .with(|s| s.definitions_path = DEFINITIONS.into())
        .into_generator();
    let settings = generator.subschema_for::<Settings>().to_value();
    let player = generator.subschema_for::<Player>().to_value();
    let mut definitions = generator.take_definitions(true);
    for schema in definitions.values_mut() {
        close_objects(schema);
    }
    Schemas {
        definitions,
        settings,
        player,
    }
});

/// The schemas to publish: `components.schemas` of the OpenRPC document.
pub fn components() -> Value {
    Value::Object(SCHEMAS.definitions.clone())
}

/// The schema of a parameter the method table declares only as "struct", when it has one.
pub fn param_schema(method: &str, param: &str) -> Option<Value> {
    match (method, param) {
        ("tournament.create" | "tournament.settings.set", "settings") => {
            Some(SCHEMAS.settings.clone())
        }
        ("tournament.player.add", "player") | ("tournament.player.update", "fields") => {
            Some(SCHEMAS.player.clone())
        }
        _ => None,
    }
}

/// Marks every struct's schema as refusing other keys (`additionalProperties: false`), which
/// is what the API does; maps keep their `additionalProperties` schema.
pub(crate) fn close_objects(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (k, v) in m.iter_mut() {
                // Defaults and examples are values, not schemas.
                if k != "default" && k != "examples" && k != "const" && k != "enum" {
                    close_objects(v);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// Levenshtein distance over characters, case folded.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The valid name nearest to `key` by edit distance (the first of equals).
pub fn nearest<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    // Quoted client text is clipped, and so is the work of comparing it.
    let key = crate::rpc::error::clip(key, crate::rpc::error::MAX_QUOTED_BYTES);
    valid
        .iter()
        .map(|v| (edit_distance(&key, v), *v))
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

/// `path` followed by a member name.
pub fn join(path: &str, key: &str) -> String {
    let key = crate::rpc::error::clip(key, crate::rpc::error::MAX_QUOTED_BYTES);
    if path.is_empty() {
        key.into_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The refusal of an unknown key `key` of the struct at `path`, whose keys are `valid`.
pub fn unknown_key(path: &str, key: &str, valid: &[&str]) -> RpcError {
    let quoted = crate::rpc::error::clip(key, crate::rpc::error::MAX_QUOTED_BYTES);
    let mut m = format!("{}: unknown key {quoted:?}", join(path, key));
    match nearest(key, valid) {
        Some(n) => m.push_str(&format!(
            " (nearest valid key: {n:?}; valid keys: {})",
            valid.join(", ")
        )),
        None if valid.is_empty() => m.push_str(" (this struct takes no keys)"),
        None => m.push_str(&format!(" (valid keys: {})", valid.join(", "))),
    }
    let mut data = serde_json::json!({ "path": join(path, key) });
    if let Some(n) = nearest(key, valid) {
        data["nearest"] = n.into();
    }
    RpcError::invalid_params(m).with_data(data)
}

/// The refusal of an unknown name `value` where one of `valid` was expected.
fn unknown_value(path: &str, value: &str, valid: &[&str]) -> String {
    let quoted = crate::rpc::error::clip(value, crate::rpc::error::MAX_QUOTED_BYTES);
    match nearest(value, valid) {
        Some(n) => format!(
            "{path}: unknown value {quoted:?} (nearest: {n:?}; valid: {})",
            valid.join(", ")
        ),
        None => format!("{path}: unknown value {quoted:?}"),
    }
}

/// The names serde lists in "expected one of `a`, `b`" (or "expected `a` or `b`").
fn backquoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Deserializes a caller's `value` (at `path`, the parameter's name) strictly: serde's
/// refusals come back with the path of the bad value, and an unknown key or name with the
/// nearest valid one.
pub fn from_value<T: DeserializeOwned>(value: &Value, path: &str) -> Result<T, RpcError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let at = path_text(path, e.path());
        let message = serde_message(&at, path, &e.inner().to_string());
        refused(&At::Root(&at), message)
    })
}

/// A method's positional parameters `values` (an array) as its parameter struct `T`, whose
/// members are the parameters `names` in order: a refusal reads as [`from_value`]'s of the
/// one parameter it is about.
pub fn params_struct<T: DeserializeOwned>(
    values: &Value,
    names: &[crate::rpc::Param],
) -> Result<T, RpcError> {
    use serde_path_to_error::Segment;
    serde_path_to_error::deserialize(values).map_err(|e| {
        let mut segments = e.path().iter();
        let root = match segments.next() {
            Some(Segment::Seq { index }) => names.get(*index).map(|p| p.name),
            _ => None,
        };
        let m = e.inner().to_string();
        match root {
            Some(root) => {
                let mut at = root.to_string();
                for segment in segments {
                    match segment {
                        Segment::Seq { index } => at.push_str(&format!("[{index}]")),
                        Segment::Map { key } => at = join(&at, key),
                        Segment::Enum { variant } => at = join(&at, variant),
                        Segment::Unknown => {}
                    }
                }
                let message = serde_message(&at, root, &m);
                refused(&At::Root(&at), message)
            }
            None => RpcError::invalid_params(format!("parameters: {m}")),
        }
    })
}

/// `root` followed by serde's path: members as `.name`, list items as `[i]`.
fn path_text(root: &str, path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = root.to_string();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => out = join(&out, key),
            Segment::Enum { variant } => out = join(&out, variant),
            Segment::Unknown => {}
        }
    }
    out
}

/// serde's message `m` about the value at `at` as ours. A top-level type error keeps the
/// form "parameter NAME: …" that clients have seen since the first release.
fn serde_message(at: &str, root: &str, m: &str) -> String {
    if let Some(rest) = m.strip_prefix("unknown field `") {
        let (key, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let valid = backquoted(expected);
        // serde's path already ends at the unknown key.
        let parent = at
            .strip_suffix(&*crate::rpc::error::clip(
                key,
                crate::rpc::error::MAX_QUOTED_BYTES,
            ))
            .and_then(|p| p.strip_suffix('.'))
            .unwrap_or(at);
        return unknown_key(parent, key, &valid).message;
    }
    if let Some(rest) = m.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once('`').unwrap_or((rest, ""));
        return unknown_value(at, value, &backquoted(expected));
    }
    if at == root {
        format!("parameter {root}: {m}")
    } else {
        format!("{at}: {m}")
    }
}

/// Checks a caller's `value` at `path` against `schema` (a schema of [`SCHEMAS`]): unknown keys,
/// number bounds, text lengths, list and map sizes. Types are serde's to check, after this.
pub fn check(value: &Value, schema: &Value, path: &str) -> Result<(), RpcError> {
    walk(value, schema, &At::Root(path))
}

/// Where a value is, as [`join`] and `[i]` would spell it, spelt out only for an error: most
/// values are fine, and a walk that formatted every member's path allocated for each.
#[derive(Clone, Copy)]
enum At<'a> {
    Root(&'a str),
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root(p) => f.write_str(p),
            At::Key(parent, key) => {
                let parent = parent.to_string();
                f.write_str(&join(&parent, key))
            }
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// The refusal `message` of the value at `path`, which it carries as `data.path` too (a client
/// may point at the bad field without reading the words).
fn refused(path: &At<'_>, message: String) -> RpcError {
    RpcError::invalid_params(message).with_data(serde_json::json!({ "path": path.to_string() }))
}

/// The named schema `s` refers to, or `s` itself.
fn resolve(s: &Value) -> &Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix(DEFINITIONS)
            .and_then(|name| SCHEMAS.definitions.get(name))
            .unwrap_or(s),
        None => s,
    }
}

/// Whether `v` has a JSON type `s` allows (no `type`: any).
fn type_fits(v: &Value, s: &Value) -> bool {
    let fits = |t: &str| match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    };
    match s.get("type") {
        None => true,
        Some(Value::String(t)) => fits(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
        Some(_) => true,
    }
}

/// Whether every `const` property of the object schema `s` (an enum's tag) matches `v`'s.
fn tags_fit(v: &Value, s: &Value) -> bool {
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        return true;
    };
    props.iter().all(|(k, p)| match p.get("const") {
        Some(c) => v.get(k) == Some(c),
        None => true,
    })
}

fn walk(v: &Value, s: &Value, path: &At<'_>) -> Result<(), RpcError> {
    let s = resolve(s);
    // Draft 7 ignores what stands beside a `$ref`, so a described reference is `allOf`.
    if let Some(Value::Array(all)) = s.get("allOf") {
        for branch in all {
            walk(v, branch, path)?;
        }
    }
    for alternatives in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = s.get(alternatives) {
            let fitting: Vec<&Value> = branches
                .iter()
                .map(resolve)
                .filter(|b| type_fits(v, b) && tags_fit(v, b))
                .collect();
            // Several or none: the type is for serde to refuse.
            if let [one] = fitting[..] {
                walk(v, one, path)?;
            }
        }
    }
    if !type_fits(v, s) {
        return Ok(());
    }
    match v {
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            if let Some(min) = s.get("minimum").and_then(Value::as_f64)
                && x < min
            {
                return Err(refused(
                    path,
                    format!("{path}: {n} is below the minimum {}", num(min)),
                ));
            }
            if let Some(max) = s.get("maximum").and_then(Value::as_f64)
                && x > max
            {
                return Err(refused(
                    path,
                    format!("{path}: {n} is above the maximum {}", num(max)),
                ));
            }
        }
        Value::String(t) => {
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
                let chars = t.chars().count();
                if chars as u64 > max {
                    return Err(refused(
                        path,
                        format!("{path}: {chars} characters, more than the limit of {max}"),
                    ));
                }
            }
        }
        Value::Array(items) => {
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
                && items.len() as u64 > max
            {
                return Err(refused(
                    path,
                    format!(
                        "{path}: {} items, more than the limit of {max}",
                        items.len()
                    ),
                ));
            }
            let prefix = s.get("prefixItems").or_else(|| {
                // Draft 7 writes a tuple's items as an array.
                s.get("items").filter(|i| i.is_array())
            });
            for (i, item) in items.iter().enumerate() {
                let item_schema = match prefix.and_then(Value::as_array) {
                    Some(p) => p.get(i),
                    None => s.get("items"),
                };
                if let Some(is) = item_schema {
                    walk(item, is, &At::Index(path, i))?;
                }
            }
        }
        Value::Object(members) => {
            if let Some(max) = s.get("maxProperties").and_then(Value::as_u64)
                && members.len() as u64 > max
            {
                return Err(refused(
                    path,
                    format!(
                        "{path}: {} members, more than the limit of {max}",
                        members.len()
                    ),
                ));
            }
            let props = s.get("properties").and_then(Value::as_object);
            let others = s.get("additionalProperties");
            for (k, item) in members {
                let at = At::Key(path, k);
                match (props.and_then(|p| p.get(k)), others) {
                    (Some(ps), _) => walk(item, ps, &at)?,
                    (None, Some(os)) if os.is_object() => walk(item, os, &at)?,
                    (None, Some(Value::Bool(false))) | (None, None) if props.is_some() => {
                        let valid: Vec<&str> =
                            props.map_or(Vec::new(), |p| p.keys().map(String::as_str).collect());
                        return Err(unknown_key(&path.to_string(), k, &valid));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A bound as people write it: 9, not 9.0.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// Reads a caller's value of a leniently read type strictly: [`check`] against `schema`, then
/// [`from_value`].
pub fn strict<T: DeserializeOwned>(
    value: &Value,
    schema: &Value,
    path: &str,
) -> Result<T, RpcError> {
    check(value, schema, path)?;
    from_value(value, path)
}

// ---- the settings table of docs/tournament.md ------------------------------------------------

/// One row of the settings table: key path, meaning, default, OpenGotha attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub meaning: String,
    pub default: String,
    pub opengotha: String,
}

/// Every settings key, members of structs spelled out (`mcmahon.bar`), in the schema's order.
pub fn settings_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let defaults = serde_json::to_value(Settings::default()).unwrap_or(Value::Null);
    rows_of(resolve(&SCHEMAS.settings), "", &defaults, &mut rows);
    rows
}

fn rows_of(s: &Value, prefix: &str, defaults: &Value, rows: &mut Vec<Row>) {
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (k, p) in props {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let default = defaults
            .get(k)
            .or_else(|| p.get("default"))
            .cloned()
            .unwrap_or(Value::Null);
        let target = described(p);
        if target.get("properties").is_some() && target.get("oneOf").is_none() {
            rows_of(target, &key, &default, rows);
            continue;
        }
        let meaning = p
            .get("description")
            .or_else(|| target.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .replace('\n', " ");
        let opengotha = p
            .get("x-opengotha")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let default = match &default {
            Value::Null => "none".to_string(),
            Value::String(t) if t.is_empty() => "empty".to_string(),
            Value::Array(a) if a.is_empty() => "empty".to_string(),
            Value::Object(o) if o.is_empty() => "empty".to_string(),
            other => other.to_string(),
        };
        rows.push(Row {
            key,
            meaning,
            default,
            opengotha,
        });
    }
}

/// What a property's schema `p` is: its reference's target, also when draft 7 wrapped a
/// described reference in `allOf`.
fn described(p: &Value) -> &Value {
    match p.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
        Some([one]) => resolve(one),
        _ => resolve(p),
    }
}

/// The settings table as docs/tournament.md holds it (a test keeps the two the same).
pub fn settings_table() -> String {
    let mut out =
        String::from("| key | meaning | default (McMahon) | OpenGotha XML |\n|---|---|---|---|\n");
    for r in settings_rows() {
        let cell = |t: &str| t.replace('|', "\\|");
        let og = if r.opengotha.is_empty() {
            "—".to_string()
        } else {
            format!("`{}`", r.opengotha)
        };
        out.push_str(&format!(
            "| `{}` | {} | `{}` | {} |\n",
            r.key,
            cell(&r.meaning),
            cell(&r.default),
            og
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Opts {
        if_revision: Option<u64>,
        games: Option<Vec<Game>>,
        mode: Option<Mode>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Game {
        white: u32,
        black: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Compat,
        Strict,
    }

    #[test]
    fn nearest_is_by_edit_distance_ignoring_case() {
        assert_eq!(nearest("rnk", &["name", "rank", "rating"]), Some("rank"));
        assert_eq!(nearest("RANK", &["name", "rank"]), Some("rank"));
        assert_eq!(nearest("x", &[]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn serde_refusals_carry_the_path_and_the_nearest_key() {
        let e = from_value::<Opts>(&json!({"if_revisoin": 3}), "options").unwrap_err();
        assert_eq!(e.code, -32602);
        assert!(
            e.message.starts_with(
                "options.if_revisoin: unknown key \"if_revisoin\" (nearest valid key: \
                 \"if_revision\"; valid keys: if_revision, games, mode)"
            ),
            "{}",
            e.message
        );
        let e = from_value::<Opts>(
            &json!({"games": [{"white": 1, "black": 2}, {"white": 1, "blak": 2}]}),
            "options",
        )
        .unwrap_err();
        assert!(
            e.message.starts_with(
                "options.games[1].blak: unknown key \"blak\" (nearest valid key: \"black\""
            ),
            "{}",
            e.message
        );
        let e = from_value::<Opts>(&json!({"games": [{"white": "x", "black": 2}]}), "options")
            .unwrap_err();
        assert!(
            e.message
                .starts_with("options.games[0].white: invalid type: string \"x\""),
            "{}",
            e.message
        );
        let e = from_value::<Opts>(&json!({"mode": "strikt"}), "options").unwrap_err();
        assert!(
            e.message
                .starts_with("options.mode: unknown value \"strikt\" (nearest: \"strict\""),
            "{}",
            e.message
        );
        // A type error of the parameter itself keeps its old form.
        let e = from_value::<String>(&json!(3), "method_name").unwrap_err();
        assert_eq!(
            e.message,
            "parameter method_name: invalid type: integer `3`, expected a string"
        );
    }

    #[test]
    fn settings_are_checked_against_their_schema() {
        let s = &SCHEMAS.settings;
        let e = check(&json!({"handicap_rules": "x"}), s, "settings").unwrap_err();
        assert!(
            e.message.starts_with("settings.handicap_rules: unknown key \"handicap_rules\" (nearest valid key: \"handicap_komi2\""),
            "{}",
            e.message
        );
        let e = check(&json!({"handicap": {"max": 3}}), s, "settings").unwrap_err();
        assert!(
            e.message
                .starts_with("settings.handicap.max: unknown key \"max\" (nearest valid key:"),
            "{}",
            e.message
        );
        let e = check(&json!({"handicap": {"ceiling": 12}}), s, "settings").unwrap_err();
        assert_eq!(
            e.message,
            "settings.handicap.ceiling: 12 is above the maximum 9"
        );
        let e = check(&json!({"name": "x".repeat(201)}), s, "settings").unwrap_err();
        assert_eq!(
            e.message,
            "settings.name: 201 characters, more than the limit of 200"
        );
        let e = check(
            &json!({"time": {"overtime": {"kind": "byoyomi", "seconds": 30, "periode": 5}}}),
            s,
            "settings",
        )
        .unwrap_err();
        assert!(
            e.message.starts_with("settings.time.overtime.periode: unknown key \"periode\" (nearest valid key: \"periods\""),
            "{}",
            e.message
        );
        let e = check(&json!({"mcmahon": {"bar": 9}}), s, "settings").unwrap_err();
        assert_eq!(e.message, "settings.mcmahon.bar: 9 is above the maximum 8");
        let e = check(
            &json!({"pairing": {"forbidden_pairs": [[1, 2], [3, "x"]]}}),
            s,
            "settings",
        );
        assert!(e.is_ok(), "types are serde's: {e:?}");
        // extra is a map: any element and attribute names.
        check(
            &json!({"extra": {"DPParameterSet": {"anything": "1"}}}),
            s,
            "settings",
        )
        .unwrap();
        check(
            &json!({"name": "Open", "mcmahon": {"bar": "4d", "floor": -20}, "categories": ["1d", "10k"],
                    "pairing": {"dudd_group_span": null}}),
            s,
            "settings",
        )
        .unwrap();
    }

    /// The settings table of docs/tournament.md, between its markers.
    fn docs_table() -> Option<&'static str> {
        let doc = include_str!("../../docs/tournament.md");
        let start = doc.find("<!-- settings table -->")?;
        let body = &doc[start..];
        let body = &body[body.find('\n')? + 1..];
        Some(&body[..body.find("<!-- end of settings table -->")?])
    }

    #[test]
    fn the_docs_settings_table_is_the_types() {
        let want = settings_table();
        assert_eq!(
            docs_table().map(str::trim),
            Some(want.trim()),
            "docs/tournament.md's settings table (between <!-- settings table --> and <!-- end of \
             settings table -->) must be the one the types give; it is:\n{want}"
        );
    }

    #[test]
    fn the_table_names_every_key_of_the_settings() {
        let keys: Vec<String> = settings_rows().into_iter().map(|r| r.key).collect();
        let settings = serde_json::to_value(Settings::default()).unwrap();
        for (k, v) in settings.as_object().unwrap() {
            match v {
                Value::Object(m) if k != "extra" => {
                    for member in m.keys() {
                        let key = format!("{k}.{member}");
                        assert!(keys.contains(&key), "{key} missing from {keys:?}");
                    }
                }
                _ => assert!(keys.contains(k), "{k} missing from {keys:?}"),
            }
        }
        for k in ["clubs_groups", "teams", "time.overtime", "mcmahon.bar"] {
            assert!(keys.iter().any(|x| x == k), "{k}");
        }
        // Every row says what the key means.
        for r in settings_rows() {
            assert!(!r.meaning.is_empty(), "{} has no doc comment", r.key);
        }
    }

    #[test]
    fn every_struct_schema_refuses_other_keys() {
        for (name, d) in &SCHEMAS.definitions {
            if d.get("properties").is_some() {
                assert_eq!(d["additionalProperties"], json!(false), "{name}");
            }
        }
    }
}
