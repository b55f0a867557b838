#!/usr/bin/env bash
# Makes fuzz/seeds/TARGET/ from tests/data (and a few hand-written requests): the starting
# corpora of the fuzz targets. Each seed carries the target's leading option byte(s).
set -euo pipefail
cd "$(dirname "$0")"
data=../tests/data
rm -rf seeds && mkdir -p seeds/{xmlrpc_body,jsonrpc_params,sgf_parse,aga_files,opengotha_import,aga_import}

# XML-RPC: one request per value type, plus multicall and nil.
n=0
for v in '<int>1</int>' '<i4>-7</i4>' '<i8>9007199254740993</i8>' '<boolean>1</boolean>' \
    '<string>a &amp; b</string>' 'bare text' '<double>-1.5e3</double>' \
    '<dateTime.iso8601>20261126T12:00:00</dateTime.iso8601>' '<base64>aGVsbG8=</base64>' '<nil/>' \
    '<array><data><value><int>1</int></value><value><string>x</string></value></data></array>' \
    '<struct><member><name>seed</name><value><int>7</int></value></member></struct>'; do
    n=$((n + 1))
    printf '<?xml version="1.0"?>\n<methodCall><methodName>matchmaker.create_tournament</methodName><params><param><value>%s</value></param></params></methodCall>' "$v" > "seeds/xmlrpc_body/$n.xml"
done
printf '<?xml version="1.0"?><methodCall><methodName>system.multicall</methodName><params><param><value><array><data><value><struct><member><name>methodName</name><value><string>system.echo</string></value></member><member><name>params</name><value><array><data><value><i4>1</i4></value></data></array></value></member></struct></value></data></array></value></param></params></methodCall>' > seeds/xmlrpc_body/multicall.xml
printf '<methodCall><methodName>system.listMethods</methodName></methodCall>' > seeds/xmlrpc_body/noparams.xml

# JSON-RPC params: the first byte picks the method (index into the table).
for i in 0 1 5 12 20 30 40 60; do
    printf "\\x$(printf %02x $i)"'[1,"two",{"three":3.0},[true,null]]' > "seeds/jsonrpc_params/array$i"
    printf "\\x$(printf %02x $i)"'{"players":[1,2,3],"options":{"seed":7},"tournament_id":1,"sgf":"(;)"}' > "seeds/jsonrpc_params/object$i"
done

# SGF: every test file under 4 KiB, as bytes with default options (00 00) and, for a few, lenient
# text (01 40).
i=0
while IFS= read -r f; do
    i=$((i + 1))
    { printf '\x00\x00'; cat "$f"; } > "seeds/sgf_parse/$i.sgf"
    if [ $((i % 8)) = 0 ]; then { printf '\x01\x41'; cat "$f"; } > "seeds/sgf_parse/$i-lenient.sgf"; fi
done < <(find "$data/sgf" "$data/score" -name '*.sgf' -size -4k | sort)

# AGA: register files (pick 0), round files (1), TDLists (2), register + rounds (3, NUL-separated).
i=0
for d in $(find "$data/aga" -name register.tde -printf '%h\n' | sort); do
    i=$((i + 1))
    { printf '\x00'; head -c 4000 "$d/register.tde"; } > "seeds/aga_files/register$i"
    { printf '\x04'; head -c 4000 "$d/register.tde"; } > "seeds/aga_files/register$i-strict"
    for r in "$d"/[0-9].tde; do
        [ -e "$r" ] || continue
        { printf '\x09'; head -c 4000 "$r"; } > "seeds/aga_files/round$i-$(basename "$r")"
    done
    { printf '\x03'; cat "$d/register.tde"; for r in "$d"/[0-9].tde; do [ -e "$r" ] && { printf '\0'; cat "$r"; }; done; } | head -c 8000 > "seeds/aga_files/tournament$i"
    { cat "$d/register.tde"; for r in "$d"/[0-9].tde; do [ -e "$r" ] && { printf '\0'; cat "$r"; }; done; } | head -c 8000 > "seeds/aga_import/$i"
done
for f in "$data"/aga/upstream/*tdlist*.txt; do
    { printf '\x02'; head -c 4000 "$f"; } > "seeds/aga_files/tdlist-$(basename "$f")"
done

# OpenGotha: every test file (the reader sees a truncated one as broken XML; the small ones fit
# -max_len=8192 whole).
for f in "$data"/opengotha/*.xml "$data"/opengotha/synthetic/*.xml; do
    cp "$f" "seeds/opengotha_import/$(basename "$f")"
done
for t in seeds/*; do echo "$t: $(ls "$t" | wc -l) files"; done
