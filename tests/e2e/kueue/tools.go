//go:build tools

// The command this module builds (Kueue's manager, sigs.k8s.io/kueue/cmd/kueue); the import
// keeps it in go.mod and go.sum.
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
