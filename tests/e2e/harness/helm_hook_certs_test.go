package harness

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The chart's certificates.mode hook without a kubelet: no hook Job can run here, so the release
// is installed with `helm install --no-hooks`, the hook's RBAC objects (`helm get hooks`) are
// created as Helm would create them, and each Job's command runs as a process with a token of the
// hook's ServiceAccount, so that the chart's RBAC is what allows or forbids each call.
func TestHelmHookCertificates(t *testing.T) { run(t, hookCertificates) }

// hookJob is one hook Job of the release: its name, events and container args.
type hookJob struct {
	name, events string
	args         []string
}

func hookCertificates(t *T) {
	c := t.c
	r := newChartRun(t)
	t.Cleanup(func() {
		r.cleanup(t)
		c.Kubectl("delete", "clusterrole,clusterrolebinding", "jobset-webhook-certs", "--ignore-not-found")
	})
	r.takeOver(t)
	r.installed = true // a failed install may leave a release too
	// A namespaceSelector no namespace matches: no JobSet of any case is sent to webhooks that
	// no pod answers while the release is installed.
	r.MustHelm(t, "install", chartRelease, filepath.Join(c.Root, "charts", "jobset-webhook"),
		"-n", r.ns, "--create-namespace", "--no-hooks", "--set", "certificates.mode=hook",
		"--set", "certificates.hook.days=30",
		"--set-json", `webhook.namespaceSelector={"matchLabels":{"e2e.jobset-webhook/chart-hook":"none"}}`)

	// `helm get hooks` prints the hook manifests as Helm stored them; each hook object but the
	// Jobs is created with kubectl (Helm would create it before the Jobs: hook weight -10).
	jobs := map[string]hookJob{}
	for _, doc := range strings.Split(r.MustHelm(t, "get", "hooks", chartRelease, "-n", r.ns), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var obj struct {
			Kind     string
			Metadata struct {
				Name        string
				Annotations map[string]string
			}
			Spec struct {
				Template struct {
					Spec struct{ Containers []struct{ Args []string } }
				}
			}
		}
		if err := json.Unmarshal([]byte(t.Try(doc, nil, "create", "--dry-run=client", "-o", "json", "-f", "-").Out), &obj); err != nil {
			t.Fatalf("a hook manifest: %v\n%s", err, doc)
		}
		if obj.Kind == "Job" {
			jobs[obj.Metadata.Name] = hookJob{obj.Metadata.Name, obj.Metadata.Annotations["helm.sh/hook"],
				obj.Spec.Template.Spec.Containers[0].Args}
			continue
		}
		if res := t.Try(doc, nil, "create", "-f", "-"); !res.OK {
			t.Fatalf("create hook object %s/%s: %s", obj.Kind, obj.Metadata.Name, res.Err)
		}
	}
	create, inject := jobs["jobset-webhook-certs-create"], jobs["jobset-webhook-certs-inject"]
	if create.events != "pre-install,pre-upgrade" || inject.events != "post-install,post-upgrade" {
		t.Fatalf("hook Jobs: %+v", jobs)
	}
	t.waitCanI(r.ns, "jobset-webhook-certs", "create", "secrets", true)
	token := strings.TrimSpace(t.Kubectl("create", "token", "jobset-webhook-certs", "-n", r.ns, "--duration", "1h"))
	kubeconfig := tokenKubeconfig(t, r.ns, token)
	// The Jobs' pods use the in-cluster configuration; here the same token comes by kubeconfig.
	hook := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(c.Ctx, filepath.Join(c.Root, "build", "jobset-webhook"),
			slices.Concat(args, []string{"--kubeconfig", kubeconfig})...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	// pre-install: the Secret is created, its certificate for the Service, signed by its CA.
	out, errOut, err := hook(create.args...)
	if err != nil {
		t.Fatalf("%v: %v: %s", create.args, err, errOut)
	}
	t.Logf("%s", strings.TrimSpace(errOut))
	secret := t.Get(r.ns, "secret", "jobset-webhook-tls")
	data := map[string][]byte{}
	for _, k := range []string{"ca.crt", "tls.crt", "tls.key"} {
		s, _ := at(secret, "data", k).(string)
		data[k], _ = base64.StdEncoding.DecodeString(s)
	}
	if at(secret, "type") != "kubernetes.io/tls" || len(data["tls.key"]) == 0 {
		t.Fatalf("Secret: type %v, keys %v", at(secret, "type"), at(secret, "data"))
	}
	if strings.TrimSpace(out) != base64.StdEncoding.EncodeToString(data["ca.crt"]) {
		t.Errorf("stdout is not the base64 of the Secret's ca.crt: %q", out)
	}
	verifyServing(t, data["ca.crt"], data["tls.crt"], "jobset-webhook."+r.ns+".svc")

	// pre-upgrade: the Secret is kept as it is.
	version := at(secret, "metadata", "resourceVersion")
	if _, errOut, err := hook(create.args...); err != nil {
		t.Errorf("again: %v: %s", err, errOut)
	}
	if v := at(t.Get(r.ns, "secret", "jobset-webhook-tls"), "metadata", "resourceVersion"); v != version {
		t.Errorf("a second run changed the Secret: resourceVersion %v → %v", version, v)
	}

	// post-install: the CA in both configurations, which call the release's Service.
	for i := 0; i < 2; i++ {
		if _, errOut, err := hook(inject.args...); err != nil {
			t.Fatalf("%v: %v: %s", inject.args, err, errOut)
		} else if i == 0 {
			t.Logf("%s", strings.TrimSpace(errOut))
		}
	}
	want := base64.StdEncoding.EncodeToString(data["ca.crt"])
	for _, kind := range []string{"validatingwebhookconfiguration", "mutatingwebhookconfiguration"} {
		w := t.Get("", kind, "jobset-webhook")
		if got := at(w, "webhooks", 0, "clientConfig", "caBundle"); got != want {
			t.Errorf("%s caBundle: %v, want the Secret's ca.crt", kind, got)
		}
		if got := at(w, "webhooks", 0, "clientConfig", "service", "namespace"); got != r.ns {
			t.Errorf("%s service namespace: %v", kind, got)
		}
	}

	// helm upgrade leaves the injected caBundle: the chart renders none, and Helm patches each
	// object with a three-way strategic merge of the old manifest, the new one and the live object
	// (helm pkg/kube/client.go, createPatch), which merges webhooks by name (patchMergeKey in
	// k8s.io/api admissionregistration/v1 types.go): a field neither manifest has is left alone.
	r.MustHelm(t, "upgrade", chartRelease, filepath.Join(c.Root, "charts", "jobset-webhook"), "-n", r.ns,
		"--no-hooks", "--reuse-values", "--set", "webhook.timeoutSeconds=7")
	for _, kind := range []string{"validatingwebhookconfiguration", "mutatingwebhookconfiguration"} {
		w := t.Get("", kind, "jobset-webhook")
		if got, timeout := at(w, "webhooks", 0, "clientConfig", "caBundle"), at(w, "webhooks", 0, "timeoutSeconds"); got != want || timeout != 7.0 {
			t.Errorf("%s after helm upgrade: timeoutSeconds %v, caBundle kept %v", kind, timeout, got == want)
		}
	}

	// The ClusterRole names the chart's configurations only: upstream's are out of reach.
	_, errOut, err = hook(slices.Concat(create.args, []string{"--inject-ca-into=jobset-validating-webhook-configuration"})...)
	if err == nil || !strings.Contains(errOut, "forbidden") {
		t.Errorf("caBundle of upstream's configuration: err %v, stderr %s", err, errOut)
	}

	// helm uninstall leaves the Secret, which the release does not own (docs/install.md).
	r.MustHelm(t, "uninstall", chartRelease, "-n", r.ns, "--wait")
	r.installed = false
	t.Kubectl("get", "secret", "jobset-webhook-tls", "-n", r.ns)
}

// verifyServing checks that cert chains to ca and names dnsName for server authentication, as
// the API server checks a webhook's certificate.
func verifyServing(t *T, ca, cert []byte, dnsName string) {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		t.Fatalf("ca.crt holds no certificate")
	}
	block, _ := pem.Decode(cert)
	if block == nil {
		t.Fatalf("tls.crt holds no PEM block")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("tls.crt: %v", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: dnsName,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("tls.crt for %s: %v", dnsName, err)
	}
}
