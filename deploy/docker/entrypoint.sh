#!/bin/sh
# The image's entrypoint. No arguments: `cachegate serve` with $CACHEGATE_POLICY when that file
# exists, else the embedded default policy. Arguments: that sub-command instead (simulate-backend,
# validate, ...). The Dockerfile sets the paths; cli's ImageEntrypointIT runs this script with its own.
set -eu
: "${CACHEGATE_JAR:?the runnable jar (the Dockerfile sets it)}"
: "${CACHEGATE_POLICY:?the policy file path (the Dockerfile sets it)}"
: "${CACHEGATE_NATIVE_DIR:?the native-library directory (the Dockerfile sets it)}"

if [ "$#" -eq 0 ]; then
  if [ -f "$CACHEGATE_POLICY" ]; then
    echo "entrypoint: serve --config $CACHEGATE_POLICY" >&2
    set -- serve --config "$CACHEGATE_POLICY"
  else
    echo "entrypoint: no $CACHEGATE_POLICY, serving the embedded default policy" >&2
    set -- serve
  fi
fi

# Lucene's Vector API for the embedded semantic index where this JRE has it, as ./cachegate does (bin/find-java
# --vector-api has the rule, docs/benchmarks.md the figures); CACHEGATE_VECTOR_API=off leaves it out. This Lucene
# release takes Java 24 and 25 only when told the version; later ones are untested and left without it.
vector_opts=""
java_home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
if [ "${CACHEGATE_VECTOR_API:-}" != "off" ] && [ -f "$java_home/release" ] \
    && grep '^MODULES=' "$java_home/release" | grep -q 'jdk\.incubator\.vector'; then
  version="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$java_home/release")"
  case "$version" in
    21|22|23) vector_opts="--add-modules jdk.incubator.vector" ;;
    24|25) vector_opts="--add-modules jdk.incubator.vector -Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=$version" ;;
  esac
fi

# Netty's direct buffers through sun.misc.Unsafe, as ./cachegate does (bin/find-java --unsafe-access says why): from
# Java 25 on Netty stops using it unless the JVM allows it, and every buffer access pays the JDK's checks.
unsafe_opts=""
java_version="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$java_home/release" 2>/dev/null || true)"
if [ "${CACHEGATE_UNSAFE_ACCESS:-}" != "off" ] && [ "${java_version:-0}" -ge 23 ]; then
  unsafe_opts="--sun-misc-unsafe-memory-access=allow"
fi

# The JDK 25 AOT cache the image's build trained (`entrypoint.sh train-aot` writes $CACHEGATE_AOT_CACHE; every later
# start loads from it: ready sooner, the hot paths compiled sooner; docs/benchmarks.md). Through this script
# both ways, so the training's JVM flags are a start's. Its notes go to stderr; a cache it cannot use, it says so and
# starts without. Nothing before Java 25 or with CACHEGATE_AOT=off.
aot_opts=""
if [ -n "${CACHEGATE_AOT_CACHE:-}" ] && [ "${CACHEGATE_AOT:-}" != "off" ] && [ "${java_version:-0}" -ge 25 ]; then
  if [ "$1" = "train-aot" ]; then
    aot_opts="-XX:AOTCacheOutput=$CACHEGATE_AOT_CACHE -Xlog:aot*=off -Xlog:aot=error:stderr"
  elif [ -f "$CACHEGATE_AOT_CACHE" ]; then
    aot_opts="-XX:AOTCache=$CACHEGATE_AOT_CACHE -Xlog:aot*=off -Xlog:aot=error:stderr"
  fi
fi

# Heap from the container's memory limit; exit (and be restarted) rather than limp on after an OOM. The heap is given
# back after a spike of buffered request bodies, as ./cachegate does (docs/security.md).
# shellcheck disable=SC2086 # vector_opts, unsafe_opts, aot_opts and CACHEGATE_JAVA_OPTS are lists of flags
exec java -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError \
  -XX:G1PeriodicGCInterval=5000 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
  -Dcachegate.native.dir="$CACHEGATE_NATIVE_DIR" $vector_opts $unsafe_opts $aot_opts ${CACHEGATE_JAVA_OPTS:-} \
  -jar "$CACHEGATE_JAR" "$@"
