#!/usr/bin/env python3
"""Reference outputs of sgfmill 1.1.1 (and of Python's codec registry, which sgfmill relies
on) for goswiss's SGF robustness tests: per-game collection errors, exception classes of
typed values, charset names and single-byte code pages.

Run with sgfmill 1.1.1 on CPython 3.11:

    python3 -m venv /tmp/sgfmill-venv
    /tmp/sgfmill-venv/bin/pip install sgfmill==1.1.1
    /tmp/sgfmill-venv/bin/python tests/data/sgf/_sgfmill/generate.py

It rewrites oracle.json beside itself. Conventions (as in ../_oracle): bytes are written one
code point per byte (ISO-8859-1), points are [row, col] with row 0 at the bottom, a failure is
{"class": <Python exception class>, "message": <str(exception)>}.
"""

import codecs
import encodings
import encodings.aliases
import json
import os
import pkgutil
import platform
import sys

import sgfmill
from sgfmill import sgf, sgf_grammar, sgf_properties

HERE = os.path.dirname(os.path.abspath(__file__))


def latin1(bb):
    return bb.decode("latin-1")


def failure(e):
    return {"class": type(e).__name__, "message": str(e)}


def value_json(v):
    """A typed sgfmill value as JSON: tuples become lists, sets sorted lists."""
    if isinstance(v, (set, frozenset)):
        return [list(p) for p in sorted(v)]
    if isinstance(v, tuple):
        return [value_json(x) for x in v]
    if isinstance(v, list):
        return [value_json(x) for x in v]
    return v


def game_json(game):
    """What goswiss compares for a loaded game."""
    out = {"size": game.get_size()}
    try:
        out["charset"] = game.get_charset()
    except Exception as e:
        out["charset"] = failure(e)
    try:
        out["serialised"] = latin1(game.serialise(wrap=None))
    except Exception as e:
        out["serialised"] = failure(e)
    return out


# ------------------------------------------------------------------ collections

COLLECTIONS = [
    # One bad game among good ones: sgfmill parses the collection, then each game on its own.
    b"(;GN[a]SZ[9];B[aa])(;GN[b]SZ[30];B[aa])(;GN[c]SZ[13];W[bb])",
    b"(;GN[a])(;GN[b]CA[no-such-codec])(;GN[c]CA[UTF-8]C[\xc3\xa9])",
    b"(;GN[a])(;GN[b]SZ[nine])(;GN[c])",
    b"(;GN[a])(;GN[b]SZ[19:19])(;GN[c])",
    b"(;GN[a])(;GN[b]SZ[0])(;GN[c]SZ[26])",
    b"(;GN[a])(;GN[b]CA[caf\xe9])(;GN[c])",
    b"(;GN[a])(;GN[b]CA[])(;GN[c])",
    b"(;GN[a]CA[cp1252]C[\x81])(;GN[b]CA[cp949])(;GN[c]CA[koi8r])",
    b"(;SZ[ 9 ]GN[a])(;SZ[9][ee]GN[b])(;SZ[-1])",
    b"junk (;GN[a]) more junk (;GN[b]SZ[99]) trailing",
    # Every game bad.
    b"(;SZ[30])(;CA[x])",
    # A syntax error in a later game: sgfmill fails the whole collection.
    b"(;GN[a])(;GN[b];(B[aa]))(;GN[c])",
    b"(;GN[a])(;B)(;GN[c])",
    b"(;GN[a])(;GN[b]+)(;GN[c])",
    b"(;GN[a])(;GN[b]C[unterminated",
    b"(;GN[a]SZ[30])(;B)",
    # A syntax error in the first game.
    b"(;B)(;GN[b])",
    b"",
    b"no games here",
]


def prefix_games(bb):
    """The coarse games sgfmill's collection parser reads before it fails (it reports the
    failing game's index; the games before it were read one by one, as here)."""
    games = []
    position = 0
    while True:
        try:
            tree, position = sgf_grammar._parse_sgf_game(bb, position)
        except ValueError:
            return games
        if tree is None:
            return games
        games.append(tree)


