package harness

// The Helm chart (charts/jobset-webhook) installed, upgraded and uninstalled by the real helm
// (build-e2e/bin/helm, v3.22.0 from its Go module) on this control plane.
//
// The control plane has no kubelet, so the chart's pods are made (Deployment → ReplicaSet → Pod)
// and stay Pending, and no Service reaches them (docs/e2e.md, "Service or url"). The chart's
// webhook.external value points both installed webhook configurations at a url instead: the
// harness's own `serve`. What the API server calls is then exactly the configuration helm
// installed (the harness's own jobset-webhook configurations are taken down for the case and put
// back after), answered by the same binary the pods would run.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

const (
	chartRelease       = "jobset-webhook"
	validatePath       = "/validate-jobset-x-k8s-io-v1alpha2-jobset"
	mutatePath         = "/mutate-jobset-x-k8s-io-v1alpha2-jobset"
	validateScalerPath = "/validate-elastic-jobset-webhook-io-v1alpha1-replicatedjobscaler"
)

// TestHelmChart: install, a JobSet through the installed webhooks, upgrade with a changed
// policy, uninstall; one subtest each, in order, each skipped once one before it failed.
func TestHelmChart(t *testing.T) {
	run(t, func(t *T) {
		r := newChartRun(t)
		t.Cleanup(func() { r.cleanup(t) })
		steps := []struct {
			name string
			f    func(*T, *chartRun)
		}{
			{"install", chartInstall},
			{"a JobSet created, scaled and refused through the installed webhooks", chartJobSet},
			{"upgrade with a changed policy", chartUpgrade},
			{"uninstall leaves nothing behind", chartUninstall},
		}
		for _, s := range steps {
			t.Run(s.name, func(st *testing.T) {
				run(st, func(st *T) {
					if r.broken != "" {
						st.Skip("not run: step " + r.broken + " failed")
					}
					defer func() {
						if st.Failed() {
							r.broken = fmt.Sprintf("%q", s.name)
						}
					}()
					s.f(st, r)
				})
			})
		}
	})
}

// chartRun is what the steps share.
type chartRun struct {
	helm, home string
	ns         string // the release's namespace, made by helm install --create-namespace
	certs      string // ca.crt, tls.crt, tls.key of `jobset-webhook certs`
	first      *Webhook
	second     *Webhook // serve on the upgraded policy
	installed  bool
	taken      bool // the harness's configurations are down
	broken     string
}

func newChartRun(t *T) *chartRun {
	c := t.c
	r := &chartRun{helm: *helmFlag, home: c.path("helm")}
	if r.helm == "" {
		r.helm = filepath.Join(c.Bin, "helm")
	}
	if _, err := os.Stat(r.helm); err != nil {
		t.Skip("no helm at " + r.helm + " (scripts/dev e2e-go builds it)")
	}
	for i := len(c.Webhooks) - 1; i >= 0; i-- {
		if !c.Webhooks[i].p.exited() {
			r.first = c.Webhooks[i]
			break
		}
	}
	if r.first == nil {
		t.Fatalf("no serve of the harness is running")
	}
	r.ns = fmt.Sprintf("chart-%d", time.Now().UnixNano()%1000000)
	// The chart's Secret from the files of `jobset-webhook certs` (certificates.mode certs), as
	// docs/install.md makes them without cert-manager: one more object the release owns.
	r.certs = c.path("helm", r.ns)
	out, err := exec.Command(filepath.Join(c.Root, "build", "jobset-webhook"), "certs",
		"--service", "jobset-webhook", "--namespace", r.ns, "--out", r.certs).CombinedOutput()
	if err != nil {
		t.Fatalf("jobset-webhook certs: %v: %s", err, out)
	}
	return r
}

