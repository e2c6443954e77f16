#!/bin/sh
# scripts/check-layers refuses each kind of forbidden include, and passes a tree that has none.
# Usage: check_layers_test.sh CHECK_LAYERS
set -u
check=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
failures=0
layers="base= field=base validation=base,field server=base,validation"

# expect OUTCOME DESCRIPTION FILE LINE: write LINE into FILE of a fresh tree, run the check.
expect() {
  outcome=$1 description=$2 file=$3 line=$4
  rm -rf "$tree"/src "$tree"/include
  mkdir -p "$tree"/src/field "$tree"/src/validation "$tree"/src/server \
    "$tree"/include/jobset_webhook/field "$tree"/include/jobset_webhook/validation
  printf '#pragma once\n' > "$tree"/include/jobset_webhook/field/path.h
  printf '#pragma once\n' > "$tree"/src/validation/read_internal.h
  printf '%s\n' "$line" >> "$tree/$file"
  if python3 "$check" "$tree" "$tree/stamp" $layers > "$tree/out" 2>&1; then got=pass; else got=fail; fi
  if [ "$got" != "$outcome" ]; then
    echo "FAIL: $description: expected $outcome, got $got"; cat "$tree/out"
    failures=$((failures + 1))
  fi
}

expect pass "a used layer's public header" src/validation/a.cpp '#include "jobset_webhook/field/path.h"'
expect pass "its own internal header by bare name" src/validation/a.cpp '#include "read_internal.h"'
expect pass "another layer it uses" src/server/a.cpp '#include "jobset_webhook/validation/x.h"'
expect fail "a layer it does not use" src/field/a.cpp '#include "jobset_webhook/validation/x.h"'
expect fail "a layer above it" src/validation/a.cpp '#include "jobset_webhook/server/options.h"'
expect fail "another layer's internal header" src/server/a.cpp '#include "validation/read_internal.h"'
expect fail "an internal header from a public one" include/jobset_webhook/field/path.h '#include "read_internal.h"'
expect fail "main beyond cli" src/main.cpp '#include "jobset_webhook/server/options.h"'
[ "$failures" -eq 0 ] && echo "check-layers: every case as expected"
exit "$failures"
