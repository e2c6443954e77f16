package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// FindRoot is the repository root: the nearest folder at or above dir that holds
// tests/e2e/go.mod (`go test` runs a package's tests in the package's folder).
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, "tests", "e2e", "go.mod")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no repository root (a folder with tests/e2e/go.mod) at or above %s", dir)
		}
	}
}

// JobSetModuleDir is the folder of upstream JobSet's module in the Go module cache, which holds
// its CRD and webhook manifests (never copied into this repository).
func JobSetModuleDir(root string) (string, error) {
	return moduleDir(root, "tests/e2e/jobset", "sigs.k8s.io/jobset")
}

// KueueModuleDir is the folder of Kueue's module in the Go module cache: its CRDs and webhook
// manifests, as for JobSet.
func KueueModuleDir(root string) (string, error) {
	return moduleDir(root, "tests/e2e/kueue", "sigs.k8s.io/kueue")
}

// moduleDir is the folder of module in the module cache, at the version that the Go module in
// folder sub of the repository requires.
func moduleDir(root, sub, module string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(sub))
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s in %s: %w", module, sub, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Abs is p, or p under root when p is relative.
func Abs(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// LogDir is the folder of the run's logs, one per process.
func (c *Cluster) LogDir() string { return c.path("logs") }

// WebhookCA is the CA certificate (PEM) that signed the certificate of the run's `serve`.
func (c *Cluster) WebhookCA() string { return c.path("webhook-certs", "ca.crt") }
