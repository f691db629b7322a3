#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU from the folder `cargo xtask pack-gpu`
# made: every GPU test, the CUDA sanitizers, a kernel profile of the SIREN step, and the
# benchmarks of docs/BENCHMARKS.md side by side with PyTorch on the same GPU; and, since the
# host is also an x86 CPU (usually with AVX-512), the CPU tests and steps under each vector path.
#   .gpu/check.sh [tests|cpu|sanitize|racecheck|profile|bench|tables]...   (default: all but
#   tables, in that order)
# Logs go to $OUT (default .gpu/out). PHOTO=path/to/256x256.png adds the photo fit. `tables`
# trains the default table model on the development tables of docs/BENCHMARKS.md (copied to
# TABLES, default .gpu/tables) on the CPU and on the GPU, side by side: the scores should agree.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
out=${OUT:-$here/out}
mkdir -p "$out"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/nvidia/lib64; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
export PATH=/usr/local/cuda/bin:$PATH
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(tests cpu sanitize racecheck profile bench)
status=0

tests() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for t in tests/*; do
    echo "== ${t##*/}"
    timeout 300 "$t" --include-ignored 2>&1 | grep -E "FAILED|panicked|^test result" || status=1
  done
}

cpu() {
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(nproc) threads," \
    "$(grep -m1 -o -w -E 'avx512f|avx2|fma' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  for p in avx512 avx2 scalar; do
    if ! IRON_LEARN_SIMD=$p ./iron-learn bench train --hidden 8x1 --points 64 --reps 1 >/dev/null 2>&1; then
      echo "== IRON_LEARN_SIMD=$p: this CPU lacks it"
      continue
    fi
    for t in cpu-tests/*; do
      echo "== IRON_LEARN_SIMD=$p ${t##*/}"
      IRON_LEARN_SIMD=$p timeout 300 "$t" 2>&1 | grep -E "FAILED|panicked|^test result" || status=1
    done
  done
  echo "== training steps under each vector path, side by side (3 rounds)"
  bash bench/simd_paths.sh ./iron-learn 3 "$here/../data/regression.csv"
}

sanitize() {
  local s="compute-sanitizer --error-exitcode 9"
  # Kernels with shared memory or barriers: reductions, losses, transposes, hash grid.
  local shared=(reduce sum mean loss transpose hashgrid)
  echo "== memcheck, every GPU test"
  timeout 300 $s --tool memcheck tests/gpu --include-ignored 2>&1 | grep -E "ERROR SUMMARY|^test result"
  echo "== synccheck, the tests of kernels with shared memory"
  timeout 200 $s --tool synccheck tests/gpu --include-ignored "${shared[@]}" 2>&1 |
    grep -E "ERROR SUMMARY|^test result"
  for arch in siren hashgrid; do
    for tool in memcheck synccheck; do
      printf "== %s, image fit --arch %s --steps 200: " $tool $arch
      timeout 200 $s --tool $tool ./iron-learn image fit --arch $arch --steps 200 --device cuda \
        -o "/tmp/sanitize-$arch-$tool" -q 2>&1 | grep -E "ERROR SUMMARY" | tr '\n' ' '
      echo "(exit ${PIPESTATUS[0]})"
    done
  done
}

