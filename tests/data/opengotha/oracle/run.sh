#!/bin/sh
# Runs OpenGotha 3.51's own classes (headless) on tournament files and writes the golden dumps
# next to them: <name>.criteria.tsv, <name>.h9, <name>.nobydef.h9, <name>.resave.xml; and
# OUTDIR/ranks.tsv, how OpenGotha reads each rank text of oracle/ranks.txt.
#
# usage: OPENGOTHA_JAR=/path/to/opengotha.jar tests/data/opengotha/oracle/run.sh OUTDIR FILE.xml...
# The jar is not in the repository: see README.md for where it comes from and its sha256.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
jar=${OPENGOTHA_JAR:?set OPENGOTHA_JAR to OpenGotha 3.51.02 distribution/opengotha.jar}
out=$1; shift
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
javac -nowarn -encoding UTF-8 -cp "$jar" -d "$build" "$here/src/info/vannier/gotha/OracleDump.java" \
  "$here/src/info/vannier/gotha/RankDump.java"
mkdir -p "$out"
for f in "$@"; do
  name=$(basename "$f" .xml)
  # -Duser.timezone/-language pin the date and number formats OpenGotha writes.
  java -Djava.awt.headless=true -Djava.rmi.server.hostname=127.0.0.1 -Duser.timezone=UTC -Duser.language=en -Duser.country=GB \
    -cp "$build:$jar:$(dirname "$jar")/lib/jhall.jar:$(dirname "$jar")/jhall.jar" info.vannier.gotha.OracleDump "$f" "$out/$name"
done
java -Djava.awt.headless=true -cp "$build:$jar:$(dirname "$jar")/lib/jhall.jar:$(dirname "$jar")/jhall.jar" info.vannier.gotha.RankDump "$here/ranks.txt" "$out/ranks.tsv"
