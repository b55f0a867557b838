//! `rpc.discover`'s OpenRPC 1.2.6 document, made from the method table: each method's
//! parameters and result come from the Rust types its entry declares ([`Doc`]), through
//! `schemars`, so the document says what the handler decodes (a method's parameters are one
//! struct, read with [`Params::decode`](super::Params::decode)) and what it answers. Named
//! types go to `components/schemas` and are referred to with `$ref`; each method lists the
//! error codes it may answer with their meanings ([`MEANINGS`]) and has one example
//! (`examples.json`, run by the tests against a live daemon).
//!
//! A method whose entry declares no types yet is described from its table entry alone (the
//! XML-RPC type names of `system.methodSignature`).

use std::sync::LazyLock;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::{Method, TABLE};

/// Makes the schema of one type, its named parts put in the generator's definitions.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// What the document says of one method beyond its table entry: the Rust types of its
/// parameters (one struct, a member per parameter in the table's order) and of its result,
/// and the error codes it may answer besides those every method may ([`COMMON_ERRORS`]).
#[derive(Clone, Copy)]
pub struct Doc {
    pub params: Option<SchemaFn>,
    pub result: Option<SchemaFn>,
    pub errors: &'static [i32],
    /// A subscription's notification (`x-notification` in the document).
    pub notification: Option<Notification>,
}

/// The notification a subscription method sends, as its method declares it: the document
/// needs nothing else from the method's module.
#[derive(Clone, Copy)]
pub struct Notification {
    /// The notification's method name.
    pub name: &'static str,
    /// The method that ends the subscription.
    pub unsubscribe: &'static str,
    /// The schema of its `params.result`.
    pub result: SchemaFn,
}

fn schema_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// A parameter struct's own schema: its members become the method's parameters, so the struct
/// itself is not a named schema (the types of its members are).
fn members_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    T::json_schema(g)
}

impl Doc {
    /// Nothing declared: the document falls back on the table's type names.
    pub const NONE: Doc = Doc {
        params: None,
        result: None,
        errors: &[],
        notification: None,
    };

    /// Parameters read as `P`, answered as `R`.
    pub const fn typed<P: JsonSchema, R: JsonSchema>() -> Doc {
        Doc {
            params: Some(members_of::<P>),
            result: Some(schema_of::<R>),
            errors: &[],
            notification: None,
        }
    }

    /// The same, with the method's own error codes.
    pub const fn errors(self, errors: &'static [i32]) -> Doc {
        Doc { errors, ..self }
    }

    /// The same, for a subscription that sends `N` as its notification `name` until
    /// `unsubscribe` ends it.
    pub const fn notifies<N: JsonSchema>(
        self,
        name: &'static str,
        unsubscribe: &'static str,
    ) -> Doc {
        Doc {
            notification: Some(Notification {
                name,
                unsubscribe,
                result: schema_of::<N>,
            }),
            ..self
        }
    }
}

/// The parameters of a method that takes none.
#[derive(serde::Deserialize, JsonSchema)]
pub struct NoParams {}

/// The codes any method may answer: its parameters, a failure of ours, the time budget, the
/// reply size.
pub const COMMON_ERRORS: &[i32] = &[-32602, -32603, -32012, -32013];

