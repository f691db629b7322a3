#!/usr/bin/env bash
# 2 processes of 1 thread (mpirun -n 2) against 1 process of 2 threads (the same cores) and
# 1 process of 1 thread (one core, as each of the 2 processes has), the same binary and
# commands, interleaved, three times each.
# Run from the repository root after `cargo build --release -p iron-learn --features mpi`
# (or B=path/to/iron-learn); TABLES is ../shared/tables by default.
set -u
B=${B:-target/release/iron-learn}
B=$(realpath "$B")
DRAWING=$(realpath data/drawing.png)
T=$(realpath "${TABLES:-../shared/tables}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); cd "$work"
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; echo "$(date +%s.%N) - $s" | bc; }
job() {
  case $1 in
    hotel_mlp) echo mlp --data $T/hotel_rates.csv --target avg_price_per_room --model mlp --epochs 10 --seed 1;;
    hotel_auto) echo mlp --data $T/hotel_rates.csv --target avg_price_per_room --seed 1;;
    churn_auto) echo mlp --data $T/churn.csv --target churn --seed 1;;
    hpc_auto) echo mlp --data $T/hpc_jobs.csv --target class --seed 1;;
    image) echo image fit $DRAWING;;
  esac
}
for name in hotel_mlp hotel_auto churn_auto hpc_auto image; do
  for rep in 1 2 3; do
    rm -rf o1 o2 o3
    a=$(RAYON_NUM_THREADS=2 t $B $(job $name) --device cpu --quiet --out o1)
    b=$(t mpirun -n 2 -x RAYON_NUM_THREADS=1 --bind-to none $B $(job $name) --device cpu --quiet --out o2)
    c=$(RAYON_NUM_THREADS=1 t $B $(job $name) --device cpu --quiet --out o3)
    echo "$name rep$rep one_process_2_threads=$a two_processes_1_thread=$b one_process_1_thread=$c"
  done
done
