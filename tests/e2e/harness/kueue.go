package harness

// Kueue's manager (sigs.k8s.io/kueue v0.17.0, built by scripts/dev into BIN/kueue from
// tests/e2e/kueue) for the one case that shows what Kueue does to a scaled JobSet
// (TestScaleHazardKueue). The case starts it and stops it: it is not part of the control plane
// the other cases see, and everything it installs (its CRDs, its webhook configurations, the
// objects of its API) is removed again, even when the case fails.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kueue is one Kueue manager process and what was installed for it.
type Kueue struct {
	c         *Cluster
	dir       string // Kueue's module folder: CRDs and webhook manifests
	p         *proc
	health    int
	webhook   int
	crds      []string // names of the CRDs applied from dir
	metrics   string   // metricsCertDir, when this run wrote it
	webhooks  []string // "kind/name" of the webhook configurations registered
	namespace string   // Kueue's own namespace, made for it
	cases     []string // the case's namespaces, where Kueue's JobSet webhooks apply
}

// metricsCertDir is where Kueue v0.17.0 reads its metrics server's certificate whenever its
// internal certificate management is off: a fixed path, not a setting (cmd/kueue/main.go,
// "metricsCertPath"; certwatcher.New fails the start when tls.crt or tls.key is missing).
const metricsCertDir = "/etc/kueue/metrics/certs"

// KueueBinary is BIN/kueue, or "" when scripts/dev could not build it.
func (c *Cluster) KueueBinary() string {
	p := filepath.Join(c.Bin, "kueue")
	if !fileExists(p) {
		return ""
	}
	return p
}

// StartKueue installs Kueue's CRDs, starts its manager on loopback with the JobSet integration
// only and registers its JobSet webhooks (mjobset.kb.io, vjobset.kb.io, from its
// config/components/webhook/manifests.yaml) for the namespaces given, so that no other case's
// JobSet meets them. The caller stops it with Stop (t.Cleanup), whatever happens.
//
// The manager's configuration (config.kueue.x-k8s.io/v1beta2, apis/config/v1beta2): no leader
// election; internalCertManagement off (it would make a Secret and rewrite webhook
// configurations for a Service; its webhook server uses the harness's serving certificate, as
// upstream JobSet's manager does); the VisibilityOnDemand gate off (its default on starts an
// aggregated API server of its own, which nothing here uses); metrics on loopback.
func (c *Cluster) StartKueue(namespaces ...string) (*Kueue, error) {
	dir, err := KueueModuleDir(c.Root)
	if err != nil {
		return nil, err
	}
	k := &Kueue{c: c, dir: dir, cases: namespaces}
	if err := k.installCRDs(); err != nil {
		return k, err
	}
	k.namespace = "kueue-system"
	if _, err := c.Kubectl("create", "namespace", k.namespace); err != nil {
		return k, err
	}
	if err := k.writeMetricsCerts(); err != nil {
		return k, err
	}
	if err := c.startBinding("kueue", k.launch); err != nil {
		return k, err
	}
	return k, k.registerWebhooks(namespaces)
}

// installCRDs applies every CRD of Kueue's config/components/crd/bases and waits until each is
// established (polled, as installCRD does for JobSet's).
func (k *Kueue) installCRDs() error {
	bases := filepath.Join(k.dir, "config", "components", "crd", "bases")
	out, err := k.c.Kubectl("apply", "--server-side", "-f", bases, "-o", "name")
	if err != nil {
		return err
	}
	for _, line := range strings.Fields(out) {
		k.crds = append(k.crds, strings.TrimPrefix(line, "customresourcedefinition.apiextensions.k8s.io/"))
	}
	if len(k.crds) == 0 {
		return fmt.Errorf("no CRD in %s", bases)
	}
	return k.c.waitFor("Kueue's CRDs established", nil, 60*time.Second, func() error {
		for _, crd := range k.crds {
			out, err := k.c.Kubectl("get", "crd", crd, "-o",
				`jsonpath={.status.conditions[?(@.type=="Established")].status}`)
			if err != nil {
				return err
			}
			if out != "True" {
				return fmt.Errorf("%s: Established=%q", crd, out)
			}
		}
		return nil
	})
}