/// Every error code a method declares, and what it means (the README's Error codes table and
/// the namespaces' pages say more).
pub const MEANINGS: &[(i32, &str)] = &[
    (
        1,
        "matchmaker: missing or wrong parameters (rswiss's fault 1)",
    ),
    (
        2,
        "matchmaker: bad value, the message names it (no tournament, no player, the log's byte budget)",
    ),
    (101, "matchmaker: repeated player ids"),
    (
        201,
        "matchmaker: matches still to be returned before the next round",
    ),
    (202, "matchmaker: the tournament reached its end"),
    (204, "matchmaker: no round can be paired without a repeat"),
    (
        205,
        "matchmaker: allowing a repeat as last resort was not enough",
    ),
    (303, "matchmaker: this match has not been checked out"),
    (401, "matchmaker: the tournament has not ended yet"),
    (402, "matchmaker: a tie the criteria cannot break"),
    (610, "pairing: no pairing exists"),
    (611, "pairing: unknown model, term or seeding"),
    (612, "pairing: costs too large to solve exactly"),
    (613, "pairing: over 10,000 players"),
    (710, "sgf: the record does not load"),
    (711, "sgf: invalid for the method"),
    (712, "sgf: charset"),
    (713, "sgf: invalid tree"),
    (714, "sgf: over a per-call cap (nodes, games)"),
    (810, "score: the record does not load"),
    (811, "score: the record cannot be replayed"),
    (812, "score: illegal move"),
    (813, "score: illegal setup"),
    (821, "score: no stone there"),
    (822, "score: off the board"),
    (830, "score: over 1 MiB"),
    (910, "aga: the files have errors"),
    (911, "aga: report refused"),
    (912, "aga: no scoring band"),
    (913, "aga: over the per-call line cap"),
    (1001, "no such tournament"),
    (
        1002,
        "stale if_revision: data.revision is the tournament's revision now",
    ),
    (1003, "the tournament is archived"),
    (1010, "invalid value across values or against the state"),
    (1011, "no such player"),
    (1012, "duplicate name and first name"),
    (1013, "too many players"),
    (1020, "no such round"),
    (
        1021,
        "not the round this applies to (pair the next, edit the last)",
    ),
    (1022, "the round has results"),
    (1023, "nobody to pair"),
    (1024, "no pairing exists (forbidden pairs)"),
    (1025, "a player twice in a round"),
    (1026, "the player cannot play the round"),
    (1027, "the player is already paired"),
    (1028, "no game at that table"),
    (1029, "the game has a result"),
    (
        1030,
        "the change conflicts with a round the player is paired in",
    ),
    (1031, "the record is not SGF"),
    (1032, "the record is refused in strict mode"),
    (1033, "unknown result code"),
    (1034, "pairing costs too large"),
    (1035, "no record for the game"),
    (1036, "round.pair's options.model is unknown or unusable"),
    (1037, "with auth on, the round is not published yet"),
    (
        1038,
        "the write would take the tournament's log past max_tournament_bytes (data gives the numbers)",
    ),
    (1040, "after_round out of range"),
    (1041, "unknown placement criterion, or more than 12"),
    (1042, "unknown export format"),
    (1060, "unknown import/export format"),
    (1061, "the file cannot be read"),
    (1062, "the file cannot be a goswiss tournament"),
    (1063, "AGA report refused"),
    (1101, "no such simulation"),
    (1102, "too many simulations running (or simulations off)"),
    (1103, "over a simulation cap"),
    (
        1201,
        "not a rating list kind (egf, ffg, aga; all for a search)",
    ),
    (1202, "the file does not read as a rating list of that kind"),
    (
        1203,
        "over a rating-list cap (bytes, rows, query length, limit)",
    ),
    (1204, "no rating list of that kind has been imported"),
    (
        -32006,
        "too many subscriptions (data names the cap and its value)",
    ),
    (
        -32008,
        "storage unavailable: a write may have been recorded",
    ),
    (-32009, "storage conflict: nothing was recorded, try again"),
    (
        -32010,
        "unauthorized: the call needs a token it did not carry",
    ),
    (
        -32011,
        "forbidden: the caller's tournament quota is used up",
    ),
    (
        -32012,
        "the call ran past request_budget_ms (data.request_budget_ms)",
    ),
    (
        -32013,
        "the reply would pass max_reply_bytes (data.max_reply_bytes)",
    ),
    (
        -32020,
        "WebSocket only: called over XML-RPC, plain HTTP or in a multicall",
    ),
    (-32600, "invalid request"),
    (-32601, "method not found"),
    (
        -32602,
        "invalid parameters; data.path is the bad value's path (and data.nearest the nearest valid key)",
    ),
    (-32603, "internal error"),
];

