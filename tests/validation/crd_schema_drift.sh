#!/bin/sh
# crd_schema_drift.sh ROOT: the committed schema table (src/validation/jobset-crd-schema.json)
# against what scripts/gen_crd_schema.py makes of the CRD the e2e harness installs: upstream
# JobSet's config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml in the Go module cache, at the
# version tests/e2e/jobset/go.mod requires. Skipped (exit 77, Meson's SKIP) when the module is not
# in the cache (`scripts/dev e2e-go` fetches it) or python3-yaml is missing.
root=$1
# The require line, alone or in a require block.
version=$(sed -n 's/^\(require\)\{0,1\}[[:space:]]*sigs\.k8s\.io\/jobset \(v[^ ]*\)$/\2/p' "$root/tests/e2e/jobset/go.mod")
modcache=${GOMODCACHE:-}
if [ -z "$modcache" ] && command -v go >/dev/null 2>&1; then modcache=$(go env GOMODCACHE); fi
modcache=${modcache:-${GOPATH:-$HOME/go}/pkg/mod}
crd="$modcache/sigs.k8s.io/jobset@$version/config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"
if [ -z "$version" ] || [ ! -f "$crd" ]; then
  echo "sigs.k8s.io/jobset@${version:-?} is not in the Go module cache ($modcache): skipped"
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
fi
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "python3-yaml is not installed: skipped"
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
fi
if python3 "$root/scripts/gen_crd_schema.py" check "$crd" "$root/src/validation/jobset-crd-schema.json"; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
