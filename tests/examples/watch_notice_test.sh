#!/bin/sh
# docs/examples/scale-down-notice/watch-notice.sh against annotation files written here as the
# kubelet writes a downward-API volume of metadata.annotations (one key="value" a line). The
# harness's control plane has no kubelet, so this is where the script itself is tested.
# Usage: watch_notice_test.sh WATCH_NOTICE_SH
set -u
script=$1
dir=$(mktemp -d)
watcher=""
trap '[ -n "$watcher" ] && kill "$watcher" 2>/dev/null; rm -rf "$dir"' EXIT
passed=0 failed=0

check() {  # check DESCRIPTION COMMAND...
  description=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $description"; fi
}

annotations() {  # annotations [DEADLINE LEAVING REPLICAS]: the file, with a notice or without
  {
    echo 'jobset.sigs.k8s.io/jobset-name="train"'
    if [ $# -gt 0 ]; then
      echo "elastic.jobset-webhook.io/scale-down-deadline=\"$1\""
      echo "elastic.jobset-webhook.io/scale-down-leaving=\"$2\""
      echo "elastic.jobset-webhook.io/scale-down-replicas=\"$3\""
    fi
  } >"$dir/annotations.tmp"
  mv "$dir/annotations.tmp" "$dir/annotations"
}

once() {  # once JOB_INDEX CHECKPOINT_DIR
  NOTICE_FILE=$dir/annotations CHECKPOINT_DIR=$2 JOB_INDEX=$1 ONCE=1 sh "$script" >/dev/null
}

annotations
once 3 "$dir/none"
check "no notice, no checkpoint" test ! -e "$dir/none"

annotations 2026-12-02T16:00:20Z 2,3 2
once 3 "$dir/leaving"
check "a leaving Pod checkpoints and knows it leaves" \
  grep -qx 'deadline=2026-12-02T16:00:20Z replicas=2 leaving=2,3 job=3 leaves' \
  "$dir/leaving/checkpoint-2026-12-02T16:00:20Z"
once 0 "$dir/staying"
check "a staying Pod checkpoints and knows it stays" \
  grep -qx 'deadline=2026-12-02T16:00:20Z replicas=2 leaving=2,3 job=0 stays' \
  "$dir/staying/checkpoint-2026-12-02T16:00:20Z"
annotations 2026-12-02T16:00:20Z 12,13 12
once 2 "$dir/index"
check "index 2 is not index 12" grep -q ' job=2 stays$' "$dir/index/checkpoint-2026-12-02T16:00:20Z"

# Watching: one checkpoint per notice, a new one when the notice is extended (new deadline).
annotations
NOTICE_FILE=$dir/annotations CHECKPOINT_DIR=$dir/watch JOB_INDEX=1 POLL_SECONDS=0.1 \
  sh "$script" >"$dir/watch.log" &
watcher=$!
wait_for() {  # wait_for FILE: up to 5 s
  i=0
  while [ ! -e "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
annotations 2026-12-02T16:00:20Z 2,3 2
wait_for "$dir/watch/checkpoint-2026-12-02T16:00:20Z"
sleep 0.5
annotations 2026-12-02T16:00:30Z 1,2,3 1
wait_for "$dir/watch/checkpoint-2026-12-02T16:00:30Z"
sleep 0.3
check "one checkpoint per notice while watching" test "$(ls "$dir/watch" | wc -l)" -eq 2
check "the extension says Job 1 now leaves" \
  grep -q ' job=1 leaves$' "$dir/watch/checkpoint-2026-12-02T16:00:30Z"
check "the log names each notice once" test "$(grep -c '^notice:' "$dir/watch.log")" -eq 2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
