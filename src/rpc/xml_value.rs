//! An XML-RPC `<value>` written straight from any `Serialize` type, byte for byte what
//! [`super::xmlrpc::write_value`] writes for `serde_json::to_value` of the same thing, without
//! building the `serde_json::Value` tree first.
//!
//! A big answer (`sgf.parse` of a long record) as a `Value` costs a few kilobytes per node in
//! maps and small strings before a byte is written; written this way it costs its XML text.
//! The mapping is `to_value`'s (numbers, `None`/unit as null, enums as `{variant: …}`, maps with
//! their keys sorted and a repeated key's last value kept), followed by `write_value`'s
//! (`<i4>`/`<i8>`/Ruby-formatted `<double>`, null as `<nil/>` only to a client that used it,
//! else an empty string in arrays and left out of structs).

use std::cell::Cell;
use std::fmt::{self, Display, Write as _};

use serde::ser::{self, Impossible, Serialize};

use super::xmlrpc::{escape_into, ruby_float};

/// Why a value could not be written: what `serde_json::to_value` refuses too (map keys that
/// are not strings, numbers or booleans, integers past 64 bits, a `Serialize` impl's own
/// error), and floating-point map keys, which it would write as text.
#[derive(Debug)]
pub struct Error(String);

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Appends `x` as one XML-RPC `<value>…</value>` to `out`. `nil_ok`: the client used `<nil/>`
/// itself, so nulls may be written as such.
pub fn write<T: Serialize + ?Sized>(out: &mut String, x: &T, nil_ok: bool) -> Result<(), Error> {
    let start = out.len();
    let written = x.serialize(ValueWriter { out, nil_ok });
    if written.is_err() {
        out.truncate(start);
    }
    written.map(|_| ())
}

/// What a value turned out to be, so that a struct can leave out a null member.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Written {
    Null,
    Other,
}

struct ValueWriter<'a> {
    out: &'a mut String,
    nil_ok: bool,
}

impl<'a> ValueWriter<'a> {
    fn scalar(self, f: impl FnOnce(&mut String)) -> Result<Written, Error> {
        self.out.push_str("<value>");
        f(self.out);
        self.out.push_str("</value>");
        Ok(Written::Other)
    }

    fn null(self) -> Result<Written, Error> {
        self.out.push_str(if self.nil_ok {
            "<value><nil/></value>"
        } else {
            // Never <nil/> to a client that did not use it (Ruby's client rejects it).
            "<value><string></string></value>"
        });
        Ok(Written::Null)
    }

    fn int(self, i: i64) -> Result<Written, Error> {
        self.scalar(|out| {
            let _ = if i32::try_from(i).is_ok() {
                write!(out, "<i4>{i}</i4>")
            } else {
                write!(out, "<i8>{i}</i8>")
            };
        })
    }

    fn uint(self, u: u64) -> Result<Written, Error> {
        match i64::try_from(u) {
            Ok(i) => self.int(i),
            Err(_) => self.scalar(|out| {
                let _ = write!(out, "<i8>{u}</i8>");
            }),
        }
    }

    fn double(self, x: f64) -> Result<Written, Error> {
        // serde_json has no number for NaN or the infinities: they become null.
        if !x.is_finite() {
            return self.null();
        }
        self.scalar(|out| {
            let _ = write!(out, "<double>{}</double>", ruby_float(x));
        })
    }

    fn string(self, s: &str) -> Result<Written, Error> {
        self.scalar(|out| {
            out.push_str("<string>");
            escape_into(out, s);
            out.push_str("</string>");
        })
    }

    fn array(self) -> Seq<'a> {
        self.out.push_str("<value><array><data>");
        Seq {
            out: self.out,
            nil_ok: self.nil_ok,
            wrapped: false,
        }
    }

    fn structure(self) -> Struct<'a> {
        self.out.push_str("<value><struct>");
        let body = self.out.len();
        Struct {
            out: self.out,
            nil_ok: self.nil_ok,
            body,
            members: Vec::new(),
            key: None,
            wrapped: false,
        }
    }

    /// `{variant: …}`: the struct of one member an enum's data variant becomes.
    fn open_variant(self, variant: &str) -> Self {
        self.out.push_str("<value><struct><member><name>");
        escape_into(self.out, variant);
        self.out.push_str("</name>");
        self
    }
}

