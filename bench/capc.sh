# Sourced by the bench scripts, from the repository root: sets `capc` to the binary to time,
# $CAPC when it is set, else a release build (`cargo build --release`), and `target` to the
# absolute cargo target folder (CARGO_TARGET_DIR honoured) for other release builds.
target=${CARGO_TARGET_DIR:-target}
[[ $target == /* ]] || target=$PWD/$target
if [[ -n ${CAPC:-} ]]; then
  capc=$CAPC
else
  cargo build --release --quiet
  capc=$target/release/capc
fi
[[ -x $capc ]] || { echo "no capc binary at $capc" >&2; exit 2; }
