#!/usr/bin/env bash
# The CPU steps under every vector path this machine runs, forced with IRON_LEARN_SIMD, side by
# side in one command: a hash-grid training step, a SIREN training step (both with
# `iron-learn bench train`) and a tabular MLP (`iron-learn mlp`, wall time of the whole run), and
# PyTorch's hash-grid and SIREN steps where `python3 -c "import torch"` works.
#
# Usage: xtask/bench/simd_paths.sh [IRON_LEARN_BINARY] [ROUNDS] [TABLE.csv TARGET]
# (defaults: target/release/iron-learn, 3 rounds, data/regression.csv and its last column;
# a table of thousands of rows, such as ../shared/tables/loans.csv interest_rate, times better).
# Each round runs every variant, in ABBA order (the order reverses every other round), so that
# load from other work on the machine falls on all of them alike; the table prints the median of
# the rounds and its ratio to the fastest vector path.
set -euo pipefail
bin=${1:-target/release/iron-learn}
rounds=${2:-3}
table=${3:-data/regression.csv}
target=${4:-}
python=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The vector paths this CPU runs, the fastest first, then scalar.
paths=()
for p in avx512 avx2 neon; do
  if IRON_LEARN_SIMD=$p "$bin" bench train --hidden 8x1 --points 64 --reps 1 >/dev/null 2>&1; then
    paths+=("$p")
  fi
done
paths+=(scalar)
torch=no
if "$python" -c "import torch" 2>/dev/null; then torch=yes; fi
threads=$(nproc)

hashgrid=(--hashgrid 19 --hidden 64x2 --points 65536 --reps 10)
siren=(--hidden 128x3 --points 40000 --reps 10)
mlp_args=(mlp --data "$table" --hidden 64,64 --epochs 20 --batch 256 -q --force -o "$out/mlp")
if [ -n "$target" ]; then mlp_args+=(--target "$target"); fi

# One measurement: prints "workload variant milliseconds".
measure() {
  local work=$1 variant=$2 ms
  case "$work:$variant" in
    hashgrid:torch)
      ms=$("$python" "$here/torch_hashgrid.py" step --log2-table 19 --width 64 --depth 2 \
        --batch 65536 --reps 5 --threads "$threads" | grep -o '"median_ms": *[0-9.]*' | grep -o '[0-9.]*$') ;;
    siren:torch)
      ms=$("$python" "$here/torch_train.py" --hidden 128x3 --points 40000 --reps 10 \
        --threads "$threads" | grep -o '"median_ms": *[0-9.]*' | head -1 | grep -o '[0-9.]*$') ;;
    hashgrid:*)
      ms=$(IRON_LEARN_SIMD=$variant "$bin" bench train --json "${hashgrid[@]}" |
        grep -o '"median_ms":[0-9.]*' | cut -d: -f2) ;;
    siren:*)
      ms=$(IRON_LEARN_SIMD=$variant "$bin" bench train --json "${siren[@]}" |
        grep -o '"median_ms":[0-9.]*' | cut -d: -f2) ;;
    mlp:*)
      local t0 t1
      t0=$(date +%s%N)
      IRON_LEARN_SIMD=$variant "$bin" "${mlp_args[@]}" >/dev/null
      t1=$(date +%s%N)
      ms=$(( (t1 - t0) / 1000000 )) ;;
  esac
  echo "$work $variant $ms"
}

variants_of() {
  local v=("${paths[@]}")
  if [ "$torch" = yes ] && [ "$1" != mlp ]; then v+=(torch); fi
  echo "${v[@]}"
}

echo "paths: ${paths[*]}; PyTorch: $torch; $threads threads; $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- || uname -m)"
for work in hashgrid siren mlp; do
  read -r -a vs <<<"$(variants_of "$work")"
  for r in $(seq 1 "$rounds"); do
    order=("${vs[@]}")
    if [ $((r % 2)) -eq 0 ]; then
      order=()
      for ((i = ${#vs[@]} - 1; i >= 0; i--)); do order+=("${vs[$i]}"); done
    fi
    for v in "${order[@]}"; do measure "$work" "$v" | tee -a "$out/all"; done
  done
done

echo
echo "| workload | variant | median ms | all rounds | / ${paths[0]} |"
echo "| --- | --- | --- | --- | --- |"
awk -v first="${paths[0]}" '
  { key = $1 " " $2; vals[key] = vals[key] " " $3; n[key]++; order[key] = NR; if (!(($1) in seen)) { seen[$1] = 1; works[++nw] = $1 } }
  function median(s,   a, k, i, j, t) {
    k = split(s, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (w = 1; w <= nw; w++) {
      base = median(vals[works[w] " " first])
      for (key in vals) {
        split(key, kv, " ")
        if (kv[1] != works[w]) continue
        m = median(vals[key])
        k = split(vals[key], r, " ")
        rs = sprintf("%.1f", r[1])
        for (i = 2; i <= k; i++) rs = rs sprintf(" / %.1f", r[i])
        printf "| %s | %s | %.1f | %s | %.2f |\n", kv[1], kv[2], m, rs, m / base
      }
    }
  }' "$out/all" | sort -t'|' -k2,2 -k6,6n