/// What `code` means (empty for a code not in [`MEANINGS`], which a test rules out).
pub fn meaning(code: i32) -> &'static str {
    MEANINGS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or("", |(_, m)| m)
}

/// Where named schemas live, and so what their `$ref`s say.
const DEFINITIONS: &str = "#/components/schemas/";

/// The methods' examples: `{method: {"params": [...], "result": ...}}`.
static EXAMPLES: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("examples.json")).unwrap_or_else(|e| {
        tracing::error!(error = %e, "src/rpc/examples.json does not read");
        Map::new()
    })
});

/// A method's example (params and result), if it has one.
pub fn example(method: &str) -> Option<&'static Value> {
    EXAMPLES.get(method)
}

/// The schema of an XML-RPC type name, for methods that declare no types.
fn fallback(ty: &str) -> Value {
    match ty {
        "int" => json!({"type": "integer"}),
        "double" => json!({"type": "number"}),
        "boolean" => json!({"type": "boolean"}),
        "string" | "base64" | "dateTime.iso8601" => json!({"type": "string"}),
        // Generators need `items` (any item, when the table says no more).
        "array" => json!({"type": "array", "items": {}}),
        "struct" => json!({"type": "object"}),
        _ => json!({}),
    }
}

/// The member `name` of an object schema (following one `$ref`), and whether it is required.
fn member(schema: &Value, name: &str, definitions: &Map<String, Value>) -> Option<(Value, bool)> {
    let target = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => definitions.get(r.strip_prefix(DEFINITIONS)?)?,
        None => schema,
    };
    let property = target.get("properties")?.get(name)?.clone();
    let required = target
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|k| k == name));
    Some((property, required))
}

/// The declared parameters of `m`: (name, schema, required), in the table's order.
fn params(m: &Method, g: &mut SchemaGenerator) -> Vec<(String, Value, bool)> {
    let declared = m.doc.params.map(|f| f(g).to_value());
    let definitions = g.definitions().clone();
    m.params
        .iter()
        .map(|p| {
            let typed = declared
                .as_ref()
                .and_then(|s| member(s, p.name, &definitions));
            match typed {
                Some((schema, _)) => (p.name.to_string(), schema, p.required),
                None => (
                    p.name.to_string(),
                    super::input::param_schema(m.name, p.name).unwrap_or_else(|| fallback(p.ty)),
                    p.required,
                ),
            }
        })
        .collect()
}

/// The errors `m` may answer, each with its meaning, in code order.
pub fn errors(m: &Method) -> Vec<i32> {
    let mut codes: Vec<i32> = COMMON_ERRORS.iter().chain(m.doc.errors).copied().collect();
    codes.sort_unstable_by_key(|c| (*c < 0, c.unsigned_abs()));
    codes.dedup();
    codes
}

/// The generator every schema of the document comes from: types as callers send them
/// (`for_deserialize`), definitions under `components/schemas`.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft07()
        .for_deserialize()
        .with(|s| s.definitions_path = DEFINITIONS.into())
        .into_generator()
}

/// One method's description.
fn method_doc(m: &Method, g: &mut SchemaGenerator) -> Value {
    let params: Vec<Value> = params(m, g)
        .into_iter()
        .map(|(name, schema, required)| json!({"name": name, "required": required, "schema": schema}))
        .collect();
    let result = match m.doc.result {
        Some(f) => f(g).to_value(),
        None => fallback(m.returns),
    };
    let mut doc = json!({
        "name": m.name,
        "summary": m.help,
        "paramStructure": "either",
        "params": params,
        "result": {"name": "result", "schema": result},
        "errors": errors(m).into_iter().map(|code| json!({
            "code": code,
            "message": meaning(code),
        })).collect::<Vec<_>>(),
    });
    if let Some(ex) = example(m.name) {
        let values = ex.get("params").and_then(Value::as_array);
        let given: Vec<Value> = m
            .params
            .iter()
            .zip(values.into_iter().flatten())
            .map(|(p, v)| json!({"name": p.name, "value": v}))
            .collect();
        doc["examples"] = json!([{
            "name": format!("{} example", m.name),
            "params": given,
            "result": {"name": "result", "value": ex.get("result").cloned().unwrap_or(Value::Null)},
        }]);
    }
    if let Some(n) = m.doc.notification {
        doc["x-notification"] = json!({
            "name": n.name,
            "params": {"subscription": format!("the id {} answered", m.name),
                       "result": (n.result)(g).to_value()},
            "unsubscribe": n.unsubscribe,
        });
    }
    doc
}

