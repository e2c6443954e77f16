package harness

// The scale-down controller (`jobset-webhook scale-down-controller`, docs/elastic.md) on the real
// control plane, next to upstream JobSet v0.12.0's manager. Each case starts its own controller
// processes, limited to the case's namespace (--namespace), so the other cases, which expect no
// Job to be deleted, are untouched. Job completion and failure are simulated by writing the Job
// status subresource as the Job controller would (there is no kubelet).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Four workers scaled to 2 keep -workers-0 and -workers-1; 3 deleted, then 2; Events, metrics;
// no restart.
func TestScaleDownFourToTwo(t *testing.T) { run(t, sdFourToTwo) }

// Jobs with room under backoffLimit go with Foreground propagation, no failure.
func TestScaleDownForeground(t *testing.T) { run(t, sdForeground) }

// At backoffLimit Foreground, one Pod over it Background; terminating Pods fail neither Job.
func TestScaleDownPropagationBoundary(t *testing.T) { run(t, sdPropagationBoundary) }

// A scale-up after a scale-down recreates the missing indices.
func TestScaleDownThenUpAgain(t *testing.T) { run(t, sdScaleUpAgain) }

// successPolicy All completes only when the remaining Jobs complete.
func TestScaleDownSuccessPolicyAll(t *testing.T) { run(t, sdSuccessAll) }

// Upstream without the controller: completed Jobs above replicas complete successPolicy All early.
func TestUpstreamWithoutControllerEarlySuccess(t *testing.T) { run(t, sdUpstreamEarlySuccess) }

// Upstream without the controller: a Foreground deletion of a backoffLimit-0 Job whose Pod
// terminates fails the JobSet.
func TestUpstreamWithoutControllerForegroundFails(t *testing.T) { run(t, sdUpstreamForegroundFails) }

// A failure-policy restart behaves as before; the next attempt scales down.
func TestScaleDownRestart(t *testing.T) { run(t, sdRestart) }

// The controller survives an API-server restart and watches that expire.
func TestScaleDownAPIServerRestart(t *testing.T) { run(t, sdAPIServerRestart) }

// Two replicas, one leader at a time, the other takes over.
func TestScaleDownTwoReplicas(t *testing.T) { run(t, sdTwoReplicas) }

// A scale back up during a long scale-down deletes no Job the JobSet wants.
func TestScaleDownFlapLong(t *testing.T) { run(t, sdFlapLong) }

// A flap 3 -> 0 -> 3 ends with the three Jobs and no Job deleted after the scale back up.
func TestScaleDownFlapZero(t *testing.T) { run(t, sdFlapZero) }

// A stuck Job of an older restart attempt does not hold back a scale-down.
func TestScaleDownStuckOlderAttempt(t *testing.T) { run(t, sdStuckOlderAttempt) }

// Under exactly its RBAC the controller scales down; without delete on Jobs it warns (forbidden).
func TestScaleDownExactRBAC(t *testing.T) { run(t, sdExactRBAC) }

// The controller trusts only the kubeconfig's CA.
func TestScaleDownOnlyKubeconfigCA(t *testing.T) { run(t, sdOnlyKubeconfigCA) }

// The controller hands its Lease over on SIGTERM.
func TestScaleDownLeaseHandover(t *testing.T) { run(t, sdLeaseHandover) }

// Measure idle CPU and a 200 x 3 -> 1 scale-down (JOBSET_E2E_MEASURE=1 only).
func TestScaleDownMeasure(t *testing.T) { run(t, sdMeasure) }

type sdController struct {
	p        *proc
	metrics  int
	identity string
}

