package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// upstreamDefaultingOff labels a namespace that upstream's mjobset.kb.io skips (the harness adds
// that namespaceSelector), so what is defaulted there was defaulted by jobset-webhook.
const upstreamDefaultingOff = "e2e.jobset-webhook/upstream-defaulting=off"

// Cluster is the control plane of one run and the processes around it.
type Cluster struct {
	Root string // repository root
	Bin  string // etcd, kube-apiserver, kube-controller-manager, kubectl, jobset-manager
	Work string // certificates, etcd data, logs, kubeconfig
	// KubectlPath is BIN/kubectl (v1.37, as the API server) unless --kubectl names another.
	KubectlPath string
	NoKCM       bool
	// ScaleDown (`scripts/dev cluster`): serve runs with the policy of
	// manifests/components/scale-down-controller (elastic.scaleDown: controller) and one
	// `jobset-webhook scale-down-controller` watches every namespace, as that component installs
	// them. The tests leave it off: its cases start their own controllers, one per namespace.
	ScaleDown bool
	etcdURL   string
	JobSetDir string // upstream JobSet's module folder: CRD and webhook manifests

	// Ctx bounds every wait and kubectl call of the run: cancelling it stops them.
	Ctx   context.Context
	mu    sync.Mutex
	procs []*proc

	Kubeconfig  string
	APIServer   string // https://127.0.0.1:PORT
	ca          keyPair
	admin       keyPair
	webhookDir  string // tls.crt, tls.key, ca.crt of jobset-webhook (and upstream's manager)
	Webhooks    []*Webhook
	jobsetPorts struct{ webhook, health int }
	// jobsetManager is upstream's manager process; jobsetGates its feature gates (none: v0.12.0's
	// defaults).
	jobsetManager *proc
	jobsetGates   map[string]bool
	// ControllerMetrics is the port of the scale-down controller's /metrics (ScaleDown only).
	ControllerMetrics int
	timings           []string
	ports             *portPool
}

// proc is one child process, in its own process group.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// Webhook is one `jobset-webhook serve` process.
type Webhook struct {
	Addr                  string // 127.0.0.x
	Port, Health, Metrics int
	p                     *proc
}

func (w *Webhook) URL(path string) string {
	return fmt.Sprintf("https://%s:%d%s", w.Addr, w.Port, path)
}

func (c *Cluster) path(parts ...string) string {
	return filepath.Join(append([]string{c.Work}, parts...)...)
}

// start runs a child with its output in WORK/logs/NAME.log.
func (c *Cluster) start(name, exe string, args ...string) (*proc, error) {
	logPath := c.path("logs", name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		f.Close()
		close(p.done)
	}()
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}

// stop sends SIGTERM to the process group, then SIGKILL after grace.
func (p *proc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Down stops every process, newest first.
func (c *Cluster) Down() {
	c.mu.Lock()
	procs := append([]*proc(nil), c.procs...)
	c.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(10 * time.Second)
	}
}

// TailLogs prints the end of every log, for a failed run.
func (c *Cluster) TailLogs() {
	for _, p := range c.procs {
		b, _ := os.ReadFile(p.log)
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		fmt.Fprintf(os.Stderr, "----- %s (last lines of %s)\n%s\n", p.name, p.log, b)
	}
}

