package harness

// The scale-down controller's safety on the real control plane (docs/elastic.md: "Never on a
// stale view", "When it does not act, it says so", "High availability", "Install"): a scale back
// up in the middle of a scale-down, a Job of an older restart attempt kept by a finalizer, the
// component's RBAC and nothing more, a kubeconfig whose CA does not sign the API server, the
// Lease handed over on SIGTERM; and, only when asked, its CPU and time figures. Each case starts
// its own controllers, limited to its namespace, as those of scale_down.go do.

import (
	"bufio"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// waitReasons are the label values of jobset_scale_down_waiting_jobsets (to_string(WaitReason),
// src/controller/plan_scale_down.cpp).
var waitReasons = []string{"newer_attempt", "managed_elsewhere", "forbidden", "delete_failed"}

func waitingSample(reason string) string {
	return `jobset_scale_down_waiting_jobsets{reason="` + reason + `"}`
}

// startControllerWith is startController with another kubeconfig and extra environment
// (through env(1), which execs the controller in the same process). With ready unset it waits
// for /healthz only (the process serves), not for /readyz (its caches synced).
func startControllerWith(t *T, ns, identity, kubeconfig string, env []string, ready bool, extra ...string) *sdController {
	c := &sdController{identity: identity}
	probe := "/healthz"
	if ready {
		probe = "/readyz"
	}
	err := t.c.startBinding("controller "+identity, func() (*proc, error) {
		c.metrics = t.c.ports.take("127.0.0.1")
		args := append([]string{filepath.Join(t.c.Root, "build", "jobset-webhook"),
			"scale-down-controller", "--kubeconfig", kubeconfig,
			"--namespace", ns, "--lease-namespace", ns, "--identity", identity,
			"--bind", "127.0.0.1", "--metrics-port", strconv.Itoa(c.metrics),
			"--lease-duration", "4", "--renew-deadline", "3", "--retry-period", "1"}, extra...)
		p, err := t.c.start("scale-down-controller-"+ns+"-"+identity, "/usr/bin/env", append(env, args...)...)
		if err != nil {
			return nil, err
		}
		c.p = p
		return p, t.c.waitFor("controller "+identity, p, 30*time.Second, func() error {
			if code, _ := c.get(probe); code != 200 {
				return fmt.Errorf("%s: %d", probe, code)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return c
}

// jobDeletion is one DELETED event of a Job watch. Its resourceVersion is the etcd revision of
// the deletion: the etcd3 store sets a deleted object's resourceVersion to the revision of the
// delete event (k8s.io/apiserver/pkg/storage/etcd3/watcher.go, watchChan.prepareObjects), and
// every object's to the revision that wrote it (store.go, via APIObjectVersioner.UpdateObject),
// so on this one etcd it orders a Job's deletion against a JobSet's update.
type jobDeletion struct {
	name string
	rv   int64
}

// jobWatch is `kubectl get jobs -w` over a namespace, from before the case acts.
type jobWatch struct {
	cmd     *exec.Cmd
	mu      sync.Mutex
	added   int
	deleted []jobDeletion
	first   chan struct{} // closed at the first DELETED
}

// watchJobs starts the watch and waits until its initial list (ADDED events) holds want Jobs.
func (t *T) watchJobs(ns string, want int) *jobWatch {
	w := &jobWatch{first: make(chan struct{})}
	w.cmd = exec.CommandContext(t.c.Ctx, t.c.KubectlPath, "get", "jobs", "-n", ns, "-w",
		"--output-watch-events", "-o", "json")
	w.cmd.Env = append(os.Environ(), "KUBECONFIG="+t.c.Kubeconfig)
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("%v", err)
	}
	go func() {
		dec := json.NewDecoder(bufio.NewReader(out))
		for {
			var ev struct {
				Type   string
				Object struct {
					Metadata struct{ Name, ResourceVersion string }
				}
			}
			if dec.Decode(&ev) != nil {
				return
			}
			w.mu.Lock()
			switch ev.Type {
			case "ADDED":
				w.added++
			case "DELETED":
				rv, _ := strconv.ParseInt(ev.Object.Metadata.ResourceVersion, 10, 64)
				w.deleted = append(w.deleted, jobDeletion{ev.Object.Metadata.Name, rv})
				if len(w.deleted) == 1 {
					close(w.first)
				}
			}
			w.mu.Unlock()
		}
	}()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		w.mu.Lock()
		n := w.added
		w.mu.Unlock()
		if n >= want {
			return w
		}
	}
	w.stop()
	t.Fatalf("the Job watch listed fewer than %d Jobs in 20s", want)
	return nil
}

func (w *jobWatch) stop() {
	w.cmd.Process.Kill()
	w.cmd.Wait()
}

func (w *jobWatch) deletions() []jobDeletion {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]jobDeletion(nil), w.deleted...)
}

// warnings are the messages of the ScaleDownBlocked Events in the namespace.
func (t *T) warnings(ns string) []string {
	out := t.Kubectl("get", "events", "-n", ns, "--field-selector", "reason=ScaleDownBlocked",
		"-o", "jsonpath={range .items[*]}{.type}: {.message}{\"\\n\"}{end}")
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' })
}

func sdFlapLong(t *T) { flap(t, "flap", 16, 1, true) }

// sdFlapZero: three Jobs go fast, so the scale back up may well land after all of them; what
// is asserted holds either way.
func sdFlapZero(t *T) { flap(t, "zero", 3, 0, false) }

// flap scales n Jobs down to low and, at the first Job deleted, back up to n. Each deletion is
// placed against the scale back up by resourceVersion (jobDeletion): those after it may number
// one at most, the DELETE whose quorum read of the JobSet came just before the update (the
// round trip docs/elastic.md leaves open). The controller before the quorum read deleted 6 of 7
// Jobs in an 8 -> 1 -> 8 flap: it went on with the replicas of its cached JobSet. With
// interrupt set, a scale back up that lands after the whole scale-down fails the case.
func flap(t *T, name string, n, low int, interrupt bool) {
	ns := newJobSet(t, name, n, false)
	before := t.jobUIDs(ns, name)
	w := t.watchJobs(ns, n)
	defer w.stop()
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	t.patchReplicas(ns, name, low)
	select {
	case <-w.first:
	case <-time.After(30 * time.Second):
		t.Fatalf("no Job deleted 30s after the scale-down to %d", low)
	}
	r := t.Try("", nil, "patch", "-n", ns, "jobset", name, "--type=json", "-p", replicasPatch(n),
		"-o", "jsonpath={.metadata.resourceVersion}")
	if !r.OK {
		t.Fatalf("scale back up refused: %s", r.Err)
	}
	upRV, err := strconv.ParseInt(strings.TrimSpace(r.Out), 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q of the scale back up: %v", r.Out, err)
	}
	t.WaitJobs(ns, name, jobNames(name, n), 60*time.Second)
	t.settle(ns, name)
	dels := w.deletions()
	var early, late []string
	for _, d := range dels {
		if d.rv < upRV {
			early = append(early, d.name)
		} else {
			late = append(late, d.name)
		}
	}
	if interrupt && len(early) == n-low {
		t.Errorf("the scale back up landed after the whole scale-down (%v): the case proved nothing", early)
	}
	if len(late) > 1 {
		t.Errorf("Jobs deleted after the scale back up was stored: %v (%d), want at most one", late, len(late))
	}
	// Highest index first: the deleted Jobs are the top ones, each once.
	for i, d := range dels {
		if want := fmt.Sprintf("%s-workers-%d", name, n-1-i); d.name != want {
			t.Errorf("deletion %d: %s, want %s (all: %v)", i+1, d.name, want, dels)
		}
	}
	after := t.jobUIDs(ns, name)
	replaced := 0
	for j, uid := range before {
		if after[j] != uid {
			replaced++
		}
	}
	if replaced != len(dels) {
		t.Errorf("%d Jobs replaced, %d deletions watched", replaced, len(dels))
	}
	msgs, _ := t.scaleEvents(ns)
	if len(msgs) != len(dels) {
		t.Errorf("%d ScaleDownDeletedJob Events for %d deletions: %q", len(msgs), len(dels), msgs)
	}
	for _, m := range msgs {
		contains(t, "Event", m, fmt.Sprintf(", replicas %d,", low))
	}
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != float64(len(dels)) {
		t.Errorf("jobset_scale_down_jobs_deleted_total = %v, want %d", got, len(dels))
	}
	t.stable(ns, name, 0, 3*time.Second)
	t.Logf("%d -> %d -> %d: %d of %d Jobs deleted, %d before the scale back up was stored and %d after (%v); the controller before the quorum read deleted 6 of 7 in an 8 -> 1 -> 8 flap",
		n, low, n, len(dels), n-low, len(early), len(late), append(early, late...))
}

// sdStuckOlderAttempt: upstream's restart deletes the Jobs of attempt 0 (deleteJobs, Foreground)
// and creates attempt 1 for every index whose name is free (constructJobsFromTemplate,
// shouldCreateJob: a Job of the same name, previous attempts included, blocks its index;
// sigs.k8s.io/jobset pkg/controllers/jobset_controller.go). A finalizer keeps -workers-3 of
// attempt 0 Terminating, as a Pod on a lost node would; the scale-down of attempt 1 must not
// wait for it.
func sdStuckOlderAttempt(t *T) {
	ns := t.Namespace("scale")
	yaml := plain("stuck", 4, "busybox:1.36").failurePolicy(3).yaml()
	if r := t.Try(yaml, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.WaitJobs(ns, "stuck", jobNames("stuck", 4), 60*time.Second)
	t.Kubectl("patch", "job", "-n", ns, "stuck-workers-3", "--type=json", "-p",
		`[{"op":"add","path":"/metadata/finalizers","value":["example.com/hold"]}]`)
	released := false
	defer func() {
		if !released {
			t.releaseHold(ns, "stuck-workers-3")
		}
	}()
	stuckUID := t.jobUIDs(ns, "stuck")["stuck-workers-3"]
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)

	t.finishJob(ns, "stuck-workers-1", false)
	// Attempt 1 for indices 0-2; index 3 still held by the Job of attempt 0, being deleted.
	var state string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		state = t.attempts(ns, "stuck")
		if state == "stuck-workers-0=1 stuck-workers-1=1 stuck-workers-2=1 stuck-workers-3=0(deleting)" {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if r, term := t.jobsetState(ns, "stuck"); r != 1 || term != "" {
		t.Fatalf("after a failed Job: restarts %d, condition %q (Jobs %s); want one restart", r, term, state)
	}
	if !strings.HasSuffix(state, "stuck-workers-3=0(deleting)") || strings.Count(state, "=1") != 3 {
		t.Fatalf("Jobs (name=attempt): %s; want 0-2 of attempt 1 and 3 of attempt 0 being deleted", state)
	}
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 0 {
		t.Errorf("the controller deleted %v Jobs during the restart", got)
	}

	t.patchReplicas(ns, "stuck", 1)
	t.WaitJobs(ns, "stuck", []string{"stuck-workers-0", "stuck-workers-3"}, 30*time.Second)
	if got := t.attempts(ns, "stuck"); got != "stuck-workers-0=1 stuck-workers-3=0(deleting)" {
		t.Errorf("Jobs (name=attempt) after the scale-down: %s", got)
	}
	if uid := t.jobUIDs(ns, "stuck")["stuck-workers-3"]; uid != stuckUID {
		t.Errorf("stuck-workers-3 was replaced while held")
	}
	msgs, _ := t.scaleEvents(ns)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "Deleted Job stuck-workers-2 ") ||
		!strings.HasPrefix(msgs[1], "Deleted Job stuck-workers-1 ") {
		t.Errorf("Events %q, want stuck-workers-2 then stuck-workers-1", msgs)
	}
	for _, m := range msgs {
		contains(t, "Event", m, ", replicas 1,")
	}
	if w := t.warnings(ns); len(w) > 0 {
		t.Errorf("warnings while a Job of attempt 0 is held: %q", w)
	}
	for _, reason := range waitReasons {
		if got := ctl.metric(waitingSample(reason)); got != 0 {
			t.Errorf("%s = %v, want 0", waitingSample(reason), got)
		}
	}

	t.releaseHold(ns, "stuck-workers-3")
	released = true
	// Index 3 lies above replicas 1: upstream does not create it again.
	t.WaitJobs(ns, "stuck", []string{"stuck-workers-0"}, 60*time.Second)
	t.settle(ns, "stuck")
	if got := t.attempts(ns, "stuck"); got != "stuck-workers-0=1" {
		t.Errorf("Jobs (name=attempt) at the end: %s, want stuck-workers-0=1", got)
	}
	t.stable(ns, "stuck", 1, 3*time.Second)
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 2 {
		t.Errorf("jobset_scale_down_jobs_deleted_total = %v, want 2", got)
	}
}

// attempts lists the JobSet's Jobs as name=restart-attempt, "(deleting)" when marked deleted.
func (t *T) attempts(ns, jobset string) string {
	out := t.Kubectl("get", "jobs", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name="+jobset, "-o", "json")
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string
				Labels            map[string]string
				DeletionTimestamp string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v", err)
	}
	var parts []string
	for _, j := range list.Items {
		p := j.Metadata.Name + "=" + j.Metadata.Labels["jobset.sigs.k8s.io/restart-attempt"]
		if j.Metadata.DeletionTimestamp != "" {
			p += "(deleting)"
		}
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// releaseHold removes the finalizer example.com/hold. The garbage collector may remove its own
// foregroundDeletion finalizer at the same moment, so the removal is by index behind a test of
// the value, and tried again when the list moved.
func (t *T) releaseHold(ns, job string) {
	for i := 0; i < 10; i++ {
		out, err := t.c.Kubectl("get", "job", "-n", ns, job, "-o", "jsonpath={.metadata.finalizers}")
		if err != nil {
			return // gone
		}
		var fins []string
		json.Unmarshal([]byte(out), &fins)
		idx := -1
		for k, f := range fins {
			if f == "example.com/hold" {
				idx = k
			}
		}
		if idx < 0 {
			return
		}
		p := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":"example.com/hold"},{"op":"remove","path":"/metadata/finalizers/%d"}]`, idx, idx)
		if _, err := t.c.Kubectl("patch", "job", "-n", ns, job, "--type=json", "-p", p); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Errorf("could not remove the finalizer example.com/hold of %s", job)
}

// rbacFor turns the component's RBAC files into objects for namespace ns: the Role and
// RoleBinding of scale-down-controller-namespaced/rbac.yaml, and the leader-election Role and
// RoleBinding of scale-down-controller/rbac.yaml, each moved to ns with its ServiceAccount
// subject (jobset-scale-down-controller) there too. Rules are taken as the files have them.
func rbacFor(t *T, ns string) (role map[string]any, others []map[string]any) {
	for _, file := range []string{
		filepath.Join(t.c.Root, "manifests", "components", "scale-down-controller-namespaced", "rbac.yaml"),
		filepath.Join(t.c.Root, "manifests", "components", "scale-down-controller", "rbac.yaml"),
	} {
		// One JSON object per YAML document (kubectl prints them one after the other).
		dec := json.NewDecoder(strings.NewReader(t.Kubectl("create", "--dry-run=client", "-o", "json", "-f", file)))
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			kind, _ := obj["kind"].(string)
			if kind != "Role" && kind != "RoleBinding" {
				continue // the ClusterRole and its binding: replaced by the namespaced Role
			}
			obj["metadata"].(map[string]any)["namespace"] = ns
			subjects, _ := obj["subjects"].([]any)
			for _, sub := range subjects {
				sub.(map[string]any)["namespace"] = ns
			}
			if kind == "Role" && obj["metadata"].(map[string]any)["name"] == "jobset-scale-down-controller" {
				role = obj
			} else {
				others = append(others, obj)
			}
		}
	}
	if role == nil || len(others) != 3 {
		t.Fatalf("the RBAC files hold %v and %d other objects; want the Role jobset-scale-down-controller, its binding and the leader-election Role and binding", role != nil, len(others))
	}
	return role, others
}

// withoutVerb is the Role with verb taken out of the rule on resource.
func withoutVerb(role map[string]any, resource, verb string) map[string]any {
	r := deepCopy(role).(map[string]any)
	for _, rule := range r["rules"].([]any) {
		m := rule.(map[string]any)
		if fmt.Sprint(m["resources"]) != "["+resource+"]" {
			continue
		}
		var verbs []any
		for _, v := range m["verbs"].([]any) {
			if v != verb {
				verbs = append(verbs, v)
			}
		}
		m["verbs"] = verbs
	}
	return r
}

// tokenKubeconfig writes a kubeconfig with a ServiceAccount token and the cluster's CA.
func tokenKubeconfig(t *T, ns, token string) string {
	cfg := kubeconfigYAML(t.c.APIServer, t.c.ca.certPEM(), "token: "+token, ns)
	path := t.c.path("manifests", ns+"-sa.kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatalf("%v", err)
	}
	return path
}

// waitCanI waits until the ServiceAccount may (or may not) do verb on resource: the RBAC
// authorizer reads Roles through an informer, so a change takes effect a little later.
func (t *T) waitCanI(ns, sa, verb, resource string, want bool) {
	w := map[bool]string{true: "yes", false: "no"}[want]
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		r := t.Try("", nil, "auth", "can-i", verb, resource, "-n", ns, "--as", "system:serviceaccount:"+ns+":"+sa)
		if strings.TrimSpace(r.Out) == w {
			return
		}
	}
	t.Fatalf("kubectl auth can-i %s %s as %s: not %q after 20s", verb, resource, sa, w)
}

func sdExactRBAC(t *T) {
	ns := newJobSet(t, "rbac", 4, false)
	const sa = "jobset-scale-down-controller"
	t.Kubectl("create", "serviceaccount", sa, "-n", ns)
	role, others := rbacFor(t, ns)
	for _, obj := range append([]map[string]any{role}, others...) {
		if err := t.c.applyJSON(obj); err != nil {
			t.Fatalf("%v", err)
		}
	}
	t.waitCanI(ns, sa, "delete", "jobs", true)
	token := strings.TrimSpace(t.Kubectl("create", "token", sa, "-n", ns, "--duration", "1h"))
	kc := tokenKubeconfig(t, ns, token)
	// The Lease's name is the controller's default, which the Deployment passes as --lease-name
	// and the leader-election Role names in resourceNames.
	ctl := startControllerWith(t, ns, "a", kc, nil, true)
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	if h := at(t.Get(ns, "lease", "jobset-scale-down-controller"), "spec", "holderIdentity"); h != "a" {
		t.Errorf("Lease holder %v, want a", h)
	}
	t.patchReplicas(ns, "rbac", 2)
	t.WaitJobs(ns, "rbac", jobNames("rbac", 2), 60*time.Second)
	if msgs, who := t.scaleEvents(ns); len(msgs) != 2 || who[0] != "a" {
		t.Errorf("Events %q by %q, want two by a", msgs, who)
	}

	// Without delete on Jobs: refused (403), said at once in a Warning and the gauge.
	if err := t.c.applyJSON(withoutVerb(role, "jobs", "delete")); err != nil {
		t.Fatalf("%v", err)
	}
	t.waitCanI(ns, sa, "delete", "jobs", false)
	t.patchReplicas(ns, "rbac", 1)
	start := time.Now()
	var warned []string
	for time.Now().Before(start.Add(10 * time.Second)) {
		warned = t.warnings(ns)
		if len(warned) > 0 && ctl.metric(waitingSample("forbidden")) == 1 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	seen := time.Since(start)
	if len(warned) != 1 {
		t.Fatalf("ScaleDownBlocked Events after %v: %q, want one", seen.Round(time.Millisecond), warned)
	}
	contains(t, "Warning", warned[0], "Warning: Jobs above replicas are not deleted (forbidden): cannot delete Job rbac-workers-1: ")
	// The RBAC authorizer's refusal (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters,
	// forbiddenMessage), carried as the Event's detail.
	contains(t, "Warning", warned[0], `is forbidden: User "system:serviceaccount:`+ns+":"+sa+`" cannot delete resource "jobs"`)
	if got := ctl.metric(waitingSample("forbidden")); got != 1 {
		t.Errorf("%s = %v, want 1", waitingSample("forbidden"), got)
	}
	if got := t.Jobs(ns, "rbac"); strings.Join(got, " ") != strings.Join(jobNames("rbac", 2), " ") {
		t.Errorf("Jobs %v while delete is forbidden", got)
	}

	// Restored: the retry (back-off from 0.5 s, doubling) deletes it; the gauge goes back to 0.
	if err := t.c.applyJSON(role); err != nil {
		t.Fatalf("%v", err)
	}
	t.waitCanI(ns, sa, "delete", "jobs", true)
	restored := time.Now()
	t.WaitJobs(ns, "rbac", jobNames("rbac", 1), 60*time.Second)
	gone := time.Since(restored)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && ctl.metric(waitingSample("forbidden")) != 0; {
		time.Sleep(200 * time.Millisecond)
	}
	if got := ctl.metric(waitingSample("forbidden")); got != 0 {
		t.Errorf("%s = %v after the deletion, want 0", waitingSample("forbidden"), got)
	}
	if w := t.warnings(ns); len(w) != 1 {
		t.Errorf("ScaleDownBlocked Events at the end: %q, want the one", w)
	}
	t.Logf("warning and gauge %v after the refused scale-down; Job gone %v after the rule was back; reconcile errors %v",
		seen.Round(time.Millisecond), gone.Round(time.Millisecond), ctl.metric("jobset_scale_down_reconcile_errors_total"))
	t.Logf("warning: %s", warned[0])
}

// sdOnlyKubeconfigCA: a kubeconfig naming another CA, and SSL_CERT_FILE naming the one that did
// sign the API server. The controller trusts the kubeconfig's CA alone (src/kube/client.cpp),
// as client-go does (k8s.io/client-go/transport/transport.go, TLSConfigFor: RootCAs is the
// configured CA when there is one, so Go's crypto/x509 never loads the system pool that
// SSL_CERT_FILE would feed).
func sdOnlyKubeconfigCA(t *T) {
	ns := t.Namespace("scale")
	admin, err := os.ReadFile(t.c.Kubeconfig)
	if err != nil {
		t.Fatalf("%v", err)
	}
	other := newPair(nil, pkix.Name{CommonName: "another-ca"}, true, nil, nil, nil)
	realCA := base64.StdEncoding.EncodeToString(t.c.ca.certPEM())
	if strings.Count(string(admin), realCA) != 1 {
		t.Fatalf("the admin kubeconfig does not hold the cluster's CA once")
	}
	kc := t.c.path("manifests", ns+"-other-ca.kubeconfig")
	cfg := strings.Replace(string(admin), realCA, base64.StdEncoding.EncodeToString(other.certPEM()), 1)
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatalf("%v", err)
	}
	env := []string{"SSL_CERT_FILE=" + t.c.path("pki", "ca.crt")}
	ctl := startControllerWith(t, ns, "a", kc, env, false)
	defer ctl.p.stop(5 * time.Second)
	codes := map[int]int{}
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ctl.p.exited() {
			t.Fatalf("the controller exited; see %s", ctl.p.log)
		}
		code, _ := ctl.get("/readyz")
		codes[code]++
	}
	if codes[200] > 0 || codes[503] == 0 {
		t.Errorf("/readyz answers over 8s: %v, want 503 only (0: not listening yet)", codes)
	}
	b, _ := os.ReadFile(ctl.p.log)
	log := string(b)
	contains(t, "controller log", log, "certificate verify failed")
	contains(t, "controller log", log, "TLS handshake with 127.0.0.1:")
	r := t.Try("", env, "--kubeconfig", kc, "get", "jobsets", "-n", ns)
	if r.OK {
		t.Errorf("kubectl with the other CA succeeded")
	}
	contains(t, "kubectl", r.Err, "x509: certificate signed by unknown authority")
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "certificate verify failed") {
			t.Logf("controller: %s", strings.TrimSpace(line))
			break
		}
	}
}