/// The whole document.
pub fn document() -> Value {
    let mut g = generator();
    let methods: Vec<Value> = TABLE.iter().map(|m| method_doc(m, &mut g)).collect();
    let mut schemas = g.take_definitions(true);
    for schema in schemas.values_mut() {
        super::input::close_objects(schema);
    }
    // The settings and player schemas of strict input (their `$ref`s are the same names).
    for (name, schema) in &super::input::SCHEMAS.definitions {
        schemas
            .entry(name.clone())
            .or_insert_with(|| schema.clone());
    }
    json!({
        "openrpc": "1.2.6",
        "info": {"title": "goswiss", "version": env!("CARGO_PKG_VERSION")},
        "methods": methods,
        "components": {"schemas": schemas},
    })
}

/// The document, made once (it depends only on the binary).
pub static DOCUMENT: LazyLock<Value> = LazyLock::new(document);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_code_has_a_meaning() {
        for m in TABLE.iter() {
            for code in errors(m) {
                assert!(!meaning(code).is_empty(), "{}: {code}", m.name);
            }
        }
    }

    #[test]
    fn declared_params_are_the_tables() {
        let mut g = generator();
        for m in TABLE.iter() {
            let Some(f) = m.doc.params else { continue };
            let schema = f(&mut g).to_value();
            let definitions = g.definitions().clone();
            let target = match schema.get("$ref").and_then(Value::as_str) {
                Some(r) => definitions[r.strip_prefix(DEFINITIONS).unwrap()].clone(),
                None => schema,
            };
            let props: Vec<&String> = target["properties"]
                .as_object()
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            let mut names: Vec<&str> = m.params.iter().map(|p| p.name).collect();
            let mut got: Vec<&str> = props.iter().map(|s| s.as_str()).collect();
            names.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, names, "{}: the params struct's members", m.name);
            for p in m.params {
                let (_, required) = member(&target, p.name, &definitions).unwrap();
                assert_eq!(required, p.required, "{}.{}: required", m.name, p.name);
            }
        }
    }

    #[test]
    fn every_array_says_its_items() {
        fn walk(v: &Value, at: &str) {
            match v {
                Value::Object(o) => {
                    if o.get("type") == Some(&json!("array")) {
                        assert!(
                            o.contains_key("items") || o.contains_key("prefixItems"),
                            "{at}"
                        );
                    }
                    for (k, x) in o {
                        if k != "examples" && k != "default" && k != "x-example" {
                            walk(x, &format!("{at}/{k}"));
                        }
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        walk(x, &format!("{at}/{i}"));
                    }
                }
                _ => {}
            }
        }
        let doc = document();
        for m in doc["methods"].as_array().unwrap() {
            let name = m["name"].as_str().unwrap();
            for p in m["params"].as_array().unwrap() {
                walk(&p["schema"], name);
            }
            walk(&m["result"]["schema"], name);
        }
        walk(&doc["components"], "components");
    }

    #[test]
    fn every_method_has_one_example_with_its_params() {
        for m in TABLE.iter() {
            let ex = example(m.name).unwrap_or_else(|| panic!("{} has no example", m.name));
            let params = ex["params"].as_array().unwrap();
            assert!(
                params.len() >= m.required_params() && params.len() <= m.params.len(),
                "{}: example params",
                m.name
            );
        }
        for name in EXAMPLES.keys() {
            assert!(
                super::super::lookup(name).is_some(),
                "example of no method {name}"
            );
        }
    }
}
