//go:build tools

// The command this module builds (upstream's manager, the main package of sigs.k8s.io/jobset);
// the import keeps it in go.mod and go.sum.
package tools

import _ "sigs.k8s.io/jobset"