def collection_case(bb):
    out = {"input": latin1(bb)}
    try:
        coarse = sgf_grammar.parse_sgf_collection(bb)
        out["collection_error"] = None
    except ValueError as e:
        out["collection_error"] = failure(e)
        coarse = prefix_games(bb)
    games = []
    for tree in coarse:
        try:
            games.append({"game": game_json(sgf.Sgf_game.from_coarse_game_tree(tree))})
        except Exception as e:
            games.append({"error": failure(e)})
    out["games"] = games
    return out


# ------------------------------------------------------------------ typed values

# Raw values per kind of property; every ident below is read with every list that fits it,
# so each interpreter sees good values, wrong-typed ones and malformed ones.
RAW_VALUES = [
    [b""], [b"aa"], [b"tt"], [b"a"], [b"abc"], [b"AA"], [b"zz"], [b"ss"], [b"aa:cc"],
    [b"cc:aa"], [b"aa:b"], [b"aa:"], [b":"], [b"aa:bb:cc"], [b"aa", b"bb"], [b"aa", b""],
    [b"3"], [b" 3 "], [b"3 1"], [b"1_000"], [b"0x1f"], [b"1.5"], [b"-2"], [b"+7"], [b"1e3"],
    [b"inf"], [b"nan"], [b"-Infinity"], [b"x"], [b"2"], [b" 2\n"], [b"B"], [b"w"], [b" b"],
    [b"3:name"], [b"x:name"], [b"3:"], [b":name"], [b"app:1.0"], [b"app\\:x:1.0"], [b"app"],
    [b"aa:label"], [b"aa:x\\]y"], [b"aa\\:bb"], [b"text\\"], [b"a\\\nb"], [b"a\r\nb\tc"],
    [b"\xe9t\xe9"], [b"\xc3\xa9t\xc3\xa9"], [b"\x81"], [b"\x9d\x8f"], [b"1", b"2"],
]
IDENTS = [
    "B", "W", "AB", "AE", "TB", "MA", "AR", "LN", "LB", "FG", "AP", "HA", "SZ", "FF", "KM",
    "TM", "V", "DO", "GB", "PL", "PB", "C", "RE", "XX",
]
VALUE_CONTEXTS = [(19, "ISO-8859-1"), (9, "UTF-8"), (19, "cp1252")]


def value_cases():
    out = []
    for size, encoding in VALUE_CONTEXTS:
        presenter = sgf_properties.Presenter(size, encoding)
        for ident in IDENTS:
            for raw in RAW_VALUES:
                case = {
                    "size": size,
                    "encoding": encoding,
                    "ident": ident,
                    "raw": [latin1(r) for r in raw],
                }
                try:
                    case["value"] = value_json(presenter.interpret(ident, raw))
                except Exception as e:
                    case["error"] = failure(e)
                out.append(case)
    return out


# ------------------------------------------------------------------ game-level helpers

HELPER_INPUTS = [
    b"(;HA[1])", b"(;HA[0])", b"(;HA[x])", b"(;KM[6.5][7])", b"(;KM[x])", b"(;RE[])",
    b"(;RE[w+r])", b"(;RE[\xff]CA[UTF-8])", b"(;PB[a][b])", b"(;CA[UTF-8][latin1])",
    b"(;CA[iso\\8859\\1])", b"(;CA[us\\ascii])", b"(;CA[utf\\-8])", b"(;CA[ UTF-8 ])",
]


def helper_cases():
    out = []
    for bb in HELPER_INPUTS:
        case = {"input": latin1(bb)}
        try:
            game = sgf.Sgf_game.from_bytes(bb)
        except Exception as e:
            case["load"] = failure(e)
            out.append(case)
            continue
        for name, fn in [
            ("handicap", game.get_handicap),
            ("komi", game.get_komi),
            ("winner", game.get_winner),
            ("player_b", lambda: game.get_player_name("b")),
            ("charset", game.get_charset),
            ("serialised", lambda: latin1(game.serialise(wrap=None))),
        ]:
            try:
                case[name] = {"value": fn()}
            except Exception as e:
                case[name] = {"error": failure(e)}
        out.append(case)
    return out


# ------------------------------------------------------------------ charsets

def module_names():
    return sorted(
        m.name for m in pkgutil.iter_modules(encodings.__path__) if m.name != "aliases"
    )


