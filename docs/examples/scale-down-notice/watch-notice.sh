#!/bin/sh
# The worked example of docs/elastic.md, "Notice before deletion": a side container (or the
# workload's own loop) that reads the scale-down controller's notice from a downward-API file
# and checkpoints once per notice, before the deadline.
#   NOTICE_FILE     the file of metadata.annotations (default /etc/notice/annotations)
#   CHECKPOINT_DIR  where the marker goes (default /checkpoints)
#   JOB_INDEX       this Pod's Job index (the label jobset.sigs.k8s.io/job-index)
#   POLL_SECONDS    how often the file is read (default 2); ONCE=1 reads it once and exits
set -u
NOTICE_FILE=${NOTICE_FILE:-/etc/notice/annotations}
CHECKPOINT_DIR=${CHECKPOINT_DIR:-/checkpoints}
JOB_INDEX=${JOB_INDEX:-}
prefix=elastic.jobset-webhook.io/scale-down

# The downward API writes one annotation a line, key="value".
annotation() {
  sed -n "s|^$prefix-$1=\"\(.*\)\"\$|\1|p" "$NOTICE_FILE" 2>/dev/null
}

seen=""
while :; do
  deadline=$(annotation deadline)
  if [ -n "$deadline" ] && [ "$deadline" != "$seen" ]; then
    replicas=$(annotation replicas)
    leaving=$(annotation leaving)
    role=stays
    case ",$leaving," in *",$JOB_INDEX,"*) role=leaves ;; esac
    echo "notice: replicas $replicas, indices $leaving leave by $deadline; Job $JOB_INDEX $role"
    # The workload's checkpoint goes here: all Pods, leaving and staying, save their state; the
    # staying ones then carry on with $replicas Jobs. The marker is written last, atomically.
    mkdir -p "$CHECKPOINT_DIR"
    printf 'deadline=%s replicas=%s leaving=%s job=%s %s\n' \
      "$deadline" "$replicas" "$leaving" "$JOB_INDEX" "$role" >"$CHECKPOINT_DIR/.marker.tmp"
    mv "$CHECKPOINT_DIR/.marker.tmp" "$CHECKPOINT_DIR/checkpoint-$deadline"
    seen=$deadline
  fi
  [ "${ONCE:-0}" = 1 ] && exit 0
  sleep "${POLL_SECONDS:-2}"
done