racecheck() {
  local s="compute-sanitizer --error-exitcode 9"
  local shared=(reduce sum mean loss transpose hashgrid)
  # racecheck tracks every shared-memory access and is far too slow on cuBLAS's kernels: it
  # checks this project's kernels only (one --kernel-name filter each, kns = a substring of the
  # kernel's name; filters add up), the others run unchecked. A control run whose filter names no
  # kernel shows the checked runs are slower, i.e. that the filters matched kernels.
  local ours=() k
  for k in reduce_ loss_ transpose hashgrid copy_block bias_act act_backward adam_step; do
    ours+=(--kernel-name "kns=$k")
  done
  timed() {
    local t0=$SECONDS rc
    "$@"
    rc=$?
    echo "(exit $rc, $((SECONDS - t0)) s)"
  }
  echo "== racecheck, the tests of kernels with shared memory, control: no kernel checked"
  timed timeout 150 $s --tool racecheck --kernel-name kns=no_such_kernel tests/gpu --include-ignored \
    "${shared[@]}" 2>&1 | grep -E "RACECHECK SUMMARY|^test result|rror|^\("
  echo "== racecheck (this project's kernels), the same tests"
  timed timeout 200 $s --tool racecheck "${ours[@]}" tests/gpu --include-ignored --test-threads 1 \
    "${shared[@]}" 2>&1 | grep -E "^test |RACECHECK SUMMARY|rror|^\("
  for arch in siren hashgrid; do
    # Checked kernels run thousands of times slower: a few short steps on a small batch.
    printf "== racecheck (this project's kernels), image fit --arch %s, 3 steps of 4096: " $arch
    timed timeout 90 $s --tool racecheck "${ours[@]}" ./iron-learn image fit --arch $arch \
      --steps 3 --batch 4096 --device cuda -o "/tmp/sanitize-$arch-racecheck" --force -q 2>&1 |
      grep -E "RACECHECK SUMMARY|rror|^\(" | tr '\n' ' '
    echo
  done
}

profile() {
  echo "== kernels of the SIREN 256x3 step on 40,000 points (ncu, 5 steps)"
  timeout 300 ncu --csv --metrics gpu__time_duration.sum ./iron-learn bench train --device cuda \
    --hidden 256x3 --reps 2 > /tmp/ncu.csv 2>/dev/null
  python3 - <<'PY'
import collections, csv
rows = [r for r in csv.reader(open("/tmp/ncu.csv")) if len(r) > 10]
head, rows = rows[0], rows[1:]
name, value = head.index("Kernel Name"), head.index("Metric Value")
per = collections.defaultdict(list)
for r in rows:
    per[r[name][:70]].append(float(r[value].replace(",", "")))
total = sum(sum(v) for v in per.values())
print(f"{len(rows) / 5:.0f} kernels per step, {total / 5e3:.0f} us per step (serialised)")
for k, v in sorted(per.items(), key=lambda p: -sum(p[1])):
    print(f"{sum(v) / 5e3:8.1f} us {len(v) / 5:4.1f}x  {k}")
PY
}

bench() {
  echo "== training steps (CUDA events, median of 100 after warm-up)"
  ./iron-learn bench train --device cuda --hidden 256x3 --points 40000 --reps 100
  ./iron-learn bench train --device cuda --hashgrid 18 --hidden 64x2 --points 262144 --reps 100
  for b in siren hashgrid; do python3 bench/torch_gpu.py $b --reps 100 2>/dev/null; done
  echo "== the bundled drawing, whole command"
  /usr/bin/time -f "%e s wall, %M KB peak" ./iron-learn image fit --device cuda -o /tmp/drawing -q
  if [ -n "${PHOTO:-}" ]; then
    echo "== $PHOTO with the hash grid"
    for s in 100 150 200; do ./iron-learn image fit "$PHOTO" --device cuda --steps $s -o /tmp/photo$s -q; done
  fi
  echo "== tabular MLP 64,64: 200,000 rows x 20, batch 256, 10 epochs"
  python3 bench/torch_gpu.py table-csv --csv /tmp/table.csv
  local mlp=(mlp --data /tmp/table.csv --target y --hidden 64,64 --batch 256 --epochs 10 --lr 0.001
    --weight-decay 0 --test-data /tmp/table.csv --val-fraction 0)
  for dev in cuda cpu; do
    ./iron-learn "${mlp[@]}" --device $dev -o /tmp/table-$dev 2>&1 | grep -E "steps in|^  network"
  done
  python3 bench/torch_gpu.py tabular 2>/dev/null
}

tables() {
  local tables=${TABLES:-$here/tables}
  [ -d "$tables" ] || { echo "== tables: no folder $tables"; status=1; return; }
  for dev in cpu cuda; do
    echo "== the default table model on $dev, ${SPLITS:-3} splits"
    PYTHONUNBUFFERED=1 python3 bench/tables_peers.py ./iron-learn "$tables" --ours-only \
      --splits "${SPLITS:-3}" --device $dev --json "$out/tables-$dev.json" || status=1
  done
}

for step in "${steps[@]}"; do
  "$step" 2>&1 | tee "$out/$step.log"
done
exit $status
