#!/usr/bin/env bash
# ws_timeline_shapes.sh CGP DIR - the roles' timeline of tf32-v21 (a build of ws_timeline_dev.patch at CGP) on every
# shape of ws_split_k_shapes.csv, a process a shape (the probe times one launch a process): DIR/timeline_<shape>.csv
# and .txt (gzipped), then DIR/timeline_summary.txt (ws_timeline_summary_dev.py), printed. Run from the repository
# root; the run scripts that time the probe call it (rounding_count_once_run1.sh, ws_producer_nofence_run1.sh).
set -u
CGP=$1; DIR=$2; t0=$SECONDS
shapes=docs/experiments/ws_split_k_shapes.csv
header=$(head -1 $shapes)
tail -n +2 $shapes | while IFS= read -r row; do
  name=$(echo "$row" | cut -d, -f1-6 | tr ',' '_')
  printf '%s\n%s\n' "$header" "$row" > $DIR/one.csv
  timeout -s KILL 30 $CGP bench --zoo $DIR/one.csv --precision tf32 --baselines none --reduce det \
    --iters 20 --kernel 46 --csv $DIR/timeline_$name.csv > $DIR/timeline_$name.txt 2>&1
  echo "== timeline_$name exit $? ($((SECONDS - t0)) s)"
done
rm -f $DIR/one.csv
python3 docs/experiments/ws_timeline_summary_dev.py $DIR/timeline_*.txt > $DIR/timeline_summary.txt 2>&1
cat $DIR/timeline_summary.txt; gzip $DIR/timeline_*.txt