// waitFor polls check every 200 ms until it returns nil, the process dies, or timeout passes.
func (c *Cluster) waitFor(what string, p *proc, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	var err error
	for {
		if err = check(); err == nil {
			return nil
		}
		if p != nil && p.exited() {
			return fmt.Errorf("%s: process exited (%v); see %s", what, p.cmd.ProcessState, p.log)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not ready after %v: %v", what, timeout, err)
		}
		if c.Ctx.Err() != nil {
			return fmt.Errorf("%s: %v", what, c.Ctx.Err())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *Cluster) step(what string, since time.Time) {
	t := fmt.Sprintf("%-28s %5.1fs", what, time.Since(since).Seconds())
	c.timings = append(c.timings, t)
	logf("%s", t)
}

func httpGet(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %d %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

var plainHTTP = &http.Client{Timeout: 2 * time.Second}

// Up builds the whole thing, in order, each step waiting for the one before to be ready.
func (c *Cluster) Up() error {
	if err := os.RemoveAll(c.Work); err != nil {
		return err
	}
	for _, d := range []string{"logs", "pki", "etcd", "webhook-certs", "manifests"} {
		if err := os.MkdirAll(c.path(d), 0o755); err != nil {
			return err
		}
	}
	for _, exe := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "jobset-manager"} {
		if exe == "kube-controller-manager" && c.NoKCM {
			continue
		}
		if _, err := os.Stat(filepath.Join(c.Bin, exe)); err != nil {
			return fmt.Errorf("missing %s (built by scripts/dev e2e): %w", exe, err)
		}
	}
	if _, err := os.Stat(c.KubectlPath); err != nil {
		return fmt.Errorf("missing kubectl: %w", err)
	}
	if _, err := os.Stat(filepath.Join(c.Root, "build", "jobset-webhook")); err != nil {
		return fmt.Errorf("missing build/jobset-webhook (scripts/dev build): %w", err)
	}
	if err := c.makeCerts(); err != nil {
		return err
	}
	if c.ports == nil {
		c.ports = newPortPool()
	}
	t := time.Now()
	if err := c.startEtcd(); err != nil {
		return err
	}
	c.step("etcd ready", t)
	if err := c.startAPIServer(); err != nil {
		return err
	}
	c.step("kube-apiserver ready", t)
	if !c.NoKCM {
		if err := c.startControllerManager(); err != nil {
			return err
		}
		c.step("kube-controller-manager ready", t)
	}
	if err := c.installCRD(); err != nil {
		return err
	}
	c.step("JobSet CRD established", t)
	w, err := c.StartWebhook("127.0.0.1")
	if err != nil {
		return err
	}
	if err := c.RegisterWebhooks([]*Webhook{w}); err != nil {
		return err
	}
	c.step("jobset-webhook registered", t)
	if err := c.startJobSetManager(); err != nil {
		return err
	}
	c.step("JobSet manager ready", t)
	if c.ScaleDown {
		// The component's ReplicatedJobScaler CRD, which the controller watches and applies.
		crd := filepath.Join(c.Root, "manifests", "components", "scale-down-controller",
			"replicated-job-scaler-crd.yaml")
		if _, err := c.Kubectl("apply", "-f", crd); err != nil {
			return err
		}
		if _, err := c.Kubectl("wait", "--for", "condition=Established", "--timeout", "60s",
			"crd/replicatedjobscalers.elastic.jobset-webhook.io"); err != nil {
			return err
		}
		if err := c.startScaleDownController(); err != nil {
			return err
		}
		c.step("scale-down controller leading", t)
	}
	return nil
}

func (c *Cluster) makeCerts() error {
	c.ca = newPair(nil, pkix.Name{CommonName: "jobset-webhook-e2e-ca"}, true, nil, nil, nil)
	pki := c.path("pki")
	if err := c.ca.write(pki, "ca.crt", "ca.key"); err != nil {
		return err
	}
	apiserver := serving(&c.ca, "kube-apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc")
	apiserver.cert.IPAddresses = append(apiserver.cert.IPAddresses, net.ParseIP("10.0.0.1"))
	if err := apiserver.write(pki, "apiserver.crt", "apiserver.key"); err != nil {
		return err
	}
	// kubectl and the controllers authenticate with a client certificate of group
	// system:masters: the harness is the cluster's administrator.
	c.admin = client(&c.ca, "e2e-admin", "system:masters")
	if err := c.admin.write(pki, "admin.crt", "admin.key"); err != nil {
		return err
	}
	sa := newPair(nil, pkix.Name{CommonName: "service-accounts"}, false, nil, nil, nil)
	if err := sa.write(pki, "sa.crt", "sa.key"); err != nil {
		return err
	}
	// jobset-webhook's --cert-dir layout (a kubernetes.io/tls Secret), also used by
	// upstream's manager as its webhook and metrics certificate.
	c.webhookDir = c.path("webhook-certs")
	wh := serving(&c.ca, "jobset-webhook", "jobset-webhook.jobset-system.svc")
	if err := wh.write(c.webhookDir, "tls.crt", "tls.key"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.webhookDir, "ca.crt"), c.ca.certPEM(), 0o644); err != nil {
		return err
	}
	return nil
}

// startEtcd runs etcd on two ports of the pool: its client URL is advertised, and written into
// the API server's flags, before it binds.
func (c *Cluster) startEtcd() error {
	return c.startBinding("etcd", func() (*proc, error) {
		// A new member each time: the data of one that lost its port names the old peer URL.
		if err := os.RemoveAll(c.path("etcd")); err != nil {
			return nil, err
		}
		client, peer := c.ports.take("127.0.0.1"), c.ports.take("127.0.0.1")
		cu, pu := fmt.Sprintf("http://127.0.0.1:%d", client), fmt.Sprintf("http://127.0.0.1:%d", peer)
		p, err := c.start("etcd", filepath.Join(c.Bin, "etcd"),
			"--name", "e2e", "--data-dir", c.path("etcd"),
			"--listen-client-urls", cu, "--advertise-client-urls", cu,
			"--listen-peer-urls", pu, "--initial-advertise-peer-urls", pu,
			"--initial-cluster", "e2e="+pu,
			// Throw-away data: no fsync, which would make a shared disk the bottleneck.
			"--unsafe-no-fsync", "--log-level", "warn")
		if err != nil {
			return nil, err
		}
		c.etcdURL = cu
		return p, c.waitFor("etcd", p, 60*time.Second, func() error { return httpGet(plainHTTP, cu+"/health") })
	})
}

func (c *Cluster) adminClient() *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(c.ca.cert)
	cert, _ := tls.X509KeyPair(c.admin.certPEM(), c.admin.keyPEM())
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
}

