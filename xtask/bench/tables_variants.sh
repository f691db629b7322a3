#!/bin/bash
# Several configurations of `iron-learn mlp` on the 13 development tables, side by side:
# each table in turn runs every configuration (interleaved, so that a busy machine weighs on
# all alike), through tables_peers.py --ours-only (3 splits each).
#
#   xtask/bench/tables_variants.sh OUT_DIR "label|binary|mlp args" ...
#   python3 xtask/bench/tables_variants_summary.py OUT_DIR label,label,...
#
# OUT_DIR gets LABEL.TABLE.json (tables_peers.py's --json rows) and LABEL.TABLE.log.
# The tables: $IRON_LEARN_TABLES, else ../shared/tables.
set -u
out=$1
shift 1
root=$(cd "$(dirname "$0")/../.." && pwd)
tables=${IRON_LEARN_TABLES:-$root/../shared/tables}
mkdir -p "$out"
for t in loans.csv mortgage_denials.csv wage.csv carseats.csv churn.csv orange_juice.csv \
    hpc_jobs.csv default.csv concrete.csv college.csv hotel_rates.csv car_prices.csv \
    panel_wages.csv; do
  for cfg in "$@"; do
    IFS='|' read -r label bin args <<< "$cfg"
    # shellcheck disable=SC2086 # the arguments split into words on purpose
    TABLES_ONLY=$t nice -n 5 python3 "$root/xtask/bench/tables_peers.py" "$bin" "$tables" \
      --ours-only --json "$out/$label.$t.json" -- $args > "$out/$label.$t.log" 2>&1
  done
done