// startController runs one controller for namespace ns, with a short Lease so that the cases
// stay short.
// Its metrics port (0 would turn it off) comes from the pool.
func startController(t *T, ns, identity string, extra ...string) *sdController {
	c := &sdController{identity: identity}
	err := t.c.startBinding("controller "+identity, func() (*proc, error) {
		c.metrics = t.c.ports.take("127.0.0.1")
		args := append([]string{"scale-down-controller", "--kubeconfig", t.c.Kubeconfig,
			"--namespace", ns, "--lease-namespace", ns, "--identity", identity,
			"--bind", "127.0.0.1", "--metrics-port", strconv.Itoa(c.metrics),
			"--lease-duration", "4", "--renew-deadline", "3", "--retry-period", "1"}, extra...)
		p, err := t.c.start("scale-down-controller-"+ns+"-"+identity,
			filepath.Join(t.c.Root, "build", "jobset-webhook"), args...)
		if err != nil {
			return nil, err
		}
		c.p = p
		return p, t.c.waitFor("controller "+identity, p, 30*time.Second, func() error {
			if code, _ := c.get("/readyz"); code != 200 {
				return fmt.Errorf("/readyz: %d", code)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return c
}

func (c *sdController) get(path string) (int, string) {
	cl := &http.Client{Timeout: 2 * time.Second}
	resp, err := cl.Get(fmt.Sprintf("http://127.0.0.1:%d%s", c.metrics, path))
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metric is the value of one sample line (name with its labels, as exported), or -1.
func (c *sdController) metric(sample string) float64 {
	_, text := c.get("/metrics")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, sample+" ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, sample)), 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

func (c *sdController) waitLeader(t *T, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if c.metric("jobset_scale_down_leader") == 1 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("controller %s did not become leader in %v; see %s", c.identity, timeout, c.p.log)
}

// jobUIDs maps each Job of the JobSet to its UID.
func (t *T) jobUIDs(ns, jobset string) map[string]string {
	out := t.Kubectl("get", "jobs", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name="+jobset, "-o", "json")
	var list struct {
		Items []struct {
			Metadata struct {
				Name, UID string
				Labels    map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v", err)
	}
	m := map[string]string{}
	for _, i := range list.Items {
		m[i.Metadata.Name] = i.Metadata.UID
	}
	return m
}

// scaleEvents are the messages of the controller's Events in the namespace, in the order they
// were written (resourceVersion), with who wrote them.
func (t *T) scaleEvents(ns string) (messages, instances []string) {
	out := t.Kubectl("get", "events", "-n", ns, "--field-selector", "reason=ScaleDownDeletedJob", "-o", "json")
	var list struct {
		Items []struct {
			Metadata struct {
				ResourceVersion string
			}
			Message           string
			ReportingInstance string
			InvolvedObject    struct{ Kind, Name string }
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v", err)
	}
	sort.Slice(list.Items, func(i, j int) bool {
		a, _ := strconv.ParseInt(list.Items[i].Metadata.ResourceVersion, 10, 64)
		b, _ := strconv.ParseInt(list.Items[j].Metadata.ResourceVersion, 10, 64)
		return a < b
	})
	for _, e := range list.Items {
		if e.InvolvedObject.Kind != "JobSet" {
			t.Errorf("event on %s %s, want the JobSet", e.InvolvedObject.Kind, e.InvolvedObject.Name)
		}
		messages = append(messages, e.Message)
		instances = append(instances, e.ReportingInstance)
	}
	return messages, instances
}

func (t *T) patchReplicas(ns, jobset string, n int) Result {
	r := t.Try("", nil, "patch", "-n", ns, "jobset", jobset, "--type=json", "-p", replicasPatch(n))
	if !r.OK {
		t.Fatalf("patch to %d refused: %s", n, r.Err)
	}
	return r
}

// jobsetState is what the cases judge a JobSet by: restarts and its terminal condition.
func (t *T) jobsetState(ns, name string) (restarts int, terminal string) {
	js := t.Get(ns, "jobset", name)
	if r, ok := at(js, "status", "restarts").(float64); ok {
		restarts = int(r)
	}
	conds, _ := at(js, "status", "conditions").([]any)
	for _, c := range conds {
		typ, _ := at(c, "type").(string)
		st, _ := at(c, "status").(string)
		if (typ == "Completed" || typ == "Failed") && st == "True" {
			terminal = typ
		}
	}
	return restarts, terminal
}

// waitTerminal waits for the JobSet's Completed or Failed condition, or fails.
func (t *T) waitTerminal(ns, name, want string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, got := t.jobsetState(ns, name); got == want {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	r, got := t.jobsetState(ns, name)
	t.Fatalf("JobSet %s/%s: condition %q (restarts %d) after %v, want %s", ns, name, got, r, timeout, want)
}

// finishJob writes a Job's status as the Job controller does when its one Pod succeeded
// (Complete) or failed past backoffLimit (Failed).
func (t *T) finishJob(ns, name string, complete bool) {
	now := time.Now().UTC().Format(time.RFC3339)
	cond := func(typ, reason, msg string) string {
		return fmt.Sprintf(`{"type":%q,"status":"True","reason":%q,"message":%q,"lastProbeTime":%q,"lastTransitionTime":%q}`,
			typ, reason, msg, now, now)
	}
	var status string
	if complete {
		status = fmt.Sprintf(`{"active":0,"ready":0,"succeeded":1,"completionTime":%q,"conditions":[%s,%s]}`, now,
			cond("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"),
			cond("Complete", "CompletionsReached", "Reached expected number of succeeded pods"))
	} else {
		status = fmt.Sprintf(`{"active":0,"ready":0,"failed":1,"conditions":[%s,%s]}`,
			cond("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
			cond("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"))
	}
	// startTime is set by the Job controller once it has synced the Job; wait for it.
	deadline := time.Now().Add(30 * time.Second)
	for at(t.Get(ns, "job", name), "status", "startTime") == nil && time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
	}
	r := t.Try("", nil, "patch", "job", "-n", ns, name, "--subresource=status", "--type=merge", "-p", `{"status":`+status+`}`)
	if !r.OK {
		t.Fatalf("status of job %s: %s", name, r.Err)
	}
}

// stable checks for `for` that the JobSet neither restarts nor finishes.
func (t *T) stable(ns, name string, restarts int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		r, term := t.jobsetState(ns, name)
		if r != restarts || term != "" {
			t.Fatalf("JobSet %s/%s: restarts %d, condition %q; want restarts %d and no terminal condition", ns, name, r, term, restarts)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// bindPods binds the Pods of the JobSet's Jobs to a node that has no kubelet, as the scheduler
// would: deleted, they then stay terminating (deletionTimestamp set, no kubelet to confirm),
// which is what running Pods do for their grace period on a real node.
func (t *T) bindPods(ns, jobset string) {
	t.bindPodsCount(ns, jobset, len(t.Jobs(ns, jobset)))
}

// bindPodsCount binds the JobSet's Pods once there are want of them.
func (t *T) bindPodsCount(ns, jobset string, want int) {
	var pods []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		pods = strings.Fields(t.Kubectl("get", "pods", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name="+jobset,
			"-o", "jsonpath={.items[*].metadata.name}"))
		if len(pods) >= want {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if len(pods) < want {
		t.Fatalf("%d Pods for %d Jobs", len(pods), want)
	}
	for _, p := range pods {
		b := fmt.Sprintf(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":%q},"target":{"apiVersion":"v1","kind":"Node","name":"e2e-node-without-kubelet"}}`, p)
		if r := t.Try(b, nil, "create", "--raw", "/api/v1/namespaces/"+ns+"/pods/"+p+"/binding", "-f", "-"); !r.OK {
			t.Fatalf("binding %s: %s", p, r.Err)
		}
	}
}

func sdFourToTwo(t *T) {
	ns := newJobSet(t, "sd", 4, false)
	t.bindPods(ns, "sd")
	before := t.jobUIDs(ns, "sd")
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 0 {
		t.Errorf("jobs deleted before any scale-down: %v", got)
	}
	t.patchReplicas(ns, "sd", 2)
	t.WaitJobs(ns, "sd", jobNames("sd", 2), 60*time.Second)
	after := t.jobUIDs(ns, "sd")
	for _, n := range jobNames("sd", 2) {
		if after[n] != before[n] {
			t.Errorf("%s was replaced (uid %s, was %s)", n, after[n], before[n])
		}
	}
	msgs, _ := t.scaleEvents(ns)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "Deleted Job sd-workers-3 ") ||
		!strings.HasPrefix(msgs[1], "Deleted Job sd-workers-2 ") {
		t.Errorf("Events: %q, want sd-workers-3 then sd-workers-2", msgs)
	}
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 2 {
		t.Errorf("jobset_scale_down_jobs_deleted_total = %v, want 2", got)
	}
	// backoffLimit 0: a Foreground deletion would have failed the Jobs (see sdUpstreamForegroundFails).
	t.stable(ns, "sd", 0, 5*time.Second)
	// Status counts follow: upstream counts the Jobs it lists, so 2 active once 3 and 2 are gone.
	var workers any
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		sts, _ := at(t.Get(ns, "jobset", "sd"), "status", "replicatedJobsStatus").([]any)
		for _, st := range sts {
			if at(st, "name") == "workers" {
				workers = st
			}
		}
		if at(workers, "active") == float64(2) {
			break
		}
	}
	if at(workers, "active") != float64(2) || at(workers, "failed") != float64(0) {
		t.Errorf("replicatedJobsStatus of workers: %v, want active 2, failed 0", workers)
	}
	t.Logf("events: %s", strings.Join(msgs, " | "))
	t.Logf("reconcile errors: %v", ctl.metric("jobset_scale_down_reconcile_errors_total"))
}

func sdScaleUpAgain(t *T) {
	ns := newJobSet(t, "again", 3, false)
	before := t.jobUIDs(ns, "again")
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	t.patchReplicas(ns, "again", 1)
	t.WaitJobs(ns, "again", jobNames("again", 1), 60*time.Second)
	t.patchReplicas(ns, "again", 3)
	t.WaitJobs(ns, "again", jobNames("again", 3), 60*time.Second)
	after := t.jobUIDs(ns, "again")
	if after["again-workers-0"] != before["again-workers-0"] {
		t.Errorf("again-workers-0 was replaced")
	}
	for _, n := range []string{"again-workers-1", "again-workers-2"} {
		if after[n] == before[n] {
			t.Errorf("%s has its old uid: not recreated", n)
		}
	}
	t.settle(ns, "again")
	if got := t.Jobs(ns, "again"); strings.Join(got, " ") != strings.Join(jobNames("again", 3), " ") {
		t.Errorf("after the scale-up the controller deleted: %v", got)
	}
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 2 {
		t.Errorf("jobs deleted = %v, want 2 (none after the scale-up)", got)
	}
}

func sdSuccessAll(t *T) {
	ns := newJobSet(t, "succ", 4, false)
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	t.finishJob(ns, "succ-workers-3", true)
	t.patchReplicas(ns, "succ", 2)
	t.WaitJobs(ns, "succ", jobNames("succ", 2), 60*time.Second)
	t.finishJob(ns, "succ-workers-0", true)
	t.stable(ns, "succ", 0, 4*time.Second)
	t.finishJob(ns, "succ-workers-1", true)
	t.waitTerminal(ns, "succ", "Completed", 30*time.Second)
}

func sdUpstreamEarlySuccess(t *T) {
	ns := newJobSet(t, "early", 4, false)
	t.patchReplicas(ns, "early", 2)
	t.settle(ns, "early")
	t.finishJob(ns, "early-workers-2", true)
	t.finishJob(ns, "early-workers-3", true)
	// Pinned: upstream counts successful Jobs of any index against the sum of replicas.
	t.waitTerminal(ns, "early", "Completed", 30*time.Second)
	t.Logf("upstream v0.12.0 completed the JobSet with early-workers-0 and -1 still running")
}

func sdUpstreamForegroundFails(t *T) {
	ns := newJobSet(t, "fg", 2, false)
	t.bindPods(ns, "fg")
	t.patchReplicas(ns, "fg", 1)
	t.settle(ns, "fg")
	// What a controller deleting with Foreground propagation would do to a backoffLimit-0 Job.
	t.Kubectl("delete", "job", "-n", ns, "fg-workers-1", "--cascade=foreground", "--wait=false")
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		// No failurePolicy: upstream fails the JobSet on a failed Job (with one it would restart it).
		if r, term := t.jobsetState(ns, "fg"); r > 0 || term == "Failed" {
			t.Logf("upstream v0.12.0: restarts %d, condition %q, after the Job controller failed the Job being deleted", r, term)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	r, term := t.jobsetState(ns, "fg")
	t.Errorf("no restart after a Foreground deletion of a Job whose Pod stays terminating (restarts %d, condition %q)", r, term)
}

func sdRestart(t *T) {
	// Without a failurePolicy upstream fails the JobSet on the first failed Job; with one, it
	// restarts it.
	ns := t.Namespace("scale")
	yaml := plain("rs", 3, "busybox:1.36").failurePolicy(3).yaml()
	if r := t.Try(yaml, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.WaitJobs(ns, "rs", jobNames("rs", 3), 60*time.Second)
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	old := t.jobUIDs(ns, "rs")
	t.finishJob(ns, "rs-workers-1", false)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if r, _ := t.jobsetState(ns, "rs"); r == 1 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if r, term := t.jobsetState(ns, "rs"); r != 1 || term != "" {
		t.Fatalf("after a failed Job: restarts %d, condition %q; want a restart", r, term)
	}
	// Upstream replaces all three Jobs (attempt 1); the controller deletes none of them.
	for time.Now().Before(deadline) {
		cur := t.jobUIDs(ns, "rs")
		fresh := len(cur) == 3
		for n, uid := range cur {
			if old[n] == uid {
				fresh = false
			}
		}
		if fresh {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.WaitJobs(ns, "rs", jobNames("rs", 3), 30*time.Second)
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 0 {
		t.Errorf("the controller deleted %v Jobs during the restart", got)
	}
	t.patchReplicas(ns, "rs", 1)
	t.WaitJobs(ns, "rs", jobNames("rs", 1), 60*time.Second)
	j := t.Get(ns, "job", "rs-workers-0")
	if at(j, "metadata", "labels", "jobset.sigs.k8s.io/restart-attempt") != "1" {
		t.Errorf("rs-workers-0 is not of attempt 1")
	}
	t.stable(ns, "rs", 1, 4*time.Second)
}

// restartAPIServer stops kube-apiserver and starts it again on the same port (so the kubeconfig
// stays valid); its watch cache starts empty.
func restartAPIServer(t *T) {
	c := t.c
	var old *proc
	c.mu.Lock()
	for _, p := range c.procs {
		if p.name == "kube-apiserver" && !p.exited() {
			old = p
		}
	}
	c.mu.Unlock()
	if old == nil {
		t.Fatalf("no kube-apiserver process")
	}
	args := old.cmd.Args[1:]
	old.stop(20 * time.Second)
	p, err := c.start("kube-apiserver", old.cmd.Path, args...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	cl := c.adminClient()
	if err := c.waitFor("kube-apiserver", p, 120*time.Second, func() error { return httpGet(cl, c.APIServer+"/readyz") }); err != nil {
		t.Fatalf("%v", err)
	}
}

func sdAPIServerRestart(t *T) {
	ns := newJobSet(t, "api", 4, false)
	// Watches of 2 s: they end and restart many times during the case.
	ctl := startController(t, ns, "a", "--watch-timeout", "2")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	time.Sleep(5 * time.Second)
	t.patchReplicas(ns, "api", 3)
	t.WaitJobs(ns, "api", jobNames("api", 3), 60*time.Second)
	listsBefore := ctl.metric(`jobset_scale_down_lists_total{resource="jobs"}`)
	restartAPIServer(t)
	t.patchReplicas(ns, "api", 1)
	t.WaitJobs(ns, "api", jobNames("api", 1), 90*time.Second)
	if ctl.p.exited() {
		t.Errorf("the controller exited")
	}
	t.Logf("job lists before the restart %v, after %v; reconcile errors %v", listsBefore,
		ctl.metric(`jobset_scale_down_lists_total{resource="jobs"}`), ctl.metric("jobset_scale_down_reconcile_errors_total"))
}

func sdTwoReplicas(t *T) {
	ns := newJobSet(t, "ha", 4, false)
	a := startController(t, ns, "a")
	defer a.p.stop(5 * time.Second)
	b := startController(t, ns, "b")
	defer b.p.stop(5 * time.Second)
	// Sample both leader gauges every 100 ms for the whole case: never 1 together.
	stop := make(chan struct{})
	both := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				both <- n
				return
			default:
			}
			if a.metric("jobset_scale_down_leader") == 1 && b.metric("jobset_scale_down_leader") == 1 {
				n++
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	var leader, other *sdController
	deadline := time.Now().Add(20 * time.Second)
	for leader == nil && time.Now().Before(deadline) {
		if a.metric("jobset_scale_down_leader") == 1 {
			leader, other = a, b
		} else if b.metric("jobset_scale_down_leader") == 1 {
			leader, other = b, a
		}
		time.Sleep(200 * time.Millisecond)
	}
	if leader == nil {
		close(stop)
		t.Fatalf("no leader after 20s")
	}
	t.patchReplicas(ns, "ha", 3)
	t.WaitJobs(ns, "ha", jobNames("ha", 3), 60*time.Second)
	leader.p.stop(5 * time.Second)
	other.waitLeader(t, 20*time.Second)
	t.patchReplicas(ns, "ha", 2)
	t.WaitJobs(ns, "ha", jobNames("ha", 2), 60*time.Second)
	close(stop)
	if n := <-both; n > 0 {
		t.Errorf("both replicas reported leading in %d samples", n)
	}
	msgs, who := t.scaleEvents(ns)
	if len(who) != 2 || who[0] != leader.identity || who[1] != other.identity {
		t.Errorf("Events %q written by %q, want one by %s then one by %s", msgs, who, leader.identity, other.identity)
	}
	if got := leader.metric("jobset_scale_down_jobs_deleted_total"); got != -1 {
		t.Errorf("the stopped leader still answers")
	}
	if got := other.metric("jobset_scale_down_jobs_deleted_total"); got != 1 {
		t.Errorf("the new leader deleted %v Jobs, want 1", got)
	}
}

func sdForeground(t *T) {
	ns := t.Namespace("scale")
	yaml := jobSet("fgc").suspend(false).replicatedJob(workers(4).job("backoffLimit", 6)).yaml()
	if r := t.Try(yaml, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.WaitJobs(ns, "fgc", jobNames("fgc", 4), 60*time.Second)
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	t.patchReplicas(ns, "fgc", 2)
	// Foreground: the Job stays, with a deletionTimestamp, until its Pods are gone.
	sawDeleting := false
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out := t.Kubectl("get", "jobs", "-n", ns, "-o", "jsonpath={range .items[*]}{.metadata.name}={.metadata.deletionTimestamp} {end}")
		if strings.Contains(out, "fgc-workers-3=2") || strings.Contains(out, "fgc-workers-2=2") {
			sawDeleting = true
		}
		if strings.Join(t.Jobs(ns, "fgc"), " ") == strings.Join(jobNames("fgc", 2), " ") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.WaitJobs(ns, "fgc", jobNames("fgc", 2), 5*time.Second)
	msgs, _ := t.scaleEvents(ns)
	for _, m := range msgs {
		contains(t, "Event", m, "Foreground propagation")
	}
	t.stable(ns, "fgc", 0, 4*time.Second)
	t.Logf("a Job was seen with its deletionTimestamp before it went: %v", sawDeleting)
}

// boundaryYAML: two ReplicatedJobs of 2 Jobs with backoffLimit 1. Each Job of "at" has one Pod:
// deleting it makes status.failed 1, not above the limit, so the controller may keep the Job
// visible (Foreground). Each Job of "over" has two Pods: deleting both makes 2 > 1, which the Job
// controller would turn into a Failed condition, and upstream into a failed JobSet, so the
// controller must make the Job disappear at once (Background).
func boundaryYAML() string {
	return jobSet("edge").replicatedJob(
		replicatedJob("at", 2).job("parallelism", 1).job("completions", 1).job("backoffLimit", 1),
		replicatedJob("over", 2).job("parallelism", 2).job("completions", 2).job("backoffLimit", 1),
	).yaml()
}

// jobPods are the names of the Pods of one Job that still exist, and how many of them carry a
// deletionTimestamp.
func (t *T) jobPods(ns, job string) (names []string, terminating int) {
	out := t.Kubectl("get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+job, "-o",
		"jsonpath={range .items[*]}{.metadata.name}={.metadata.deletionTimestamp} {end}")
	for _, f := range strings.Fields(out) {
		name, ts, _ := strings.Cut(f, "=")
		names = append(names, name)
		if ts != "" {
			terminating++
		}
	}
	return names, terminating
}

// sdPropagationBoundary pins the rule of propagation_for (src/controller/plan_scale_down.cpp) on
// the real Job controller: Foreground only when deleting every Pod of the Job cannot pass its
// backoffLimit, Background otherwise. The Pods are bound to a node without kubelet, so deleted
// ones stay terminating (as running Pods do for their grace period) and the Job controller counts
// them as failed. It fails if the controller used Foreground for "over" (the Job would fail and,
// with no failurePolicy, the JobSet with it), Background for "at" (the Job would vanish before
// its Pod), or put the limit one off.
func sdPropagationBoundary(t *T) {
	ns := t.Namespace("scale")
	if r := t.Try(boundaryYAML(), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	all := []string{"edge-at-0", "edge-at-1", "edge-over-0", "edge-over-1"}
	t.WaitJobs(ns, "edge", all, 60*time.Second)
	t.bindPodsCount(ns, "edge", 1+1+2+2)
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	if r := t.Try("", nil, "patch", "-n", ns, "jobset", "edge", "--type=json", "-p",
		`[{"op":"replace","path":"/spec/replicatedJobs/0/replicas","value":1},`+
			`{"op":"replace","path":"/spec/replicatedJobs/1/replicas","value":1}]`); !r.OK {
		t.Fatalf("scale-down refused: %s", r.Err)
	}

	// Wait for both deletions: edge-over-1 gone, edge-at-1 marked for deletion. Within 20 s: the
	// pod garbage collector force-deletes Pods bound to a Node that does not exist 40 s after it
	// first sees them, which would end a Foreground deletion too.
	var atDeleting, overGone bool
	var overPods []string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && !(atDeleting && overGone) {
		time.Sleep(200 * time.Millisecond)
		out := t.Kubectl("get", "jobs", "-n", ns, "-o",
			"jsonpath={range .items[*]}{.metadata.name}={.metadata.deletionTimestamp} {end}")
		overGone = !strings.Contains(out, "edge-over-1=")
		atDeleting = atDeleting || strings.Contains(out, "edge-at-1=2")
		if overGone && overPods == nil {
			// Background: the Job is gone while its Pods, which cannot finish, are still there.
			overPods, _ = t.jobPods(ns, "edge-over-1")
		}
	}
	if !overGone {
		t.Errorf("edge-over-1 (2 Pods, backoffLimit 1) still exists after 20s: not a Background deletion")
	} else if len(overPods) == 0 {
		t.Errorf("edge-over-1 was gone only after its Pods: not a Background deletion")
	}
	if !atDeleting {
		t.Fatalf("edge-at-1 (1 Pod, backoffLimit 1) was never seen marked for deletion: not a Foreground deletion")
	}

	// Foreground: edge-at-1 stays, with the garbage collector's finalizer, while its Pod
	// terminates. Whether the Job controller counts that Pod as failed is a race it runs with the
	// garbage collector: once the Job has its deletionTimestamp, the Job controller removes the
	// job-tracking finalizer of every Pod, counting only those already marked deleted
	// (canRemoveFinalizer, isPodFailed). Either way status.failed may not pass 1, the limit.
	var failed any
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		job := t.Get(ns, "job", "edge-at-1")
		if f, ok := at(job, "status", "failed").(float64); ok {
			failed = f
			if f > 1 {
				t.Errorf("edge-at-1: status.failed %v, above its backoffLimit 1", f)
			}
		}
		if fin := fmt.Sprint(at(job, "metadata", "finalizers")); !strings.Contains(fin, "foregroundDeletion") {
			t.Fatalf("edge-at-1: finalizers %s, want foregroundDeletion", fin)
		}
		conds, _ := json.Marshal(at(job, "status", "conditions"))
		if strings.Contains(string(conds), `"Failed"`) || strings.Contains(string(conds), `"FailureTarget"`) {
			t.Fatalf("edge-at-1 failed: %s", conds)
		}
	}
	if names, term := t.jobPods(ns, "edge-at-1"); len(names) != 1 || term != 1 {
		t.Errorf("edge-at-1: Pods %v (%d terminating), want its one Pod terminating", names, term)
	}
	t.stable(ns, "edge", 0, 5*time.Second)

	msgs, _ := t.scaleEvents(ns)
	want := []string{"Deleted Job edge-at-1 ", "Foreground propagation", "Deleted Job edge-over-1 ", "Background propagation"}
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], want[0]) || !strings.Contains(msgs[0], want[1]) ||
		!strings.HasPrefix(msgs[1], want[2]) || !strings.Contains(msgs[1], want[3]) {
		t.Errorf("Events %q, want edge-at-1 with Foreground then edge-over-1 with Background", msgs)
	}

	// What the kubelet does at the end of the grace period: the Pods go, and with them the
	// Foreground deletion completes.
	for _, job := range []string{"edge-at-1", "edge-over-1"} {
		if names, _ := t.jobPods(ns, job); len(names) > 0 {
			t.Kubectl(append([]string{"delete", "pod", "-n", ns, "--force", "--grace-period=0", "--wait=false"}, names...)...)
		}
	}
	t.WaitJobs(ns, "edge", []string{"edge-at-0", "edge-over-0"}, 60*time.Second)
	t.stable(ns, "edge", 0, 3*time.Second)
	t.Logf("events: %s", strings.Join(msgs, " | "))
	t.Logf("edge-over-1 was gone with %d of its Pods still present; edge-at-1 waited for its terminating Pod, status.failed %v", len(overPods), failed)
}