// Helm runs helm with the run's kubeconfig and its own cache and config folders, bounded to
// two minutes; the error holds its output.
func (r *chartRun) Helm(t *T, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(t.c.Ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.helm, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+t.c.Kubeconfig,
		"HELM_CACHE_HOME="+filepath.Join(r.home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(r.home, "config"),
		"HELM_DATA_HOME="+filepath.Join(r.home, "data"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("helm %s: %v: %s", strings.Join(args, " "), err,
			strings.TrimSpace(errOut.String()+out.String()))
	}
	return out.String(), nil
}

func (r *chartRun) MustHelm(t *T, args ...string) string {
	t.Helper()
	out, err := r.Helm(t, args...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return out
}

// base is webhook.external.url for a serve.
func base(w *Webhook) string { return w.URL("") }

// cleanup uninstalls what is left, puts the harness's configurations back (the cases after this
// one find the cluster as before) and stops the second serve, only once nothing calls it.
func (r *chartRun) cleanup(t *T) {
	c := t.c
	if r.installed {
		_, err := r.Helm(t, "uninstall", chartRelease, "-n", r.ns, "--wait")
		if err != nil && !strings.Contains(err.Error(), "release: not found") {
			t.Errorf("cleanup: %v", err)
		}
	}
	if r.taken {
		if err := c.RegisterWebhooks([]*Webhook{r.first}); err != nil {
			t.Errorf("cleanup: registering the harness's serve again: %v", err)
		}
	}
	if r.second != nil {
		r.second.p.stop(10 * time.Second)
	}
	c.Kubectl("delete", "namespace", r.ns, "--ignore-not-found", "--wait=false")
}

// takeOver deletes the harness's webhook configurations; cleanup puts them back. Helm refuses to
// install an object that exists without its release's ownership labels and annotations (helm
// pkg/action/validate.go, existingResourceConflict → checkOwnership), and the harness registered
// its own under the chart's names (manifests/base's), as tests/chart/install-on-cluster
// --take-over does.
func (r *chartRun) takeOver(t *T) {
	t.Kubectl("delete", "validatingwebhookconfiguration,mutatingwebhookconfiguration", "jobset-webhook")
	r.taken = true
}

// ourWebhookConfigurations lists "Kind/name" of every webhook configuration that holds one of
// jobset-webhook's webhooks (named *.jobset-webhook.kb.io), with each webhook's clientConfig.
func ourWebhookConfigurations(t *T) map[string][]map[string]any {
	t.Helper()
	out := t.Kubectl("get", "validatingwebhookconfigurations,mutatingwebhookconfigurations", "-o", "json")
	var list struct {
		Items []struct {
			Kind     string
			Metadata struct {
				Name        string
				Labels      map[string]string
				Annotations map[string]string
			}
			Webhooks []struct {
				Name         string
				ClientConfig map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v", err)
	}
	found := map[string][]map[string]any{}
	for _, item := range list.Items {
		for _, w := range item.Webhooks {
			if strings.HasSuffix(w.Name, ".jobset-webhook.kb.io") {
				key := item.Kind + "/" + item.Metadata.Name + " (release " +
					item.Metadata.Annotations["meta.helm.sh/release-name"] + ")"
				found[key] = append(found[key], w.ClientConfig)
			}
		}
	}
	return found
}

// chartInstall: helm install with webhook.external pointing at the harness's serve.
func chartInstall(t *T, r *chartRun) {
	c := t.c
	r.takeOver(t)
	caBundle := base64.StdEncoding.EncodeToString(c.ca.certPEM())
	r.installed = true // a failed install may leave a release too
	// Without --wait: helm install returns once the API server has stored every object (helm
	// pkg/action/install.go, performInstall); --wait would wait for pods no kubelet runs.
	out := r.MustHelm(t, "install", chartRelease, filepath.Join(c.Root, "charts", "jobset-webhook"),
		"-n", r.ns, "--create-namespace",
		"--set", "certificates.mode=certs",
		"--set-file", "certificates.certs.caCrt="+filepath.Join(r.certs, "ca.crt"),
		"--set-file", "certificates.certs.tlsCrt="+filepath.Join(r.certs, "tls.crt"),
		"--set-file", "certificates.certs.tlsKey="+filepath.Join(r.certs, "tls.key"),
		"--set", "webhook.external.url="+base(r.first),
		"--set", "webhook.external.caBundle="+caBundle,
		"--set", "scaleDownController.enabled=true",
		"--set", "scaleDownController.namespace="+r.ns)
	contains(t, "helm install's output", out, "STATUS: deployed")

	manifest := r.MustHelm(t, "get", "manifest", chartRelease, "-n", r.ns)
	got := strings.Fields(t.Try(manifest, nil, "get", "-f", "-", "-o", "name").Out)
	sort.Strings(got)
	t.Logf("the release's objects on the API server: %s", strings.Join(got, " "))
	for _, want := range []string{"deployment.apps/jobset-webhook", "service/jobset-webhook",
		"configmap/jobset-webhook-policy", "secret/jobset-webhook-tls",
		"validatingwebhookconfiguration.admissionregistration.k8s.io/jobset-webhook",
		"mutatingwebhookconfiguration.admissionregistration.k8s.io/jobset-webhook",
		"deployment.apps/jobset-scale-down-controller", "role.rbac.authorization.k8s.io/jobset-scale-down-controller"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s: not on the API server after helm install", want)
		}
	}

	// The only configurations with jobset-webhook's webhooks are the release's two, at the url:
	// the JobSet's validating and mutating webhooks and the ReplicatedJobScaler's.
	want := map[string][]map[string]any{
		"ValidatingWebhookConfiguration/jobset-webhook (release jobset-webhook)": {
			{"url": base(r.first) + validatePath, "caBundle": caBundle},
			{"url": base(r.first) + validateScalerPath, "caBundle": caBundle}},
		"MutatingWebhookConfiguration/jobset-webhook (release jobset-webhook)": {{"url": base(r.first) + mutatePath, "caBundle": caBundle}},
	}
	if got := mustJSON(ourWebhookConfigurations(t)); got != mustJSON(want) {
		t.Errorf("jobset-webhook's configurations:\ngot  %s\nwant %s", got, mustJSON(want))
	}
	// The Deployment controller makes its ReplicaSet (and that the Pods, which stay Pending).
	if rs := t.waitReplicaSets(r.ns, 1); len(rs) != 1 {
		t.Errorf("ReplicaSets of the Deployment: %v, want 1", rs)
	}
}

// waitReplicaSets waits up to 30 s until the webhook Deployment has n ReplicaSets and returns
// their pod-template checksums.
func (t *T) waitReplicaSets(ns string, n int) []string {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		got = strings.Fields(t.Kubectl("get", "replicaset", "-n", ns, "-l", "app.kubernetes.io/name=jobset-webhook",
			"-o", `jsonpath={range .items[*]}{.spec.template.metadata.annotations.checksum/policy}{" "}{end}`))
		if len(got) >= n {
			break
		}
	}
	sort.Strings(got)
	return got
}

// chartJobSet: a JobSet created, scaled and refused, with only the release's configurations in
// place. Its namespace is one upstream's defaulting webhook skips, so the defaults it gets come
// from the installed mutating configuration; the scale's warning and the refused image change
// come from the installed validating one (upstream's own is narrowed to CREATE).
func chartJobSet(t *T, r *chartRun) {
	ns := t.Namespace("chart-js", upstreamDefaultingOff)
	if res := t.Try(plainYAML("chart", 2, "busybox:1.36"), nil, "create", "-n", ns, "-f", "-"); !res.OK {
		t.Fatalf("create: %s", res.Err)
	}
	js := t.Get(ns, "jobset", "chart")
	if got := at(js, "spec", "replicatedJobs", 0, "template", "spec", "completionMode"); got != "Indexed" {
		t.Errorf("completionMode %v: not defaulted by the installed mutating webhook", got)
	}
	t.WaitJobs(ns, "chart", jobNames("chart", 2), 60*time.Second)
	res := t.Try("", nil, "patch", "-n", ns, "jobset", "chart", "--type=json", "-p", replicasPatch(3))
	if !res.OK {
		t.Fatalf("scale refused: %s", res.Err)
	}
	contains(t, "kubectl's stderr", res.Err, `Warning: replicatedJob "workers" scaled up from 2 to 3`)
	t.WaitJobs(ns, "chart", jobNames("chart", 3), 60*time.Second)
	res = t.Try("", nil, "patch", "-n", ns, "jobset", "chart", "--type=json", "-p",
		`[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]`)
	if res.OK {
		t.Fatalf("image change allowed")
	}
	contains(t, "kubectl's error", res.Err, imagePath+`: Invalid value: "busybox:1.37": field is immutable`)
}

// chartUpgrade: helm upgrade with elastic.replicas false. No pod can roll without a kubelet, so
// what a rollout is made of is asserted instead: the ConfigMap holds the new policy; the
// Deployment's pod template changes (the chart's checksum/policy annotation), so the Deployment
// controller makes a new ReplicaSet for it (k8s pkg/controller/deployment/sync.go,
// getNewReplicaSet: a ReplicaSet per pod-template hash); and a serve started on that ConfigMap's
// policy, which helm upgrade then points the configurations at (the Service would send to the
// new pods once ready), refuses the scale the old one allowed.
func chartUpgrade(t *T, r *chartRun) {
	c := t.c
	chart := filepath.Join(c.Root, "charts", "jobset-webhook")
	before := t.Get(r.ns, "deployment", "jobset-webhook")
	oldSum, _ := at(before, "spec", "template", "metadata", "annotations", "checksum/policy").(string)
	// --reuse-values: the install's values with this one changed (helm pkg/action/upgrade.go,
	// reuseValues); helm patches each object to the new render (pkg/kube/client.go, Update).
	r.MustHelm(t, "upgrade", chartRelease, chart, "-n", r.ns, "--reuse-values", "--set", "elastic.replicas=false")

	policy := t.Kubectl("get", "configmap", "jobset-webhook-policy", "-n", r.ns, "-o", `jsonpath={.data.policy\.yaml}`)
	contains(t, "the policy ConfigMap", policy, "replicas: false")
	after := t.Get(r.ns, "deployment", "jobset-webhook")
	newSum, _ := at(after, "spec", "template", "metadata", "annotations", "checksum/policy").(string)
	sum := sha256.Sum256([]byte(strings.TrimSuffix(policy, "\n")))
	if newSum == oldSum || newSum != hex.EncodeToString(sum[:]) {
		t.Errorf("checksum/policy %q → %q, want the sha256 of the new policy %x", oldSum, newSum, sum)
	}
	if g0, g1 := at(before, "metadata", "generation"), at(after, "metadata", "generation"); g1 == g0 {
		t.Errorf("the Deployment's generation stayed %v", g1)
	}
	if rs := t.waitReplicaSets(r.ns, 2); !slices.Contains(rs, newSum) || !slices.Contains(rs, oldSum) {
		t.Errorf("ReplicaSets' pod-template checksums %v, want the old and a new one %s", rs, newSum)
	}

	file := c.path("helm", r.ns+"-policy.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	ns := t.Namespace("chart-up")
	if res := t.Try(applied("up", 2, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-"); !res.OK {
		t.Fatalf("create: %s", res.Err)
	}
	// Until the new pods are ready the old ones answer, on the old policy.
	if res := t.Try("", nil, "patch", "-n", ns, "jobset", "up", "--dry-run=server", "--type=json", "-p", replicasPatch(3)); !res.OK {
		t.Errorf("scale refused before the new serve answers: %s", res.Err)
	}
	w, err := c.StartWebhookWithPolicy("127.0.0.1", file)
	if err != nil {
		t.Fatalf("%v", err)
	}
	r.second = w
	r.MustHelm(t, "upgrade", chartRelease, chart, "-n", r.ns, "--reuse-values", "--set", "webhook.external.url="+base(w))
	res := t.Try("", nil, "patch", "-n", ns, "jobset", "up", "--type=json", "-p", replicasPatch(3))
	if res.OK {
		t.Fatalf("scale allowed by the serve on the new policy (elastic.replicas false)")
	}
	contains(t, "kubectl's error", res.Err, "spec.replicatedJobs[0].replicas: Invalid value: 3: field is immutable")
}

// chartUninstall: helm uninstall deletes every object of the release's manifest and its release
// record (helm pkg/action/uninstall.go, Run → deleteRelease, background propagation), and with
// --wait returns once they are gone (pkg/kube/client.go, WaitForDelete). What the controllers
// made from them goes with them: ReplicaSets and Pods by the garbage collector (their
// ownerReferences), Pods at once as none was scheduled (k8s pkg/registry/core/pod/strategy.go,
// CheckGracefulDelete: grace period 0 without a nodeName), the Service's EndpointSlices by the
// EndpointSlice controller. Helm leaves the namespace it created (not in the manifest).
func chartUninstall(t *T, r *chartRun) {
	manifest := r.MustHelm(t, "get", "manifest", chartRelease, "-n", r.ns)
	r.MustHelm(t, "uninstall", chartRelease, "-n", r.ns, "--wait")
	r.installed = false
	res := t.Try(manifest, nil, "get", "-f", "-", "--ignore-not-found", "-o", "name")
	if left := strings.TrimSpace(res.Out); left != "" || !res.OK {
		t.Errorf("objects of the release left after helm uninstall: %s %s", left, res.Err)
	}
	if got := ourWebhookConfigurations(t); len(got) != 0 {
		t.Errorf("webhook configurations of jobset-webhook left: %v", got)
	}

	// Everything in the namespace but what Kubernetes puts in every namespace (its
	// ServiceAccount default and ConfigMap kube-root-ca.crt) and Events.
	types := strings.Fields(t.Kubectl("api-resources", "--verbs=list", "--namespaced", "-o", "name"))
	var kinds []string
	for _, k := range types {
		if k != "events" && k != "events.events.k8s.io" {
			kinds = append(kinds, k)
		}
	}
	var left []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		left = nil
		for _, o := range strings.Fields(t.Kubectl("get", strings.Join(kinds, ","), "-n", r.ns, "-o", "name")) {
			if o != "serviceaccount/default" && o != "configmap/kube-root-ca.crt" {
				left = append(left, o)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) != 0 {
		t.Errorf("left in namespace %s 30 s after helm uninstall: %v", r.ns, left)
	}

	// No webhook points nowhere: with neither the release's configurations nor the harness's,
	// a JobSet create is admitted (upstream's webhooks only).
	ns := t.Namespace("chart-after")
	if res := t.Try(plainYAML("after", 1, "busybox:1.36"), nil, "create", "-n", ns, "-f", "-"); !res.OK {
		t.Errorf("create after helm uninstall: %s", res.Err)
	}
}