// startAPIServer runs kube-apiserver on a port of the pool (its --secure-port 0 turns serving
// off).
func (c *Cluster) startAPIServer() error {
	return c.startBinding("kube-apiserver", c.launchAPIServer)
}

func (c *Cluster) launchAPIServer() (*proc, error) {
	port := c.ports.take("127.0.0.1")
	c.APIServer = fmt.Sprintf("https://127.0.0.1:%d", port)
	pki := c.path("pki")
	p, err := c.start("kube-apiserver", filepath.Join(c.Bin, "kube-apiserver"),
		"--etcd-servers", c.etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(port),
		"--tls-cert-file", filepath.Join(pki, "apiserver.crt"),
		"--tls-private-key-file", filepath.Join(pki, "apiserver.key"),
		"--client-ca-file", filepath.Join(pki, "ca.crt"),
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", filepath.Join(pki, "sa.key"),
		"--service-account-signing-key-file", filepath.Join(pki, "sa.key"),
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--authorization-mode", "RBAC",
		// The `kubernetes` Service's Endpoints would hold 127.0.0.1, which Endpoints validation
		// refuses (loopback): no reconciler.
		"--endpoint-reconciler-type", "none")
	if err != nil {
		return nil, err
	}
	if err := c.writeKubeconfig(); err != nil {
		return p, err
	}
	cl := c.adminClient()
	return p, c.waitFor("kube-apiserver", p, 120*time.Second, func() error { return httpGet(cl, c.APIServer+"/readyz") })
}

func (c *Cluster) writeKubeconfig() error {
	c.Kubeconfig = c.path("kubeconfig")
	b64 := base64.StdEncoding.EncodeToString
	user := fmt.Sprintf("client-certificate-data: %s\n    client-key-data: %s",
		b64(c.admin.certPEM()), b64(c.admin.keyPEM()))
	return os.WriteFile(c.Kubeconfig, []byte(kubeconfigYAML(c.APIServer, c.ca.certPEM(), user, "default")), 0o600)
}

