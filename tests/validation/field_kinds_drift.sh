#!/bin/sh
# field_kinds_drift.sh ROOT: the committed field-kinds tables (src/validation/*-field-kinds.json)
# against what tests/e2e/jobset/cmd/fieldkinds writes from the Go types of the ReplicatedJob,
# at the versions tests/e2e/jobset/go.mod builds upstream's manager with. Skipped (exit 77,
# Meson's SKIP) when build-e2e/bin/fieldkinds is missing (`scripts/dev e2e-go` builds it);
# `scripts/dev field-kinds` rewrites the tables.
root=$1
gen="$root/build-e2e/bin/fieldkinds"
if [ ! -x "$gen" ]; then
  echo "$gen is missing (scripts/dev e2e-go builds it): skipped"
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
if ! "$gen" "$out"; then
  echo "0 passed, 1 failed"
  exit 1
fi
failed=0
for table in jobtemplate container volume; do
  name=$table-field-kinds.json
  if ! diff -u "$root/src/validation/$name" "$out/$name"; then
    echo "src/validation/$name differs from the Go types: run scripts/dev field-kinds"
    failed=1
  fi
done
if [ "$failed" = 0 ]; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
