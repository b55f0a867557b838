//! What a simulation is asked to do, as JSON (the `simulate.*` methods' parameter and the
//! CLI's `--spec` file), and its checked form.
//!
//! ```json
//! {"field": {"generate": {"players": 40, "from": "20k", "to": "3d"}},
//!  "variants": [{"name": "bar 1d", "settings": {"mcmahon": {"bar": "1d"}}},
//!               {"name": "bar 3d", "settings": {"mcmahon": {"bar": "3d"}}}],
//!  "model": {"kind": "egf"}, "runs": 1000, "seed": 1}
//! ```
//!
//! A variant's `settings` are any `tournament.*` settings, laid over the defaults of its
//! `system` (McMahon when absent) the way `tournament.create` lays them; ranks may be given
//! as text ("1d") wherever the settings hold one. Unknown keys are refused with their path.

use serde::Deserialize;
use serde_json::Value;

use super::field::{Field, FieldSpec, prepare};
use super::model::ResultModel;
use crate::pairing::model::Model;
use crate::tournament::engine::check_settings;
use crate::tournament::model::{Settings, System, parse_rank};

/// One pairing system to try.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    /// Shown in reports (default: the settings as compact JSON).
    pub name: Option<String>,
    #[serde(default)]
    pub settings: Value,
    /// A weighted-term cost model by preset name (`gopair`, `opengotha_terms`, …) instead of
    /// OpenGotha's exact weight (the default, as for `tournament.round.pair`).
    pub pairing_model: Option<String>,
}

/// A simulation request.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub field: FieldSpec,
    /// Error of a player's rating as a measure of true strength, in grades (SD of a normal).
    #[serde(default = "default_sd")]
    pub strength_sd: f64,
    #[serde(default = "default_variants")]
    pub variants: Vec<VariantSpec>,
    #[serde(default)]
    pub model: ResultModel,
    pub runs: u64,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

fn default_sd() -> f64 {
    0.5
}

fn default_seed() -> u64 {
    1
}

fn default_variants() -> Vec<VariantSpec> {
    vec![VariantSpec {
        name: None,
        settings: Value::Object(Default::default()),
        pairing_model: None,
    }]
}

/// A checked variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub name: String,
    pub settings: Settings,
    pub pairing_model: Option<Model>,
}

/// A checked simulation, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub field: Field,
    pub strength_sd: f64,
    pub variants: Vec<Variant>,
    pub model: ResultModel,
    pub runs: u64,
    pub seed: u64,
}

/// Caps a caller puts on a simulation (the daemon's settings; the CLI's are wider).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_players: usize,
    pub max_variants: usize,
    /// Runs × variants.
    pub max_tournaments: u64,
}

/// Most variants one simulation compares.
pub const MAX_VARIANTS: usize = 16;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_players: crate::tournament::engine::MAX_PLAYERS,
            max_variants: MAX_VARIANTS,
            max_tournaments: u64::MAX,
        }
    }
}

/// Settings keys that hold a rank: text is turned into OpenGotha's integer.
const RANK_PATHS: &[&[&str]] = &[
    &["mcmahon", "bar"],
    &["mcmahon", "floor"],
    &["mcmahon", "zero"],
    &["handicap", "no_handicap_threshold"],
    &["pairing", "se_rank_threshold"],
];

fn rank_at(v: &mut Value, path: &str) -> Result<(), String> {
    if let Value::String(s) = v {
        let r = parse_rank(s).ok_or_else(|| {
            format!(
                "{path}: {:?} is not a rank like 1d or 12k",
                s.chars().take(20).collect::<String>()
            )
        })?;
        *v = Value::from(r);
    }
    Ok(())
}

