//! Settings changes as differences: a `settings_changed` event records the members that
//! changed as a JSON Patch (RFC 6902, its `add`, `replace` and `remove` operations) over the
//! previous settings' JSON, not the whole settings again. A change of one name used to store
//! every setting (and all of `extra`, teams and clubs groups) once more; now it stores the name.
//!
//! Objects are compared member by member; any other value that changed (a string, a number,
//! an array such as `placement` or `forbidden_pairs`) is replaced whole. Paths are JSON
//! Pointers (RFC 6901: `/pairing/dudd_group_span`, `~1` for a `/` and `~0` for a `~` in a key).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One operation of a JSON Patch (the three a difference of two documents needs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum PatchOp {
    // A missing `value` is null: `tournament.events` leaves nulls out of what it shows, and
    // what it shows must read back as the same operation.
    Add {
        path: String,
        #[serde(default)]
        value: Value,
    },
    Replace {
        path: String,
        #[serde(default)]
        value: Value,
    },
    Remove {
        path: String,
    },
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The operations that turn `old` into `new`.
pub fn diff(old: &Value, new: &Value) -> Vec<PatchOp> {
    let mut out = Vec::new();
    diff_at(old, new, &mut String::new(), &mut out);
    out
}

fn diff_at(old: &Value, new: &Value, path: &mut String, out: &mut Vec<PatchOp>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                let len = path.len();
                path.push('/');
                path.push_str(&escape(k));
                match b.get(k) {
                    None => out.push(PatchOp::Remove { path: path.clone() }),
                    Some(vb) if vb != va => diff_at(va, vb, path, out),
                    Some(_) => {}
                }
                path.truncate(len);
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    out.push(PatchOp::Add {
                        path: format!("{path}/{}", escape(k)),
                        value: vb.clone(),
                    });
                }
            }
        }
        _ if old != new => out.push(PatchOp::Replace {
            path: path.clone(),
            value: new.clone(),
        }),
        _ => {}
    }
}

/// Applies `ops` to `doc` in order. Only object members are addressed (the differences
/// [`diff`] makes); anything else is an error naming the operation.
pub fn apply(doc: &mut Value, ops: &[PatchOp]) -> Result<(), String> {
    for op in ops {
        let path = match op {
            PatchOp::Add { path, .. }
            | PatchOp::Replace { path, .. }
            | PatchOp::Remove { path } => path,
        };
        if path.is_empty() {
            match op {
                PatchOp::Add { value, .. } | PatchOp::Replace { value, .. } => {
                    *doc = value.clone();
                    continue;
                }
                PatchOp::Remove { .. } => return Err("cannot remove the whole document".into()),
            }
        }
        let Some(rest) = path.strip_prefix('/') else {
            return Err(format!("path {path:?} does not start with /"));
        };
        let tokens: Vec<String> = rest.split('/').map(unescape).collect();
        let (last, parents) = tokens
            .split_last()
            .ok_or_else(|| format!("empty path {path:?}"))?;
        let mut at = &mut *doc;
        for t in parents {
            at = at
                .as_object_mut()
                .and_then(|m| m.get_mut(t))
                .ok_or_else(|| format!("path {path:?}: no member {t:?}"))?;
        }
        let map = at
            .as_object_mut()
            .ok_or_else(|| format!("path {path:?} does not name an object member"))?;
        match op {
            PatchOp::Add { value, .. } => {
                map.insert(last.clone(), value.clone());
            }
            // Read leniently, as stored settings are: a member that a later version no longer
            // writes is set again or left gone, so an old log still replays.
            PatchOp::Replace { value, .. } => {
                map.insert(last.clone(), value.clone());
            }
            PatchOp::Remove { .. } => {
                map.remove(last);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_difference_names_only_what_changed_and_applies_back() {
        let old = json!({
            "name": "Open", "rounds": 5,
            "pairing": {"dudd_group_span": 4, "random": 0},
            "extra": {"a/b": {"x": "1"}, "gone": {}, "t~": {"y": "2"}},
            "placement": ["MMS", "SOSM"]
        });
        let new = json!({
            "name": "Open", "rounds": 5,
            "pairing": {"dudd_group_span": null, "random": 0},
            "extra": {"a/b": {"x": "1", "z": "3"}, "t~": {"y": "2"}, "new": {}},
            "placement": ["MMS"],
            "teams": []
        });
        let ops = diff(&old, &new);
        let mut sorted = serde_json::to_value(&ops)
            .unwrap()
            .as_array()
            .unwrap()
            .clone();
        sorted.sort_by_key(|op| op["path"].as_str().unwrap().to_string());
        assert_eq!(
            Value::Array(sorted),
            json!([
                {"op": "add", "path": "/extra/a~1b/z", "value": "3"},
                {"op": "remove", "path": "/extra/gone"},
                {"op": "add", "path": "/extra/new", "value": {}},
                {"op": "replace", "path": "/pairing/dudd_group_span", "value": null},
                {"op": "replace", "path": "/placement", "value": ["MMS"]},
                {"op": "add", "path": "/teams", "value": []},
            ])
        );
        let mut doc = old.clone();
        apply(&mut doc, &ops).unwrap();
        assert_eq!(doc, new);
        assert!(diff(&new, &new).is_empty());
        // Back again, through the same operations read from their JSON.
        let back: Vec<PatchOp> =
            serde_json::from_value(serde_json::to_value(diff(&new, &old)).unwrap()).unwrap();
        apply(&mut doc, &back).unwrap();
        assert_eq!(doc, old);
    }

    #[test]
    fn a_patch_that_does_not_fit_the_document_is_an_error() {
        let mut doc = json!({"a": {"b": 1}, "n": 3});
        for op in [
            PatchOp::Replace {
                path: "/missing/x".into(),
                value: json!(1),
            },
            PatchOp::Remove {
                path: "/n/zz".into(),
            },
            PatchOp::Add {
                path: "/n/x".into(),
                value: json!(1),
            },
            PatchOp::Add {
                path: "no-slash".into(),
                value: json!(1),
            },
        ] {
            assert!(
                apply(&mut doc, std::slice::from_ref(&op)).is_err(),
                "{op:?}"
            );
        }
        assert_eq!(doc, json!({"a": {"b": 1}, "n": 3}));
    }

    #[test]
    fn a_patch_reads_leniently() {
        // A member a later version no longer writes: replaced (set again) or removed (gone
        // already) all the same, so the log replays.
        let mut doc = json!({"a": {"b": 1}});
        let ops = vec![
            PatchOp::Replace {
                path: "/a/gone".into(),
                value: json!(2),
            },
            PatchOp::Remove {
                path: "/a/never".into(),
            },
        ];
        apply(&mut doc, &ops).unwrap();
        assert_eq!(doc, json!({"a": {"b": 1, "gone": 2}}));
        // A null value left out (as tournament.events shows it) reads as null.
        let op: PatchOp = serde_json::from_value(json!({"op": "replace", "path": "/a/b"})).unwrap();
        assert_eq!(
            op,
            PatchOp::Replace {
                path: "/a/b".into(),
                value: Value::Null
            }
        );
    }
}