def charset_names():
    """Every alias and codec module Python knows, spelt as written and in the variants SGF
    files use (upper case, hyphens, spaces), plus names Python rejects."""
    base = set(encodings.aliases.aliases) | set(module_names())
    names = set()
    for n in base:
        names.update(
            {n, n.upper(), n.replace("_", "-"), n.replace("_", " "), n.replace("_", "")}
        )
    names.update([
        "", " ", "-", "utf..8", "utf.8", "UTF-8 ", " utf8", "utf_8_", "__utf8", "utf-9",
        "latin-11", "cp-1252", "koi8r", "x-mac-roman", "utf8mb4", "ISO_8859-1:1987",
        "iso-8859-1:1987", "Shift_JIS", "MS_KANJI", "EUC-CN", "Windows-1251", "macintosh",
        "ISO-2022-JP", "SJIS", "no-such-codec", "unicode", "ucs2", "tis620", "win1252",
    ])
    return sorted(names)


def charset_lookup():
    out = {}
    for name in charset_names():
        try:
            out[name] = {"name": sgf_properties.normalise_charset_name(name)}
        except LookupError as e:
            out[name] = {"error": failure(e)}
        except Exception as e:  # codecs that fail to import on this platform (mbcs, oem)
            out[name] = {"error": failure(e)}
    return out


def single_byte_tables():
    """Byte -> code point (null: undefined) for every single-byte text codec."""
    out = {}
    for mod in module_names():
        try:
            info = codecs.lookup(mod)
        except Exception:
            continue
        if not getattr(info, "_is_text_encoding", True):
            continue
        module = sys.modules.get("encodings." + mod)
        # Single-byte codecs are the charmap ones (a 256-entry decoding table), plus the two
        # Python implements in C.
        if mod not in ("latin_1", "ascii") and not hasattr(module, "decoding_table"):
            continue
        table = []
        for b in range(256):
            try:
                s = bytes([b]).decode(info.name)
            except UnicodeDecodeError:
                table.append(None)
                continue
            except Exception:
                table = None
                break
            if len(s) != 1:
                table = None
                break
            table.append(ord(s))
        # SGF needs ASCII-compatible charsets (EBCDIC code pages are of no use).
        if table is None or any(table[b] != b for b in range(0x80)):
            continue
        out[sgf_properties.normalise_charset_name(mod)] = table
    return out


def decode_cases():
    """sgfmill reading a C value through single-byte charsets: which bytes fail."""
    out = []
    for ca in ["cp1252", "windows-1250", "cp1253", "cp1255", "iso-8859-3", "iso-8859-11",
               "koi8-u", "mac-roman", "latin1"]:
        for byte in [0x80, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0xA1, 0xAA, 0xAE, 0xD2, 0xDB, 0xFF]:
            bb = b"(;CA[" + ca.encode() + b"]C[" + bytes([byte]) + b"])"
            case = {"input": latin1(bb)}
            try:
                game = sgf.Sgf_game.from_bytes(bb)
                case["value"] = game.get_root().get("C")
            except Exception as e:
                case["error"] = failure(e)
            out.append(case)
    return out


def main():
    oracle = {
        "generator": {
            "sgfmill": sgfmill.__version__,
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "collections": [collection_case(bb) for bb in COLLECTIONS],
        "values": value_cases(),
        "helpers": helper_cases(),
        "charset_lookup": charset_lookup(),
        "single_byte": single_byte_tables(),
        "decode": decode_cases(),
    }
    path = os.path.join(HERE, "oracle.json")
    # One line per case (diff-friendly, still compact).
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n")
        keys = sorted(oracle)
        for i, key in enumerate(keys):
            section = oracle[key]
            f.write(json.dumps(key) + ": ")
            if isinstance(section, list):
                items = [json.dumps(x, sort_keys=True) for x in section]
                f.write("[\n" + ",\n".join(items) + "\n]")
            elif key in ("charset_lookup", "single_byte"):
                items = [json.dumps(k) + ": " + json.dumps(v) for k, v in sorted(section.items())]
                f.write("{\n" + ",\n".join(items) + "\n}")
            else:
                f.write(json.dumps(section, sort_keys=True))
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