/// Refuses keys of `patch` that `base` (a serialized `Settings`) does not have, naming the
/// path; maps (`extra`) take any key.
fn unknown_keys(patch: &Value, base: &Value, path: &str) -> Result<(), String> {
    if let (Value::Object(p), Value::Object(b)) = (patch, base) {
        if path.ends_with(".extra") {
            return Ok(());
        }
        for (k, v) in p {
            match b.get(k) {
                Some(bv) => unknown_keys(v, bv, &format!("{path}.{k}"))?,
                // Optional settings left out when empty serialize to nothing: allowed.
                None if ["clubs_groups", "teams"].contains(&k.as_str()) => {}
                None => {
                    let near = b
                        .keys()
                        .min_by_key(|x| edit_distance(x, k))
                        .map(|x| format!(" (did you mean {x}?)"))
                        .unwrap_or_default();
                    return Err(format!(
                        "{path}: unknown setting {:?}{near}",
                        k.chars().take(40).collect::<String>()
                    ));
                }
            }
        }
    }
    Ok(())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(&k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, p) => *b = p,
    }
}

/// A variant's settings: `patch` over the defaults of its system, checked like a new
/// tournament's. `path` names the patch in errors.
pub fn settings_from(patch: &Value, path: &str) -> Result<Settings, String> {
    let mut patch = match patch {
        Value::Null => Value::Object(Default::default()),
        Value::Object(_) => patch.clone(),
        _ => return Err(format!("{path} must be a struct")),
    };
    let system = match patch.get("system") {
        None | Some(Value::Null) => System::default(),
        Some(v) => System::deserialize(v)
            .map_err(|e| format!("{path}.system: {e} (mcmahon, swiss, swisscat or cup)"))?,
    };
    for p in RANK_PATHS {
        if let Some(v) = patch.get_mut(p[0]).and_then(|o| o.get_mut(p[1])) {
            rank_at(v, &format!("{path}.{}.{}", p[0], p[1]))?;
        }
    }
    if let Some(Value::Array(cats)) = patch.get_mut("categories") {
        for (k, c) in cats.iter_mut().enumerate() {
            rank_at(c, &format!("{path}.categories[{k}]"))?;
        }
    }
    let defaults = Settings::defaults(system);
    let mut v = serde_json::to_value(&defaults).map_err(|e| e.to_string())?;
    unknown_keys(&patch, &v, path)?;
    merge(&mut v, patch);
    let s: Settings = serde_json::from_value(v).map_err(|e| format!("{path}: {e}"))?;
    check_settings(&s).map_err(|e| format!("{path}: {e}"))?;
    if !s.pairing.forbidden_pairs.is_empty() {
        return Err(format!(
            "{path}.pairing.forbidden_pairs: simulated players are not known in advance"
        ));
    }
    Ok(s)
}

impl Spec {
    /// Reads a spec from JSON, refusing unknown members.
    pub fn from_value(v: Value) -> Result<Spec, String> {
        serde_json::from_value(v).map_err(|e| format!("simulation spec: {e}"))
    }

