package harness

// The end-to-end cases run under `go test`: TestMain starts the control plane once (cluster.go),
// each case is a TestX that drives it with kubectl, and `scripts/dev e2e` turns the `-json`
// events into "N passed, N failed, N skipped" (scripts/e2e-summary). With -short no control plane
// starts and only the harness's own unit tests run. See docs/e2e.md.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	rootFlag      = flag.String("root", "", "repository root (holds build/jobset-webhook and manifests/; default: found above the working folder)")
	binFlag       = flag.String("bin", "build-e2e/bin", "folder of the Go binaries (etcd, kube-apiserver, ...), under ROOT when relative")
	workFlag      = flag.String("work", "build-e2e/run", "folder for certificates, data, logs (emptied first), under ROOT when relative")
	jobsetDirFlag = flag.String("jobset-dir", "", "upstream JobSet v0.12.0 source folder (module cache) for its CRD and webhook manifests (default: go list in tests/e2e/jobset)")
	examplesFlag  = flag.String("examples", os.Getenv("JOBSET_UPSTREAM_EXAMPLES"), "folder of upstream example JobSets (default $JOBSET_UPSTREAM_EXAMPLES; TestUpstreamExamples is skipped when absent)")
	kubectlFlag   = flag.String("kubectl", "", "kubectl to drive the cluster with (default BIN/kubectl)")
	kcmFlag       = flag.Bool("controller-manager", true, "start kube-controller-manager (false only to debug the harness: no pods, no garbage collection)")
	rolloutFlag   = flag.Bool("rollout", true, "run TestRolloutUnderLoad (-rollout=false skips it; see docs/e2e.md)")
	helmFlag      = flag.String("helm", "", "helm to install the chart with (default BIN/helm; TestHelmChart is skipped when absent)")
)

// cluster is the control plane of the run, started by TestMain; nil with -short.
var cluster *Cluster

// timeoutMargin is what the cases leave of -test.timeout for stopping the control plane: at the
// timeout the testing package panics, and the children would only die by their Pdeathsig.
const timeoutMargin = 45 * time.Second

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	os.Exit(withCluster(m))
}

// withCluster starts the control plane, runs the tests and stops it; the exit code of m.Run, or
// 1 when the control plane did not start (no test ran: the summary counts that as one failure).
func withCluster(m *testing.M) int {
	root := *rootFlag
	if root == "" {
		r, err := FindRoot(".")
		if err != nil {
			logf("%v", err)
			return 1
		}
		root = r
	}
	root, _ = filepath.Abs(root)
	jobsetDir := *jobsetDirFlag
	if jobsetDir == "" {
		d, err := JobSetModuleDir(root)
		if err != nil {
			logf("%v", err)
			return 1
		}
		jobsetDir = d
	}
	ctx, cancel := context.Background(), func() {}
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, ok := f.Value.(flag.Getter).Get().(time.Duration); ok && d > 0 {
			limit := d - timeoutMargin
			if limit < d/2 {
				limit = d / 2
			}
			ctx, cancel = context.WithTimeout(ctx, limit)
		}
	}
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		logf("received %v: stopping", s)
		cancel()
	}()
	kubectl := *kubectlFlag
	if kubectl == "" {
		kubectl = filepath.Join(Abs(root, *binFlag), "kubectl")
	}
	c := &Cluster{
		Root:        root,
		Bin:         Abs(root, *binFlag),
		Work:        Abs(root, *workFlag),
		JobSetDir:   jobsetDir,
		KubectlPath: kubectl,
		NoKCM:       !*kcmFlag,
		Ctx:         ctx,
	}
	start := time.Now()
	if err := c.Up(); err != nil {
		logf("cluster start failed: %v", err)
		c.Down()
		c.TailLogs()
		logf("cluster start failed (the logs' last lines above): %v", err)
		return 1
	}
	logf("control plane, JobSet controller and jobset-webhook up in %.1fs", time.Since(start).Seconds())
	cluster = c
	code := m.Run()
	if code != 0 {
		c.TailLogs()
	}
	logf("start-up and cases took %.1fs", time.Since(start).Seconds())
	c.Down()
	if code == 0 && ctx.Err() != nil {
		code = 1
	}
	return code
}

// T is one case's handle: the testing.T and the control plane.
type T struct {
	*testing.T
	c *Cluster
}

// run runs one end-to-end case: skipped with -short (no control plane), failed at once when the
// run's time limit has passed or it was interrupted. A panic in the case fails it and lets the
// others run.
func run(t *testing.T, f func(t *T)) {
	t.Helper()
	if cluster == nil {
		t.Skip("-short: no control plane")
	}
	if err := cluster.Ctx.Err(); err != nil {
		t.Fatalf("not run: %v (time limit, -test.timeout less %v, or interrupted)", err, timeoutMargin)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	f(&T{T: t, c: cluster})
}

// Namespace makes a fresh namespace for one case; labels as "k=v".
func (t *T) Namespace(prefix string, labels ...string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1000000)
	if _, err := t.c.Kubectl("create", "namespace", name); err != nil {
		t.Fatalf("%v", err)
	}
	if len(labels) > 0 {
		if _, err := t.c.Kubectl(append([]string{"label", "namespace", name}, labels...)...); err != nil {
			t.Fatalf("%v", err)
		}
	}
	return name
}

// Kubectl runs kubectl and stops the case when it fails.
func (t *T) Kubectl(args ...string) string {
	t.Helper()
	out, err := t.c.Kubectl(args...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return out
}

// Result of one kubectl run.
type Result struct {
	Out, Err string
	OK       bool
}

func (t *T) Try(stdin string, env []string, args ...string) Result {
	out, errOut, err := t.c.KubectlIO(stdin, env, args...)
	return Result{Out: out, Err: errOut, OK: err == nil}
}

// Get returns the object as JSON.
func (t *T) Get(ns, kind, name string) map[string]any {
	t.Helper()
	out := t.Kubectl("get", "-n", ns, kind, name, "-o", "json")
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%v", err)
	}
	return obj
}

// Jobs lists the names of the Jobs of one JobSet.
func (t *T) Jobs(ns, jobset string) []string {
	t.Helper()
	out := t.Kubectl("get", "jobs", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name="+jobset,
		"-o", "jsonpath={.items[*].metadata.name}")
	names := strings.Fields(out)
	sort.Strings(names)
	return names
}

// WaitJobs waits until the JobSet's Jobs are exactly want (sorted), or fails.
func (t *T) WaitJobs(ns, jobset string, want []string, timeout time.Duration) {
	t.Helper()
	sort.Strings(want)
	deadline := time.Now().Add(timeout)
	var got []string
	for time.Now().Before(deadline) {
		got = t.Jobs(ns, jobset)
		if strings.Join(got, " ") == strings.Join(want, " ") {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("Jobs of %s/%s: got %v after %v, want %v", ns, jobset, got, timeout, want)
}

// at walks a JSON object along keys and list indices.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func contains(t *T, what, text, want string) {
	t.Helper()
	if !strings.Contains(text, want) {
		t.Errorf("%s does not contain %q:\n%s", what, want, strings.TrimSpace(text))
	}
}