// sdLeaseHandover: SIGTERM (proc.stop) to the leader; it releases the Lease as client-go's
// ReleaseOnCancel does (k8s.io/client-go/tools/leaderelection/leaderelection.go, release:
// holderIdentity "", leaseDurationSeconds 1), and the follower, which treats an empty holder as
// free (tryAcquireOrRenew there), takes it at its next retry, well before the 4 s lease duration.
func sdLeaseHandover(t *T) {
	ns := newJobSet(t, "hand", 3, false)
	a := startController(t, ns, "a")
	defer a.p.stop(5 * time.Second)
	a.waitLeader(t, 20*time.Second)
	b := startController(t, ns, "b")
	defer b.p.stop(5 * time.Second)
	time.Sleep(2 * time.Second) // b has seen a's Lease renewed
	if b.metric("jobset_scale_down_leader") != 0 {
		t.Fatalf("b leads while a holds the Lease")
	}
	// SIGTERM (proc.stop), while b's leader gauge is sampled every 50 ms.
	sent := time.Now()
	go a.p.stop(5 * time.Second)
	var took time.Duration
	for deadline := sent.Add(10 * time.Second); took == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b.metric("jobset_scale_down_leader") == 1 {
			took = time.Since(sent)
		}
	}
	<-a.p.done
	exited := time.Since(sent)
	if exited >= 5*time.Second {
		t.Errorf("a did not exit within 5s of SIGTERM (killed)")
	}
	if code := a.p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("a exited with %d", code)
	}
	// Right after a's exit: released (holder empty, 1 s) or already taken by b.
	lease := t.Get(ns, "lease", "jobset-scale-down-controller")
	holder, _ := at(lease, "spec", "holderIdentity").(string)
	dur := at(lease, "spec", "leaseDurationSeconds")
	switch holder {
	case "":
		if dur != float64(1) {
			t.Errorf("released Lease: leaseDurationSeconds %v, want 1", dur)
		}
	case "b":
	default:
		t.Errorf("Lease holder %q right after a exited, want empty or b", holder)
	}
	if took == 0 {
		t.Fatalf("b did not lead within 10s of the SIGTERM to a")
	}
	if took > 3*time.Second {
		t.Errorf("b led %v after the SIGTERM to a, want within 3s (retry period 1s; lease duration 4s)", took.Round(time.Millisecond))
	}
	b2, _ := os.ReadFile(a.p.log)
	contains(t, "a's log", string(b2), `"msg":"released the Lease"`)
	t.patchReplicas(ns, "hand", 2)
	t.WaitJobs(ns, "hand", jobNames("hand", 2), 60*time.Second)
	if _, who := t.scaleEvents(ns); len(who) != 1 || who[0] != "b" {
		t.Errorf("Events written by %q, want one by b", who)
	}
	t.Logf("after the SIGTERM to a: b led at %v, a exited at %v; the Lease then: holder %q, leaseDurationSeconds %v",
		took.Round(time.Millisecond), exited.Round(time.Millisecond), holder, dur)
}

