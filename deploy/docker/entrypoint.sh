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

# Heap from the container's memory limit; exit (and be restarted) rather than limp on after an OOM. The heap is given
# back after a spike of buffered request bodies, as ./cachegate does (docs/security.md).
# shellcheck disable=SC2086 # CACHEGATE_JAVA_OPTS is a list of flags
exec java -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError \
  -XX:G1PeriodicGCInterval=5000 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
  -Dcachegate.native.dir="$CACHEGATE_NATIVE_DIR" ${CACHEGATE_JAVA_OPTS:-} -jar "$CACHEGATE_JAR" "$@"