fn close_variant(out: &mut String) {
    out.push_str("</member></struct></value>");
}

impl<'a> ser::Serializer for ValueWriter<'a> {
    type Ok = Written;
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Struct<'a>;
    type SerializeStruct = Struct<'a>;
    type SerializeStructVariant = Struct<'a>;

    fn serialize_bool(self, b: bool) -> Result<Written, Error> {
        self.scalar(|out| {
            out.push_str(if b {
                "<boolean>1</boolean>"
            } else {
                "<boolean>0</boolean>"
            })
        })
    }
    fn serialize_i8(self, v: i8) -> Result<Written, Error> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Written, Error> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Written, Error> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Written, Error> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<Written, Error> {
        if let Ok(u) = u64::try_from(v) {
            self.uint(u)
        } else if let Ok(i) = i64::try_from(v) {
            self.int(i)
        } else {
            Err(Error("number out of range".into()))
        }
    }
    fn serialize_u8(self, v: u8) -> Result<Written, Error> {
        self.uint(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Written, Error> {
        self.uint(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Written, Error> {
        self.uint(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Written, Error> {
        self.uint(v)
    }
    fn serialize_u128(self, v: u128) -> Result<Written, Error> {
        match u64::try_from(v) {
            Ok(u) => self.uint(u),
            Err(_) => Err(Error("number out of range".into())),
        }
    }
    fn serialize_f32(self, v: f32) -> Result<Written, Error> {
        self.double(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Written, Error> {
        self.double(v)
    }
    fn serialize_char(self, c: char) -> Result<Written, Error> {
        self.string(c.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, s: &str) -> Result<Written, Error> {
        self.string(s)
    }
    fn serialize_bytes(self, bytes: &[u8]) -> Result<Written, Error> {
        // serde_json writes bytes as an array of numbers.
        let mut seq = self.array();
        for b in bytes {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        ser::SerializeSeq::end(seq)
    }
    fn serialize_none(self) -> Result<Written, Error> {
        self.null()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Written, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Written, Error> {
        self.null()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Written, Error> {
        self.null()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Written, Error> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Written, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Written, Error> {
        // A struct of one member, which a null value leaves empty as any null member.
        let mut s = self.structure();
        s.member(variant.to_string(), value)?;
        s.finish()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Error> {
        Ok(self.array())
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, Error> {
        Ok(self.array())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Error> {
        Ok(self.array())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, Error> {
        let mut seq = self.open_variant(variant).array();
        seq.wrapped = true;
        Ok(seq)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Struct<'a>, Error> {
        Ok(self.structure())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Struct<'a>, Error> {
        Ok(self.structure())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Struct<'a>, Error> {
        let mut s = self.open_variant(variant).structure();
        s.wrapped = true;
        Ok(s)
    }
}

thread_local! {
    /// The reply limit of the encoding job running on this thread ([`with_limit`]).
    static REPLY_LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
    /// Whether that job's answer reached it.
    static PAST_LIMIT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with `limit` on the bytes the writer here puts out on this thread (it stops with
/// an error at the limit rather than build a reply nobody may send); returns `f`'s output and
/// whether the writer reached the limit, which `f` may have turned into anything.
pub(crate) fn with_limit<T>(limit: usize, f: impl FnOnce() -> T) -> (T, bool) {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            REPLY_LIMIT.with(|l| l.set(self.0));
            PAST_LIMIT.with(|p| p.set(false));
        }
    }
    let _restore = Restore(REPLY_LIMIT.with(|l| l.replace(limit)));
    PAST_LIMIT.with(|p| p.set(false));
    let out = f();
    (out, PAST_LIMIT.with(Cell::get))
}

/// Whether an answer of `len` bytes so far has passed the limit of the job writing it (and,
/// if so, notes it for [`with_limit`]).
fn past_limit(len: usize) -> bool {
    let past = len > REPLY_LIMIT.with(Cell::get);
    if past {
        PAST_LIMIT.with(|p| p.set(true));
    }
    past
}

/// Stops the writing once the answer has passed its job's reply limit
/// ([`super::answer::within_reply_limit`]): checked after each array element and struct
/// member, so the text outgrows the limit by one of them at most.
fn stop_past_limit(out: &str) -> Result<(), Error> {
    if past_limit(out.len()) {
        return Err(Error("the answer passed the reply limit".into()));
    }
    Ok(())
}

/// An `<array>` being written.
struct Seq<'a> {
    out: &'a mut String,
    nil_ok: bool,
    /// Inside a `{variant: […]}` struct, closed with it.
    wrapped: bool,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(ValueWriter {
            out: self.out,
            nil_ok: self.nil_ok,
        })?;
        stop_past_limit(self.out)
    }

    fn finish(self) -> Result<Written, Error> {
        self.out.push_str("</data></array></value>");
        if self.wrapped {
            close_variant(self.out);
        }
        Ok(Written::Other)
    }
}

/// The array writer behind each of serde's sequence-like traits.
macro_rules! array_impls {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Seq<'_> {
            type Ok = Written;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<Written, Error> {
                self.finish()
            }
        }
    )*};
}

array_impls!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// One member written so far: its key, and where its `<member>…</member>` text lies in the
/// output (empty for a null left out).
struct Member {
    key: String,
    start: usize,
    end: usize,
}

/// A `<struct>` being written. Members are written as they come; `to_value` would have put
/// them in a map sorted by key with a repeated key's last value, so when they did not come
/// in that order, `end` rearranges the written text.
struct Struct<'a> {
    out: &'a mut String,
    nil_ok: bool,
    /// Where the first member starts.
    body: usize,
    members: Vec<Member>,
    /// The key given by `serialize_key`, waiting for its value.
    key: Option<String>,
    /// Inside a `{variant: {…}}` struct, closed with it.
    wrapped: bool,
}

impl Struct<'_> {
    fn member<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Error> {
        let start = self.out.len();
        self.out.push_str("<member><name>");
        escape_into(self.out, &key);
        self.out.push_str("</name>");
        let written = value.serialize(ValueWriter {
            out: self.out,
            nil_ok: self.nil_ok,
        })?;
        if written == Written::Null && !self.nil_ok {
            // write_value leaves null members out for a client that did not use <nil/>.
            self.out.truncate(start);
        } else {
            self.out.push_str("</member>");
        }
        let end = self.out.len();
        self.members.push(Member { key, start, end });
        stop_past_limit(self.out)
    }

    fn finish(mut self) -> Result<Written, Error> {
        let in_order = self.members.windows(2).all(|w| w[0].key < w[1].key);
        if !in_order {
            let body = self.out.split_off(self.body);
            let mut members = std::mem::take(&mut self.members);
            // Stable: among equal keys the last one given comes last, and is the one kept.
            members.sort_by(|a, b| a.key.cmp(&b.key));
            for (i, m) in members.iter().enumerate() {
                let repeated = members.get(i + 1).is_some_and(|n| n.key == m.key);
                if !repeated {
                    self.out
                        .push_str(&body[m.start - self.body..m.end - self.body]);
                }
            }
        }
        self.out.push_str("</struct></value>");
        if self.wrapped {
            close_variant(self.out);
        }
        Ok(Written::Other)
    }
}

impl ser::SerializeMap for Struct<'_> {
    type Ok = Written;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(KeyWriter)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("a map value came without its key".into()))?;
        self.member(key, value)
    }
    fn end(self) -> Result<Written, Error> {
        self.finish()
    }
}

/// The struct writer behind serde's two struct traits.
macro_rules! struct_impls {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Struct<'_> {
            type Ok = Written;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.member(key.to_string(), value)
            }
            fn end(self) -> Result<Written, Error> {
                self.finish()
            }
        }
    )*};
}

struct_impls!(SerializeStruct, SerializeStructVariant);

/// A map key as `serde_json::to_value` takes it: strings, characters, and integers and
/// booleans as their text (no answer has floating-point keys: they are refused).
struct KeyWriter;

fn key_error() -> Error {
    Error("key must be a string".into())
}

impl ser::Serializer for KeyWriter {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_bool(self, v: bool) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i128(self, v: i128) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u128(self, v: u128) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_f32(self, _: f32) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_f64(self, _: f64) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_char(self, v: char) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{Value, json};

    use super::super::xmlrpc::write_value;

    /// What the `Value` route writes for `x`: `to_value`, then `write_value`.
    fn via_value<T: Serialize>(x: &T, nil_ok: bool) -> String {
        let mut out = String::new();
        write_value(
            &mut out,
            &serde_json::to_value(x).expect("to_value"),
            nil_ok,
        );
        out
    }

    fn direct<T: Serialize>(x: &T, nil_ok: bool) -> String {
        let mut out = String::new();
        super::write(&mut out, x, nil_ok).expect("write");
        out
    }

    fn same<T: Serialize>(x: &T) {
        for nil_ok in [false, true] {
            assert_eq!(direct(x, nil_ok), via_value(x, nil_ok), "nil_ok {nil_ok}");
        }
    }

    /// Members given out of order and repeated, as a `Serialize` impl may give them.
    struct Pairs(Vec<(&'static str, Value)>);

    impl Serialize for Pairs {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(None)?;
            for (k, v) in &self.0 {
                m.serialize_entry(k, v)?;
            }
            m.end()
        }
    }

    #[derive(Serialize)]
    #[allow(dead_code)] // only serialised
    enum Shape {
        Unit,
        Newtype(Option<i32>),
        Tuple(u8, Option<String>),
        Struct { z: f64, a: Option<bool> },
    }

    #[derive(Serialize)]
    struct Fields {
        zeta: u64,
        alpha: i128,
        mid: Option<char>,
        bytes: serde_bytes_like::Bytes,
        floats: (f32, f64, f64),
        shapes: Vec<Shape>,
        keyed: std::collections::HashMap<u16, &'static str>,
    }

    /// `serialize_bytes` without a dependency: a byte slice given as bytes.
    mod serde_bytes_like {
        pub struct Bytes(pub Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[test]
    fn writes_what_the_value_route_writes() {
        same(&json!(null));
        same(&json!([
            null,
            true,
            false,
            0,
            -1,
            2147483647,
            2147483648u64,
            -2147483649i64
        ]));
        same(&json!({"b": null, "a": "x<&>\r\n y", "c": {"d": []}, "e": 1.5, "f": 1e20}));
        same(&json!(u64::MAX));
        same(&Pairs(vec![
            ("zz", json!(1)),
            ("a", json!(null)),
            ("m", json!("first")),
            ("a", json!(2)),
            ("m", json!(null)),
            ("b&", json!([1])),
        ]));
        same(&Pairs(vec![("k", json!(1)), ("k", json!(2))]));
        same(&Fields {
            zeta: 7,
            alpha: -5,
            mid: None,
            bytes: serde_bytes_like::Bytes(vec![0, 200, 255]),
            floats: (0.1, f64::NAN, -0.0),
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(None),
                Shape::Newtype(Some(3)),
                Shape::Tuple(1, None),
                Shape::Struct { z: 2.0, a: None },
            ],
            keyed: [(10, "ten"), (2, "two"), (33, "x")].into_iter().collect(),
        });
    }

    #[test]
    fn refuses_what_to_value_refuses() {
        let mut out = String::from("kept");
        assert!(super::write(&mut out, &(1u128 << 70), false).is_err());
        assert!(
            super::write(
                &mut out,
                &[((1, 2), 3)]
                    .into_iter()
                    .collect::<std::collections::BTreeMap<_, _>>(),
                false
            )
            .is_err()
        );
        assert_eq!(out, "kept", "a failed write leaves nothing behind");
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-c<&>\r\n\u{e9}]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-d&]{0,3}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_writes_as_write_value_does(v in any_value()) {
            for nil_ok in [false, true] {
                prop_assert_eq!(direct(&v, nil_ok), via_value(&v, nil_ok));
            }
        }
    }
}