// kubeconfigYAML is a kubeconfig of one cluster (server, its CA), one user (the lines of its
// credentials, indented by four spaces after the first) and one context in namespace ns.
func kubeconfigYAML(server string, caPEM []byte, user, ns string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: e2e-user
  user:
    %s
contexts:
- name: e2e
  context: {cluster: e2e, user: e2e-user, namespace: %s}
current-context: e2e
`, server, base64.StdEncoding.EncodeToString(caPEM), user, ns)
}

func (c *Cluster) startControllerManager() error {
	pki := c.path("pki")
	p, err := c.start("kube-controller-manager", filepath.Join(c.Bin, "kube-controller-manager"),
		"--kubeconfig", c.Kubeconfig,
		// Nothing here reads its health or metrics endpoints: no port, so none to lose.
		"--secure-port", "0",
		"--leader-elect=false",
		"--service-account-private-key-file", filepath.Join(pki, "sa.key"),
		"--root-ca-file", filepath.Join(pki, "ca.crt"),
		"--cluster-signing-cert-file", filepath.Join(pki, "ca.crt"),
		"--cluster-signing-key-file", filepath.Join(pki, "ca.key"),
	)
	if err != nil {
		return err
	}
	// Ready when its service account controller has made namespace default's ServiceAccount
	// (pods of Jobs need it).
	return c.waitFor("kube-controller-manager", p, 120*time.Second, func() error {
		_, err := c.Kubectl("get", "serviceaccount", "default", "-n", "default")
		return err
	})
}

// Kubectl runs build-e2e/bin/kubectl against the cluster and returns its stdout; the error
// holds stderr.
func (c *Cluster) Kubectl(args ...string) (string, error) {
	out, errOut, err := c.KubectlIO("", nil, args...)
	if err != nil {
		return out, fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut))
	}
	return out, nil
}

// KubectlIO runs kubectl with stdin and extra environment; it returns stdout, stderr and the
// exit error. Each call is bounded to a minute.
func (c *Cluster) KubectlIO(stdin string, env []string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(c.Ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.KubectlPath, args...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+c.Kubeconfig), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

func (c *Cluster) installCRD() error {
	crd := filepath.Join(c.JobSetDir, "config", "components", "crd", "bases", "jobset.x-k8s.io_jobsets.yaml")
	// Server-side apply: the CRD is larger than the last-applied annotation may be.
	if _, err := c.Kubectl("apply", "--server-side", "-f", crd); err != nil {
		return err
	}
	// Polled rather than `kubectl wait --for=condition=Established`: kubectl v1.37's wait fails
	// at once ("status.conditions accessor error") when the CRD has no conditions yet.
	return c.waitFor("JobSet CRD established", nil, 60*time.Second, func() error {
		out, err := c.Kubectl("get", "crd", "jobsets.jobset.x-k8s.io", "-o",
			`jsonpath={.status.conditions[?(@.type=="Established")].status}`)
		if err != nil {
			return err
		}
		if out != "True" {
			return fmt.Errorf("Established=%q", out)
		}
		return nil
	})
}

// scaleDownPolicy is the policy the scale-down-controller component gives the webhook.
func (c *Cluster) scaleDownPolicy() string {
	return filepath.Join(c.Root, "manifests", "components", "scale-down-controller", "policy.yaml")
}

// servingLine is serve's `serving` log line in the text format, with the ports it bound.
var servingLine = regexp.MustCompile(`(?m)^\S+ INFO serving .*\bport=(\d+) healthPort=(\d+)`)

// StartWebhook starts `jobset-webhook serve` on addr with the default policy, or with the
// scale-down-controller component's when ScaleDown is set. Its HTTPS and health ports are port
// 0, read from its `serving` line; its metrics port (0 would turn it off) comes from the pool.
func (c *Cluster) StartWebhook(addr string) (*Webhook, error) {
	policy := ""
	if c.ScaleDown {
		policy = c.scaleDownPolicy()
	}
	return c.StartWebhookWithPolicy(addr, policy)
}

// StartWebhookWithPolicy is StartWebhook with the policy file given (--config; "" for none).
func (c *Cluster) StartWebhookWithPolicy(addr, policy string) (*Webhook, error) {
	w := &Webhook{Addr: addr}
	n := 0
	for _, o := range c.Webhooks {
		if o.Addr == addr {
			n++
		}
	}
	name := "jobset-webhook-" + addr
	if n > 0 {
		name += fmt.Sprintf("-%d", n+1)
	}
	err := c.startBinding(name, func() (*proc, error) {
		w.Metrics = c.ports.take(addr)
		args := []string{"serve",
			"--bind", addr, "--port", "0", "--cert-dir", c.webhookDir,
			"--health-port", "0", "--metrics-port", fmt.Sprint(w.Metrics),
			"--log-format", "text"}
		if policy != "" {
			args = append(args, "--config", policy)
		}
		p, err := c.start(name, filepath.Join(c.Root, "build", "jobset-webhook"), args...)
		if err != nil {
			return nil, err
		}
		w.p = p
		return p, c.waitFor(name, p, 30*time.Second, func() error {
			b, err := os.ReadFile(p.log)
			if err != nil {
				return err
			}
			m := servingLine.FindSubmatch(b)
			if m == nil {
				return fmt.Errorf("no serving line yet")
			}
			w.Port, _ = strconv.Atoi(string(m[1]))
			w.Health, _ = strconv.Atoi(string(m[2]))
			return httpGet(plainHTTP, fmt.Sprintf("http://%s:%d/readyz", addr, w.Health))
		})
	})
	if err != nil {
		return nil, err
	}
	c.Webhooks = append(c.Webhooks, w)
	return w, nil
}

// RegisterWebhooks applies manifests/base's two webhook configurations with their
// clientConfig turned from the Service into a url per serving process (one webhook entry per
// process: the API server calls each, so with two processes each request is judged twice;
// the rollout case uses that to see both), and the CA of this run as caBundle.
func (c *Cluster) RegisterWebhooks(ws []*Webhook) error {
	ca := base64.StdEncoding.EncodeToString(c.ca.certPEM())
	for _, file := range []string{"validating-webhook-configuration.yaml", "mutating-webhook-configuration.yaml"} {
		obj, err := c.yamlToJSON(filepath.Join(c.Root, "manifests", "base", file))
		if err != nil {
			return err
		}
		hooks := obj["webhooks"].([]any)
		out := []any{} // none for no process: the configurations stay, empty
		for _, h := range hooks {
			for i, w := range ws {
				m := deepCopy(h).(map[string]any)
				cc := m["clientConfig"].(map[string]any)
				svc := cc["service"].(map[string]any)
				delete(cc, "service")
				cc["url"] = w.URL(svc["path"].(string))
				cc["caBundle"] = ca
				if len(ws) > 1 {
					m["name"] = fmt.Sprintf("p%d.%s", i, m["name"])
				}
				out = append(out, m)
			}
		}
		obj["webhooks"] = out
		if err := c.applyJSON(obj); err != nil {
			return err
		}
	}
	return nil
}

// yamlToJSON reads one object of YAML through kubectl (client-side, no server round trip).
func (c *Cluster) yamlToJSON(file string) (map[string]any, error) {
	out, err := c.Kubectl("create", "--dry-run=client", "-o", "json", "-f", file)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	return obj, json.Unmarshal([]byte(out), &obj)
}

func (c *Cluster) applyJSON(obj map[string]any) error {
	b, _ := json.Marshal(obj)
	_, errOut, err := c.KubectlIO(string(b), nil, "apply", "--server-side", "--force-conflicts", "-f", "-")
	if err != nil {
		return fmt.Errorf("apply %v: %v: %s", obj["metadata"], err, errOut)
	}
	return nil
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// startJobSetManager runs upstream's manager with internal certificate management off (it would
// write /tmp/k8s-webhook-server/serving-certs and a Secret in jobset-system and rewrite the
// webhook configurations' caBundle for a Service), its webhook, health and metrics servers on
// loopback, and registers upstream's webhook configurations (config/components/webhook, named
// as its release names them) with urls, then narrows vjobset.kb.io to CREATE exactly as
// docs/install.md tells users. Its webhook and health ports come from the pool; its metrics
// server binds port 0 (nothing here reads it).
func (c *Cluster) startJobSetManager() error {
	if err := c.startBinding("jobset manager", c.launchJobSetManager); err != nil {
		return err
	}
	return c.registerJobSetWebhooks()
}

// RestartJobSetManager stops upstream's manager and starts it again with these feature gates
// (nil: the defaults), on new ports, its webhooks registered again with them. A case that needs
// an alpha gate runs between two calls, the second with nil; cases run one at a time.
func (c *Cluster) RestartJobSetManager(gates map[string]bool) error {
	if c.jobsetManager != nil {
		c.jobsetManager.stop(10 * time.Second)
	}
	c.jobsetGates = gates
	return c.startJobSetManager()
}

// JobSetManagerLog is the log file of upstream's manager process running now.
func (c *Cluster) JobSetManagerLog() string { return c.jobsetManager.log }

func (c *Cluster) launchJobSetManager() (*proc, error) {
	c.jobsetPorts.webhook = c.ports.take("127.0.0.1")
	c.jobsetPorts.health = c.ports.take("127.0.0.1")
	gates := ""
	if len(c.jobsetGates) > 0 {
		gates = "featureGates:\n"
		names := make([]string, 0, len(c.jobsetGates))
		for name := range c.jobsetGates {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			gates += fmt.Sprintf("  %s: %t\n", name, c.jobsetGates[name])
		}
	}
	cfg := fmt.Sprintf(`apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
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
  certDir: %s
health:
  healthProbeBindAddress: 127.0.0.1:%d
%s`, c.jobsetPorts.webhook, c.webhookDir, c.webhookDir, c.jobsetPorts.health, gates)
	cfgPath := c.path("manifests", "jobset-manager-config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	name := "jobset-manager"
	if c.jobsetManager != nil { // a restart: the first log stays
		name = fmt.Sprintf("jobset-manager-%d", time.Now().UnixNano()%1000000)
	}
	p, err := c.start(name, filepath.Join(c.Bin, "jobset-manager"),
		"--config", cfgPath, "--kubeconfig", c.Kubeconfig, "--zap-log-level", "info")
	if err != nil {
		return nil, err
	}
	c.jobsetManager = p
	return p, c.waitFor("jobset manager", p, 60*time.Second, func() error {
		return httpGet(plainHTTP, fmt.Sprintf("http://127.0.0.1:%d/readyz", c.jobsetPorts.health))
	})
}

// registerJobSetWebhooks registers upstream's webhook configurations with the manager's url,
// then waits until the manager serves each of their paths.
func (c *Cluster) registerJobSetWebhooks() error {
	rendered, err := c.Kubectl("kustomize", filepath.Join(c.JobSetDir, "config", "components", "webhook"))
	if err != nil {
		return err
	}
	ca := base64.StdEncoding.EncodeToString(c.ca.certPEM())
	var urls []string
	for _, doc := range strings.Split(rendered, "\n---\n") {
		out, errOut, err := c.KubectlIO(doc, nil, "create", "--dry-run=client", "-o", "json", "-f", "-")
		if err != nil {
			return fmt.Errorf("upstream webhook manifests: %v: %s", err, errOut)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			return err
		}
		kind := obj["kind"].(string)
		if kind != "ValidatingWebhookConfiguration" && kind != "MutatingWebhookConfiguration" {
			continue // its Service: no use on loopback
		}
		md := obj["metadata"].(map[string]any)
		md["name"] = "jobset-" + md["name"].(string) // config/default's namePrefix
		for _, h := range obj["webhooks"].([]any) {
			if h.(map[string]any)["name"] == "mjobset.kb.io" {
				// The harness's one change to upstream's configuration: namespaces labelled
				// upstreamDefaultingOff are left to jobset-webhook's defaulting alone, so the
				// example cases can see that ours applied (the API server calls mutating
				// configurations in name order: upstream's first, and ours would find nothing left).
				k, v, _ := strings.Cut(upstreamDefaultingOff, "=")
				h.(map[string]any)["namespaceSelector"] = map[string]any{"matchExpressions": []any{
					map[string]any{"key": k, "operator": "NotIn", "values": []any{v}}}}
			}
			cc := h.(map[string]any)["clientConfig"].(map[string]any)
			svc := cc["service"].(map[string]any)
			delete(cc, "service")
			cc["url"] = fmt.Sprintf("https://127.0.0.1:%d%s", c.jobsetPorts.webhook, svc["path"])
			cc["caBundle"] = ca
			urls = append(urls, cc["url"].(string))
		}
		if err := c.applyJSON(obj); err != nil {
			return err
		}
	}
	// docs/install.md, step 3, word for word.
	_, err = c.Kubectl("patch", "validatingwebhookconfiguration", "jobset-validating-webhook-configuration",
		"--type=json", "-p", `[
  {"op": "test", "path": "/webhooks/0/name", "value": "vjobset.kb.io"},
  {"op": "replace", "path": "/webhooks/0/rules/0/operations", "value": ["CREATE"]}]`)
	if err != nil {
		return err
	}
	return c.waitWebhookPaths("JobSet manager's webhooks", nil, urls)
}

// waitWebhookPaths waits until a controller-runtime manager's webhook server answers each of
// urls with anything but 404. The manager is ready (/readyz) once its webhook server listens,
// and registers the webhooks' paths only after its caches have synced, a second or two later;
// until then the server answers 404, and an object written then is refused with "failed calling
// webhook "vjobset.kb.io": ... the server could not find the requested resource".
func (c *Cluster) waitWebhookPaths(what string, p *proc, urls []string) error {
	cl := c.adminClient()
	return c.waitFor(what, p, 60*time.Second, func() error {
		for _, u := range urls {
			resp, err := cl.Post(u, "application/json", strings.NewReader("{}"))
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				return fmt.Errorf("%s: 404", u)
			}
		}
		return nil
	})
}

// startScaleDownController runs `jobset-webhook scale-down-controller` over every namespace, its
// Lease in namespace default, and waits until it has listed both collections and holds the Lease.
func (c *Cluster) startScaleDownController() error {
	return c.startBinding("scale-down controller", c.launchScaleDownController)
}

// launchScaleDownController: its metrics port (0 would turn it off) comes from the pool.
func (c *Cluster) launchScaleDownController() (*proc, error) {
	c.ControllerMetrics = c.ports.take("127.0.0.1")
	p, err := c.start("scale-down-controller", filepath.Join(c.Root, "build", "jobset-webhook"),
		"scale-down-controller", "--kubeconfig", c.Kubeconfig, "--lease-namespace", "default",
		"--identity", "dev", "--bind", "127.0.0.1", "--metrics-port", fmt.Sprint(c.ControllerMetrics))
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", c.ControllerMetrics)
	return p, c.waitFor("scale-down controller", p, 60*time.Second, func() error {
		if err := httpGet(plainHTTP, base+"/readyz"); err != nil {
			return err
		}
		resp, err := plainHTTP.Get(base + "/metrics")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(b), "\njobset_scale_down_leader 1\n") {
			return fmt.Errorf("not leading yet")
		}
		return nil
	})
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "==> "+format+"\n", args...)
}