    /// Checks the spec against `limits` and resolves every variant's settings.
    pub fn prepare(self, limits: &Limits) -> Result<Prepared, String> {
        let field = prepare(self.field)?;
        if field.size() > limits.max_players {
            return Err(format!(
                "the field has {} players: at most {} per simulation",
                field.size(),
                limits.max_players
            ));
        }
        if !(self.strength_sd.is_finite() && (0.0..=10.0).contains(&self.strength_sd)) {
            return Err("strength_sd must be 0 … 10 grades".into());
        }
        if self.variants.is_empty() || self.variants.len() > limits.max_variants {
            return Err(format!(
                "variants: 1 … {} variants per simulation",
                limits.max_variants
            ));
        }
        self.model.check()?;
        if self.runs == 0 {
            return Err("runs must be at least 1".into());
        }
        let tournaments = self.runs.saturating_mul(self.variants.len() as u64);
        if tournaments > limits.max_tournaments {
            return Err(format!(
                "{} runs × {} variants = {tournaments} tournaments: at most {} per simulation",
                self.runs,
                self.variants.len(),
                limits.max_tournaments
            ));
        }
        let mut variants = Vec::with_capacity(self.variants.len());
        for (k, v) in self.variants.into_iter().enumerate() {
            let path = format!("variants[{k}].settings");
            let settings = settings_from(&v.settings, &path)?;
            let pairing_model = match v.pairing_model.as_deref() {
                None | Some("opengotha") => None,
                Some(name) => Some(Model::preset(name).ok_or_else(|| {
                    format!(
                        "variants[{k}].pairing_model: unknown model {:?}",
                        name.chars().take(40).collect::<String>()
                    )
                })?),
            };
            let name = match v.name {
                Some(n) if !n.trim().is_empty() => n.chars().take(80).collect(),
                _ => {
                    let mut n = match &v.settings {
                        Value::Object(m) if m.is_empty() => "defaults".to_string(),
                        Value::Null => "defaults".to_string(),
                        other => other.to_string(),
                    };
                    if let Some(m) = &v.pairing_model {
                        n.push_str(&format!(" / {m}"));
                    }
                    n.chars().take(80).collect()
                }
            };
            variants.push(Variant {
                name,
                settings,
                pairing_model,
            });
        }
        Ok(Prepared {
            field,
            strength_sd: self.strength_sd,
            variants,
            model: self.model,
            runs: self.runs,
            seed: self.seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> Result<Prepared, String> {
        Spec::from_value(v)?.prepare(&Limits::default())
    }

    #[test]
    fn variants_lay_their_settings_over_the_system_defaults() {
        let p = spec(json!({
            "field": {"generate": {"players": 40, "from": "20k", "to": "3d"}},
            "variants": [
                {"name": "bar 1d", "settings": {"mcmahon": {"bar": "1d"}, "rounds": 4}},
                {"settings": {"system": "swiss"}, "pairing_model": "gopair"}
            ],
            "runs": 10
        }))
        .unwrap();
        assert_eq!(p.variants[0].name, "bar 1d");
        assert_eq!(p.variants[0].settings.mcmahon.bar, 0);
        assert_eq!(p.variants[0].settings.rounds, 4);
        assert_eq!(
            p.variants[0].settings.mcmahon.floor,
            Settings::defaults(System::Mcmahon).mcmahon.floor
        );
        assert_eq!(p.variants[1].settings, Settings::defaults(System::Swiss));
        assert!(p.variants[1].pairing_model.is_some());
        assert!(p.variants[1].name.contains("swiss"));
        assert_eq!((p.seed, p.strength_sd), (1, 0.5));
    }

    #[test]
    fn mistakes_are_refused_with_their_path() {
        let base = |variants: Value| {
            spec(json!({
                "field": {"generate": {"players": 10, "from": "5k", "to": "1d"}},
                "variants": variants, "runs": 1
            }))
            .unwrap_err()
        };
        let e = base(json!([{"settings": {"mcmahon": {"barr": "1d"}}}]));
        assert!(
            e.contains("variants[0].settings.mcmahon") && e.contains("bar"),
            "{e}"
        );
        let e = base(json!([{"settings": {"mcmahon": {"bar": "1x"}}}]));
        assert!(e.contains("not a rank"), "{e}");
        let e = base(json!([{"settings": {"rounds": 0}}]));
        assert!(e.contains("rounds"), "{e}");
        let e = base(json!([{"pairing_model": "nope"}]));
        assert!(e.contains("unknown model"), "{e}");
        let e = base(json!([]));
        assert!(e.contains("variants"), "{e}");
        let e = spec(
            json!({"field": {"generate": {"players": 10, "from": "5k", "to": "1d"}},
                            "runs": 1, "modle": {}}),
        )
        .unwrap_err();
        assert!(e.contains("modle"), "{e}");
    }

    #[test]
    fn limits_are_enforced() {
        let limits = Limits {
            max_players: 50,
            max_variants: 2,
            max_tournaments: 100,
        };
        let s = |players: usize, runs: u64, variants: usize| {
            Spec::from_value(json!({
                "field": {"generate": {"players": players, "from": "5k", "to": "1d"}},
                "variants": vec![json!({}); variants], "runs": runs
            }))
            .unwrap()
            .prepare(&limits)
        };
        assert!(s(50, 50, 2).is_ok());
        assert!(s(51, 1, 1).unwrap_err().contains("at most 50"));
        assert!(s(10, 51, 2).unwrap_err().contains("at most 100"));
        assert!(s(10, 1, 3).unwrap_err().contains("variants"));
        assert!(s(10, 0, 1).unwrap_err().contains("runs"));
    }
}