// writeMetricsCerts puts the harness's serving pair in metricsCertDir unless a pair is there
// already (another run's, or a real installation's: left alone).
func (k *Kueue) writeMetricsCerts() error {
	if fileExists(filepath.Join(metricsCertDir, "tls.crt")) && fileExists(filepath.Join(metricsCertDir, "tls.key")) {
		return nil
	}
	if err := os.MkdirAll(metricsCertDir, 0o755); err != nil {
		return fmt.Errorf("Kueue's metrics certificate folder: %w", err)
	}
	k.metrics = metricsCertDir
	for _, f := range []string{"tls.crt", "tls.key"} {
		b, err := os.ReadFile(filepath.Join(k.c.webhookDir, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(metricsCertDir, f), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func (k *Kueue) launch() (*proc, error) {
	c := k.c
	k.webhook, k.health = c.ports.take("127.0.0.1"), c.ports.take("127.0.0.1")
	cfg := fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
metrics:
  bindAddress: 127.0.0.1:0
health:
  healthProbeBindAddress: 127.0.0.1:%d
integrations:
  frameworks: ["jobset.x-k8s.io/jobset"]
featureGates:
  VisibilityOnDemand: false
`, k.namespace, k.webhook, c.webhookDir, k.health)
	cfgPath := c.path("manifests", "kueue-config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	// --zap-log-level 2: the reconciler's V(2) lines, "job with no matching workload, suspending"
	// among them.
	p, err := c.start("kueue", filepath.Join(c.Bin, "kueue"), "--config", cfgPath, "--zap-log-level", "2")
	if err != nil {
		return nil, err
	}
	k.p = p
	// Ready once its webhook server listens (setupProbeEndpoints, cmd/kueue/main.go).
	return p, c.waitFor("kueue", p, 90*time.Second, func() error {
		return httpGet(plainHTTP, fmt.Sprintf("http://127.0.0.1:%d/readyz", k.health))
	})
}

// Log is the file Kueue's manager writes.
func (k *Kueue) Log() string { return k.p.log }

// registerWebhooks applies the entries of Kueue's webhook configurations whose rules name
// jobsets, with urls of the manager and the run's CA, limited to namespaces, then waits until
// the manager serves their paths (as registerJobSetWebhooks does for upstream's).
func (k *Kueue) registerWebhooks(namespaces []string) error {
	c := k.c
	file := filepath.Join(k.dir, "config", "components", "webhook", "manifests.yaml")
	out, err := c.Kubectl("create", "--dry-run=client", "-o", "json", "-f", file)
	if err != nil {
		return err
	}
	// One JSON object per document, one after the other.
	var objs []map[string]any
	for dec := json.NewDecoder(strings.NewReader(out)); dec.More(); {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return fmt.Errorf("Kueue's webhook manifests: %w", err)
		}
		objs = append(objs, obj)
	}
	ca := base64.StdEncoding.EncodeToString(c.ca.certPEM())
	var urls []string
	for _, obj := range objs {
		var keep []any
		for _, h := range obj["webhooks"].([]any) {
			m := h.(map[string]any)
			b, _ := json.Marshal(m["rules"])
			if !strings.Contains(string(b), `"jobsets"`) {
				continue
			}
			cc := m["clientConfig"].(map[string]any)
			svc := cc["service"].(map[string]any)
			delete(cc, "service")
			cc["url"] = fmt.Sprintf("https://127.0.0.1:%d%s", k.webhook, svc["path"])
			cc["caBundle"] = ca
			m["namespaceSelector"] = map[string]any{"matchExpressions": []any{map[string]any{
				"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}}}
			urls = append(urls, cc["url"].(string))
			keep = append(keep, m)
		}
		if len(keep) == 0 {
			continue
		}
		md := obj["metadata"].(map[string]any)
		md["name"] = "kueue-" + md["name"].(string) // config/default's namePrefix
		obj["webhooks"] = keep
		if err := c.applyJSON(obj); err != nil {
			return err
		}
		k.webhooks = append(k.webhooks, strings.ToLower(obj["kind"].(string))+"/"+md["name"].(string))
	}
	if len(urls) != 2 {
		return fmt.Errorf("Kueue's webhook manifests name %d JobSet webhooks, want 2 (mjobset.kb.io, vjobset.kb.io)", len(urls))
	}
	return c.waitWebhookPaths("Kueue's JobSet webhooks", k.p, urls)
}

// Stop undoes StartKueue, each step whatever the one before did, and returns what failed.
// While the manager still runs, the case's JobSets are deleted (the garbage collector then
// deletes their Workloads, and Kueue lifts its finalizers from them), then the queues and flavors
// (whose finalizer Kueue lifts once no admitted Workload uses them). Then the manager stops, its
// webhook configurations go, any finalizer left is cleared, and its CRDs, its namespace and the
// metrics certificate written for it are removed.
func (k *Kueue) Stop() []error {
	c := k.c
	var errs []error
	note := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if k.p != nil && !k.p.exited() {
		for _, ns := range k.cases {
			_, err := c.Kubectl("delete", "jobsets", "--all", "-n", ns, "--wait=true", "--timeout=40s")
			note(err)
		}
		for _, kind := range []string{"workloads", "localqueues", "clusterqueues", "resourceflavors"} {
			_, err := c.Kubectl("delete", kind+".kueue.x-k8s.io", "--all", "--all-namespaces", "--ignore-not-found",
				"--wait=true", "--timeout=40s")
			note(err)
		}
		k.p.stop(10 * time.Second)
	}
	for _, w := range k.webhooks {
		_, err := c.Kubectl("delete", w, "--ignore-not-found")
		note(err)
	}
	for _, crd := range k.crds {
		resource := strings.SplitN(crd, ".", 2)[0] + ".kueue.x-k8s.io"
		out, err := c.Kubectl("get", resource, "--all-namespaces", "-o",
			`jsonpath={range .items[?(@.metadata.finalizers)]}{.metadata.namespace}{" "}{.metadata.name}{"\n"}{end}`)
		if err != nil {
			continue // the CRD was never established
		}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line) // namespace and name, or the name alone
			if len(f) == 0 {
				continue
			}
			args := []string{"patch", resource, f[len(f)-1], "--type=merge", "-p", `{"metadata":{"finalizers":null}}`}
			if len(f) == 2 {
				args = append(args, "-n", f[0])
			}
			_, err := c.Kubectl(args...)
			note(err)
		}
	}
	if len(k.crds) > 0 {
		_, err := c.Kubectl(append([]string{"delete", "crd", "--ignore-not-found", "--wait=true", "--timeout=60s"}, k.crds...)...)
		note(err)
	}
	if k.namespace != "" {
		_, err := c.Kubectl("delete", "namespace", k.namespace, "--ignore-not-found", "--wait=false")
		note(err)
	}
	if k.metrics != "" {
		note(os.RemoveAll(k.metrics))
		os.Remove(filepath.Dir(k.metrics)) // /etc/kueue/metrics, then /etc/kueue, when empty
		os.Remove(filepath.Dir(filepath.Dir(k.metrics)))
	}
	return errs
}
