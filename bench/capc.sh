# Sourced by the bench scripts, from the repository root: sets `capc` to the binary to time,
# $CAPC when it is set, else a release build (`cargo build --release`, honouring
# CARGO_TARGET_DIR).
if [[ -n ${CAPC:-} ]]; then
  capc=$CAPC
else
  cargo build --release --quiet
  target=${CARGO_TARGET_DIR:-target}
  [[ $target == /* ]] || target=$PWD/$target
  capc=$target/release/capc
fi
[[ -x $capc ]] || { echo "no capc binary at $capc" >&2; exit 2; }
