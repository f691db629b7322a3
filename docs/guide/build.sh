#!/usr/bin/env bash
# Builds the guide (docs/guide/book/, not committed) and runs every example of the guide and
# of README.md (docs/guide/run-examples.sh).
#
#   docs/guide/build.sh
#
# mdBook is installed with cargo when `mdbook` is not on PATH. Measured on the 2-core
# development machine: `cargo install mdbook --locked --version 0.5.4` took 304 s of wall
# time (189 s of CPU), with another build sharing the cores for part of it; once installed,
# it is not built again.
# The examples need the `iron-learn` binary: $IRON_LEARN, by default the test profile's
# target/ci/iron-learn, built here when missing (`cargo test --workspace --profile ci` builds
# it too).
set -euo pipefail
cd "$(dirname "$0")/../.."

MDBOOK_VERSION=0.5.4
if ! command -v mdbook >/dev/null; then
  cargo install mdbook --locked --version "$MDBOOK_VERSION"
fi
mdbook build docs/guide
# Links out of the book (to docs/*.md and examples/, which are not chapters) work on GitHub
# as written; mdBook turns their `.md` into `.html`, which only chapters have: turn it back.
find docs/guide/book -maxdepth 1 -name '*.html' -exec \
  sed -i 's#href="\(\(\.\./\)\+[^"\#]*\)\.html#href="\1.md#g' {} +

target_dir="${CARGO_TARGET_DIR:-target}"
export IRON_LEARN="${IRON_LEARN:-$target_dir/ci/iron-learn}"
if [[ ! -x "$IRON_LEARN" ]]; then
  cargo build --profile ci -p iron-learn
fi
docs/guide/run-examples.sh