// procCPU is the CPU time (user + system) of a process so far, from /proc/PID/stat (fields 14
// and 15, in clock ticks: 100 a second on Linux, USER_HZ).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name (field 2) may hold spaces: count fields after its closing parenthesis.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100
}

// sdMeasure measures, asserts nothing but that the scale-down completes: the idle CPU of a
// leading controller with a few JobSets, and the CPU and time of scaling N JobSets of 3 Jobs
// down to 1 (N = JOBSET_E2E_MEASURE_JOBSETS, 200 by default). Only with JOBSET_E2E_MEASURE=1.
func sdMeasure(t *T) {
	if os.Getenv("JOBSET_E2E_MEASURE") != "1" {
		t.Skip("a measurement: JOBSET_E2E_MEASURE=1 scripts/dev e2e --run TestScaleDownMeasure")
	}
	n := 200
	if v, err := strconv.Atoi(os.Getenv("JOBSET_E2E_MEASURE_JOBSETS")); err == nil && v > 0 {
		n = v
	}
	ns := t.Namespace("measure")
	var few []string
	for i := 0; i < 3; i++ {
		few = append(few, applied(fmt.Sprintf("idle%d", i), 3, "busybox:1.36"))
	}
	if r := t.Try(strings.Join(few, "---\n"), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.waitJobCount(ns, 9, 2*time.Minute)
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	pid := ctl.p.cmd.Process.Pid
	time.Sleep(5 * time.Second)
	idle0, m0 := procCPU(pid), ctl.metric("process_cpu_seconds_total")
	time.Sleep(60 * time.Second)
	idle1, m1 := procCPU(pid), ctl.metric("process_cpu_seconds_total")
	t.Logf("idle leader, 3 JobSets of 3 Jobs, 60 s: %.3f s of CPU (/proc), %.3f s (process_cpu_seconds_total): %.1fm",
		idle1-idle0, m1-m0, (idle1-idle0)/60*1000)

	docs := func(replicas int) string {
		var all []string
		for i := 0; i < n; i++ {
			all = append(all, applied(fmt.Sprintf("m%03d", i), replicas, "busybox:1.36"))
		}
		return strings.Join(all, "---\n")
	}
	created := time.Now()
	if r := t.Try(docs(3), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.waitJobCount(ns, 9+3*n, 15*time.Minute)
	t.Logf("%d JobSets of 3 created, %d Jobs present after %.1f s", n, 3*n, time.Since(created).Seconds())
	time.Sleep(5 * time.Second)

	cpu0 := procCPU(pid)
	start := time.Now()
	if r := t.Try(docs(1), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("scale-down: %s", r.Err)
	}
	applyTook := time.Since(start)
	t.waitJobCount(ns, 9+n, 15*time.Minute)
	wall := time.Since(start)
	cpu1 := procCPU(pid)
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != float64(2*n) {
		t.Errorf("jobset_scale_down_jobs_deleted_total = %v, want %d", got, 2*n)
	}
	t.Logf("%d JobSets 3 -> 1 (one kubectl apply, %.1f s): %d Jobs deleted %.1f s after the apply began; controller CPU %.2f s",
		n, applyTook.Seconds(), 2*n, wall.Seconds(), cpu1-cpu0)
	t.Logf("reconciles %v, errors %v", ctl.metric("jobset_scale_down_reconcile_total"), ctl.metric("jobset_scale_down_reconcile_errors_total"))

	// The controller alone: the JobSets back to 3, scaled to 1 while no controller runs (upstream
	// deletes nothing), then a controller started: its whole life until the Jobs are gone, its
	// lists of the JobSets and Jobs included.
	if r := t.Try(docs(3), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("scale-up: %s", r.Err)
	}
	t.waitJobCount(ns, 9+3*n, 15*time.Minute)
	ctl.p.stop(5 * time.Second)
	if r := t.Try(docs(1), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("scale-down: %s", r.Err)
	}
	time.Sleep(3 * time.Second)
	if got := len(strings.Fields(t.Kubectl("get", "jobs", "-n", ns, "-o", "name"))); got != 9+3*n {
		t.Fatalf("%d Jobs with no controller running, want %d", got, 9+3*n)
	}
	start = time.Now()
	cold := startController(t, ns, "b")
	defer cold.p.stop(5 * time.Second)
	t.waitJobCount(ns, 9+n, 15*time.Minute)
	wall = time.Since(start)
	t.Logf("%d JobSets already at 1, a controller started: %d Jobs deleted %.1f s after its start; its CPU %.2f s in all",
		n, 2*n, wall.Seconds(), procCPU(cold.p.cmd.Process.Pid))
}

// waitJobCount waits until the namespace holds exactly want Jobs.
func (t *T) waitJobCount(ns string, want int, timeout time.Duration) {
	var got int
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		got = len(strings.Fields(t.Kubectl("get", "jobs", "-n", ns, "-o", "name")))
		if got == want {
			return
		}
	}
	t.Fatalf("%d Jobs in %s after %v, want %d", got, ns, timeout, want)
}
