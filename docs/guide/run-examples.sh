#!/usr/bin/env bash
# Runs the examples of README.md and of the guide's chapters, as written.
#
#   docs/guide/run-examples.sh [FILE.md ...]
#
# The convention, for README.md and docs/guide/src/*.md:
#   ```sh       a block that is run; it fails the script if it exits non-zero;
#   ```console  commands shown, not run (a GPU, Python packages, several machines, a long build);
#   ```text     what a command printed;
#   ```rust,ignore with only `{{#include ../../../examples/FILE.rs}}` lines: a program of
#               examples/, which cargo compiles (the README's ```rust blocks are doc tests of
#               the examples crate instead). Any other Rust block in a chapter is an error.
#
# Each file's `sh` blocks run in order, in a fresh temporary folder holding a copy of data/,
# each with `bash -euo pipefail`, so that a block can use the runs of the blocks before it.
# `iron-learn` is the binary $IRON_LEARN (default: the test profile's, target/ci/iron-learn;
# build it with `cargo build --profile ci -p iron-learn`), and
# `cargo run --release -p iron-learn -- ARGS` runs that binary too; other cargo commands are
# refused. With no arguments: README.md, then the chapters in the order of SUMMARY.md.
# All the blocks took 17 to 27 s on the 2-core development machine with the release binary
# (IRON_LEARN=target/release/iron-learn); the test profile's binary is not optimised as fully.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
IRON_LEARN="${IRON_LEARN:-target/ci/iron-learn}"
case "$IRON_LEARN" in /*) ;; *) IRON_LEARN="$root/$IRON_LEARN" ;; esac
if [[ ! -x "$IRON_LEARN" ]]; then
  echo "run-examples: no binary at $IRON_LEARN; build it (cargo build --profile ci -p iron-learn)" \
    "or set IRON_LEARN" >&2
  exit 2
fi

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  files=(README.md)
  while IFS= read -r chapter; do
    files+=("docs/guide/src/$chapter")
  done < <(grep -o '([^()]*\.md)' docs/guide/src/SUMMARY.md | tr -d '()')
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# `iron-learn` and `cargo` as the blocks see them: programs on PATH, so that `timeout`,
# `xargs` and the like find them too.
mkdir -p "$work/bin"
ln -s "$IRON_LEARN" "$work/bin/iron-learn"
cat >"$work/bin/cargo" <<EOF
#!/usr/bin/env bash
if [[ "\$*" == "run --release -p iron-learn -- "* ]]; then
  shift 5
  exec "$IRON_LEARN" "\$@"
fi
echo "run-examples: \\\`cargo \$*\\\` is not run here: mark its block \\\`\\\`\\\`console" >&2
exit 1
EOF
chmod +x "$work/bin/cargo"

failures=0
blocks=0
start_all=$SECONDS
for file in "${files[@]}"; do
  if [[ ! -f "$file" ]]; then
    echo "FAILED: $file does not exist" >&2
    failures=$((failures + 1))
    continue
  fi
  name="${file//\//_}"
  mkdir -p "$work/blocks/$name"
  # Split the file's ```sh blocks into numbered scripts, each starting with a comment that
  # gives its line; check the Rust blocks of the chapters.
  awk -v dir="$work/blocks/$name" -v file="$file" '
    BEGIN { n = 0; in_sh = 0; in_rust = 0; bad = 0 }
    in_sh && /^```[ \t]*$/ { in_sh = 0; close(out); next }
    in_sh { print > out; next }
    in_rust && /^```[ \t]*$/ { in_rust = 0; next }
    in_rust {
      if ($0 !~ /^\{\{#include \.\.\/\.\.\/\.\.\/examples\/[^}]+\}\}$/) {
        printf "FAILED: %s, line %d: a Rust block of the guide must only include files of examples/\n", file, NR > "/dev/stderr"
        bad = 1
      } else {
        path = $0
        sub(/^\{\{#include \.\.\/\.\.\/\.\.\//, "", path)
        sub(/(:[^}]*)?\}\}$/, "", path)
        print path > (dir "/includes")
      }
      next
    }
    /^```sh[ \t]*$/ {
      n++; in_sh = 1
      out = sprintf("%s/%03d.sh", dir, n)
      printf "# %s, block %d (line %d)\n", file, n, NR + 1 > out
      next
    }
    /^```rust/ && file ~ /^docs\/guide\/src\// { in_rust = 1; next }
    END { if (in_sh) { printf "FAILED: %s: a sh block is not closed\n", file > "/dev/stderr"; bad = 1 }
          exit bad }
  ' "$file" || failures=$((failures + 1))
  if [[ -f "$work/blocks/$name/includes" ]]; then
    while IFS= read -r included; do
      if [[ ! -f "$included" ]]; then
        echo "FAILED: $file includes $included, which does not exist" >&2
        failures=$((failures + 1))
      fi
    done <"$work/blocks/$name/includes"
  fi

  dir="$work/run/$name"
  mkdir -p "$dir"
  cp -r data "$dir/data"
  for block in "$work/blocks/$name"/*.sh; do
    [[ -e "$block" ]] || continue
    blocks=$((blocks + 1))
    where="$(head -1 "$block" | sed 's/^# //')"
    started=$SECONDS
    if (cd "$dir" && PATH="$work/bin:$PATH" bash -euo pipefail "$block") >"$block.log" 2>&1; then
      echo "ok      $where ($((SECONDS - started)) s)"
    else
      status=$?
      failures=$((failures + 1))
      echo "FAILED  $where: exit status $status" >&2
      sed 's/^/  | /' "$block" >&2
      echo "  its last lines of output:" >&2
      tail -n 20 "$block.log" | sed 's/^/  > /' >&2
    fi
  done
done

echo "$blocks blocks in ${#files[@]} files, $((SECONDS - start_all)) s; $failures failed"
[[ $failures -eq 0 ]]
