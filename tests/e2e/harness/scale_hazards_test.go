package harness

// The scale hazards of docs/elastic.md ("Scales that would break a JobSet") on the real control
// plane: for each, what upstream JobSet v0.12.0's controller does after the scale, next to what
// jobset-webhook answered for it (a warning kubectl prints, or a refusal). The webhook runs with
// the harness's policy (the default: no scale-down controller, and none runs in these cases), so
// the scale-down warnings say that the Jobs above the count keep running.
//
// There is no kubelet: a Job is made ready by writing its Pod's status (phase Running, condition
// Ready) as a kubelet would, and finished by writing the Job's status (finishJob,
// scale_down_test.go). Pods are never bound to a node, so the pod garbage collector leaves them
// alone and a deleted one goes at once.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// A new Job of a replicatedJob with Jobs after it gets a job-global-index (and, in one group, a
// job-group-index) a Job already has; check warns as the server does.
func TestScaleHazardGlobalIndex(t *testing.T) { run(t, hazardGlobalIndex) }

// Several groupNames: the later replicatedJobs of the scaled one's group keep their
// job-group-index (upstream's groupJobIndex, pkg/controllers/jobset_controller.go, v0.12.0:
// the replicas of the same group before it, plus the Job's index), as the global index.
func TestScaleHazardGroupIndex(t *testing.T) { run(t, hazardGroupIndex) }

// A scale of the last replicatedJob: the Jobs that exist and their pods keep the old
// replicatedjob-replicas, global-replicas and group-replicas; the warning names them.
func TestScaleHazardStaleReplicaLabels(t *testing.T) { run(t, hazardStaleReplicaLabels) }

// successPolicy All: a shrink to what already succeeded completes the JobSet; upstream then
// deletes its active Jobs, and a scale of the finished JobSet is refused.
func TestScaleHazardSuccessPolicyCompletes(t *testing.T) { run(t, hazardSuccessCompletes) }

// successPolicy All with its targets scaled to 0: the first success anywhere completes it.
func TestScaleHazardSuccessPolicyZero(t *testing.T) { run(t, hazardSuccessZero) }

// dependsOn Ready: a missing Job of the dependant is created only once the Jobs above the new
// count are gone.
func TestScaleHazardDependsOn(t *testing.T) { run(t, hazardDependsOn) }

// startupPolicy InOrder: a scale-up sets StartupPolicyInProgress again; the replicatedJobs after
// it get no missing Job until the new Jobs are ready.
func TestScaleHazardInOrder(t *testing.T) { run(t, hazardInOrder) }

// A scale-down that would remove the coordinator's Job: refused.
func TestScaleHazardCoordinatorRefused(t *testing.T) { run(t, hazardCoordinator) }

// A scale-up whose Job names pass 63 characters: refused; one index less is allowed.
func TestScaleHazardLongNameRefused(t *testing.T) { run(t, hazardLongName) }

// A scale of a Failed JobSet: refused (a Completed one: TestScaleHazardSuccessPolicyCompletes).
func TestScaleHazardFailedRefused(t *testing.T) { run(t, hazardFailed) }

// A scale-up past replicas x parallelism = 2147483647: refused.
func TestScaleHazardPodsOverInt32Refused(t *testing.T) { run(t, hazardPodsOverInt32) }

// spec.managedBy another controller: upstream creates no Job; the warning promises none, and no
// other hazard is warned.
func TestScaleHazardManagedBy(t *testing.T) { run(t, hazardManagedBy) }

// hazardJob is a replicatedJob of one pod per Job (parallelism 1, completions 1, backoffLimit 0),
// as workers() but named.
func hazardJob(name string, replicas int) *replicatedJobBuilder {
	return replicatedJob(name, replicas).job("parallelism", 1).job("completions", 1).job("backoffLimit", 0)
}

// createJobSet applies a manifest in ns and waits for the Jobs named.
func (t *T) createJobSet(ns, name, yaml string, jobs ...string) {
	t.Helper()
	if r := t.Try(yaml, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create %s: %s", name, r.Err)
	}
	t.WaitJobs(ns, name, jobs, 60*time.Second)
}

// scaleAt patches spec.replicatedJobs[index].replicas with kubectl patch --type=json (extra:
// more kubectl flags, such as --dry-run=server); the result is the caller's to judge.
func (t *T) scaleAt(ns, jobset string, index, replicas int, extra ...string) Result {
	patch := fmt.Sprintf(`[{"op":"replace","path":"/spec/replicatedJobs/%d/replicas","value":%d}]`, index, replicas)
	return t.Try("", nil, append([]string{"patch", "-n", ns, "jobset", jobset, "--type=json", "-p", patch}, extra...)...)
}

// serverWarnings are the warnings kubectl printed (stderr lines "Warning: <text>"), texts only.
func serverWarnings(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if w, ok := strings.CutPrefix(line, "Warning: "); ok {
			out = append(out, w)
		}
	}
	return out
}

// hasWarning checks that kubectl printed want as one whole warning.
func hasWarning(t *T, stderr, want string) {
	t.Helper()
	for _, w := range serverWarnings(stderr) {
		if w == want {
			return
		}
	}
	t.Errorf("kubectl printed no warning\n  %s\nit printed:\n%s", want, strings.TrimSpace(stderr))
}

// readyJob writes the status of the Job's Pod as the kubelet does once its container runs and
// its readiness holds (phase Running, condition Ready True); the Job controller then counts the
// Pod in the Job's status.ready, and upstream the Job in its replicatedJob's ready.
func (t *T) readyJob(ns, job string) {
	t.Helper()
	var pods []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		pods = strings.Fields(t.Kubectl("get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+job,
			"-o", "jsonpath={.items[*].metadata.name}"))
		if len(pods) > 0 {
			break
		}
	}
	if len(pods) == 0 {
		t.Fatalf("no Pod of Job %s after 30s", job)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	status := fmt.Sprintf(`{"status":{"phase":"Running","startTime":%q,"conditions":[`+
		`{"type":"Initialized","status":"True","lastTransitionTime":%q},`+
		`{"type":"ContainersReady","status":"True","lastTransitionTime":%q},`+
		`{"type":"Ready","status":"True","lastTransitionTime":%q}]}}`, now, now, now, now)
	for _, p := range pods {
		if r := t.Try("", nil, "patch", "pod", "-n", ns, p, "--subresource=status", "--type=merge", "-p", status); !r.OK {
			t.Fatalf("status of Pod %s: %s", p, r.Err)
		}
	}
}

// rjobStatus is the JobSet's status.replicatedJobsStatus entry of one replicatedJob (counts as
// float64, JSON's numbers), or nil.
func (t *T) rjobStatus(ns, jobset, rjob string) map[string]any {
	sts, _ := at(t.Get(ns, "jobset", jobset), "status", "replicatedJobsStatus").([]any)
	for _, st := range sts {
		if m, ok := st.(map[string]any); ok && m["name"] == rjob {
			return m
		}
	}
	return nil
}

// waitCount waits until the replicatedJob's status counts want in field (ready, succeeded, ...).
func (t *T) waitCount(ns, jobset, rjob, field string, want int) {
	t.Helper()
	var st map[string]any
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if st = t.rjobStatus(ns, jobset, rjob); st != nil && st[field] == float64(want) {
			return
		}
	}
	t.Fatalf("status.replicatedJobsStatus of %s/%s %s: %v, want %s %d", ns, jobset, rjob, st, field, want)
}

// condition is the status ("True", "False") of the JobSet's condition typ, or "" when absent.
func (t *T) condition(ns, jobset, typ string) string {
	conds, _ := at(t.Get(ns, "jobset", jobset), "status", "conditions").([]any)
	for _, c := range conds {
		if at(c, "type") == typ {
			s, _ := at(c, "status").(string)
			return s
		}
	}
	return ""
}

// waitCondition waits until the JobSet's condition typ has status want.
func (t *T) waitCondition(ns, jobset, typ, want string) {
	t.Helper()
	got := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if got = t.condition(ns, jobset, typ); got == want {
			return
		}
	}
	t.Fatalf("JobSet %s/%s: condition %s is %q after 60s, want %q", ns, jobset, typ, got, want)
}

// absentFor checks for d that Job job does not exist (upstream does not create it).
func (t *T) absentFor(ns, jobset, job string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		for _, j := range t.Jobs(ns, jobset) {
			if j == job {
				t.Fatalf("Job %s was created again within %v", job, d)
			}
		}
	}
}

// jobLabels are the labels of one Job.
func (t *T) jobLabels(ns, job string) map[string]string {
	labels := map[string]string{}
	m, _ := at(t.Get(ns, "job", job), "metadata", "labels").(map[string]any)
	for k, v := range m {
		labels[k], _ = v.(string)
	}
	return labels
}

const (
	globalIndexLabel    = "jobset.sigs.k8s.io/job-global-index"
	globalReplicasLabel = "jobset.sigs.k8s.io/global-replicas"
	groupIndexLabel     = "jobset.sigs.k8s.io/job-group-index"
	groupReplicasLabel  = "jobset.sigs.k8s.io/group-replicas"
	rjobReplicasLabel   = "jobset.sigs.k8s.io/replicatedjob-replicas"
)

// hazardGlobalIndex: upstream's labelAndAnnotateObject (sigs.k8s.io/jobset v0.12.0,
// pkg/controllers/jobset_controller.go) writes globalJobIndex (the Job's index plus the replicas
// of the replicatedJobs before it) and globalReplicas (the sum of all replicas) into a Job's labels
// once, in constructJob when it creates the Job, and never rewrites them. Scaling a from 1 to 2
// in front of b(1): the new Job gi-a-1 is numbered 1 by the new counts, which is what gi-b-0 got
// by the old ones (and job-group-index the same: one group); gi-a-0 and gi-b-0 keep
// global-replicas 2 while gi-a-1 says 3.
func hazardGlobalIndex(t *T) {
	ns := t.Namespace("hazard")
	old := jobSet("gi").suspend(false).replicatedJob(hazardJob("a", 1), hazardJob("b", 1))
	t.createJobSet(ns, "gi", old.yaml(), "gi-a-0", "gi-b-0")
	r := t.scaleAt(ns, "gi", 0, 2)
	if !r.OK {
		t.Fatalf("scale of a to 2 refused: %s", r.Err)
	}
	want := `replicatedJob "a" scaled up from 1 to 2: upstream's JobSet controller labels a Job once, ` +
		`when it creates it, with an index counted from the replicas before it: Job gi-a-1 gets ` +
		`jobset.sigs.k8s.io/job-global-index and jobset.sigs.k8s.io/job-group-index 1, which Job gi-b-0 already has and keeps until the JobSet restarts`
	hasWarning(t, r.Err, want)
	t.WaitJobs(ns, "gi", []string{"gi-a-0", "gi-a-1", "gi-b-0"}, 60*time.Second)

	// Pinned: upstream labels the new Job by the new counts and leaves the others as they were.
	a0, a1, b0 := t.jobLabels(ns, "gi-a-0"), t.jobLabels(ns, "gi-a-1"), t.jobLabels(ns, "gi-b-0")
	for _, label := range []string{globalIndexLabel, groupIndexLabel} { // one group: the same
		if a1[label] != "1" || b0[label] != "1" {
			t.Errorf("%s: gi-a-1 %q, gi-b-0 %q; want both \"1\" (the collision the warning names)",
				label, a1[label], b0[label])
		}
	}
	if a0[globalReplicasLabel] != "2" || b0[globalReplicasLabel] != "2" || a1[globalReplicasLabel] != "3" {
		t.Errorf("%s: gi-a-0 %q, gi-b-0 %q, gi-a-1 %q; want 2, 2 (stale) and 3",
			globalReplicasLabel, a0[globalReplicasLabel], b0[globalReplicasLabel], a1[globalReplicasLabel])
	}
	t.Logf("upstream v0.12.0 labels: gi-a-0 global-index %s global-replicas %s replicatedjob-replicas %s; "+
		"gi-a-1 %s %s %s; gi-b-0 %s %s", a0[globalIndexLabel], a0[globalReplicasLabel],
		a0["jobset.sigs.k8s.io/replicatedjob-replicas"], a1[globalIndexLabel], a1[globalReplicasLabel],
		a1["jobset.sigs.k8s.io/replicatedjob-replicas"], b0[globalIndexLabel], b0[globalReplicasLabel])

	// check, offline, on the same pair: the same warnings, word for word.
	code, out := checkPredicts(t, old.yaml(),
		jobSet("gi").suspend(false).replicatedJob(hazardJob("a", 2), hazardJob("b", 1)).yaml())
	t.Logf("check: exit %d: %s", code, out)
	if code != 0 {
		t.Errorf("check exits %d; the cluster allows", code)
	}
	sameWarnings(t, r.Err, out)
}

// sameWarnings: the warnings kubectl printed (its stderr) are those `check` printed (its output),
// word for word, in any order.
func sameWarnings(t *T, kubectlStderr, checkOut string) {
	t.Helper()
	server := serverWarnings(kubectlStderr)
	var offline []string
	for _, line := range strings.Split(checkOut, "\n") {
		if _, w, ok := strings.Cut(line, ": warning: "); ok {
			offline = append(offline, w)
		}
	}
	sort.Strings(server)
	sort.Strings(offline)
	if strings.Join(server, "\n") != strings.Join(offline, "\n") {
		t.Errorf("warnings differ\nserver (kubectl):\n  %s\ncheck:\n  %s",
			strings.Join(server, "\n  "), strings.Join(offline, "\n  "))
	}
}

func hazardGroupIndex(t *T) {
	ns := t.Namespace("hazard")
	grouped := func(a int) *jobSetBuilder {
		return jobSet("gx").suspend(false).replicatedJob(hazardJob("a", a).set("groupName", "x"),
			hazardJob("b", 1).set("groupName", "y"), hazardJob("c", 1).set("groupName", "x"))
	}
	t.createJobSet(ns, "gx", grouped(1).yaml(), "gx-a-0", "gx-b-0", "gx-c-0")
	r := t.scaleAt(ns, "gx", 0, 2)
	if !r.OK {
		t.Fatalf("scale of a to 2 refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "a" scaled up from 1 to 2: upstream's JobSet controller labels a Job once, `+
		`when it creates it, with an index counted from the replicas before it in its groupName: the Jobs of the `+
		`replicatedJobs after it in group "x" keep the jobset.sigs.k8s.io/job-group-index they have `+
		`(Job gx-c-0: 1, by the new counts 2) until the JobSet restarts`)
	t.WaitJobs(ns, "gx", []string{"gx-a-0", "gx-a-1", "gx-b-0", "gx-c-0"}, 60*time.Second)

	// Pinned: the new Job gx-a-1 is numbered by the new counts, gx-c-0 keeps its old index: both 1.
	a1, b0, c0 := t.jobLabels(ns, "gx-a-1"), t.jobLabels(ns, "gx-b-0"), t.jobLabels(ns, "gx-c-0")
	if a1[groupIndexLabel] != "1" || c0[groupIndexLabel] != "1" || b0[groupIndexLabel] != "0" {
		t.Errorf("%s: gx-a-1 %q, gx-c-0 %q, gx-b-0 %q; want 1, 1 (the shift the warning names) and 0",
			groupIndexLabel, a1[groupIndexLabel], c0[groupIndexLabel], b0[groupIndexLabel])
	}

	// check, offline, on the same pair: the same warnings, word for word.
	code, out := checkPredicts(t, grouped(1).yaml(), grouped(2).yaml())
	if code != 0 {
		t.Errorf("check exits %d; the cluster allows: %s", code, out)
	}
	sameWarnings(t, r.Err, out)
}

// podLabels are the labels of the one Pod of Job job.
func (t *T) podLabels(ns, job string) map[string]string {
	t.Helper()
	labels := map[string]string{}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		var list map[string]any
		out := t.Kubectl("get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+job, "-o", "json")
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("%v", err)
		}
		if items, _ := at(list, "items").([]any); len(items) == 1 {
			m, _ := at(items[0], "metadata", "labels").(map[string]any)
			for k, v := range m {
				labels[k], _ = v.(string)
			}
			return labels
		}
	}
	t.Fatalf("Job %s has not exactly one Pod after 30s", job)
	return nil
}

// hazardStaleReplicaLabels: upstream's labelAndAnnotateObject (sigs.k8s.io/jobset v0.12.0,
// pkg/controllers/jobset_controller.go) writes replicatedjob-replicas (rjob.Replicas),
// global-replicas (globalReplicas) and group-replicas (groupReplicas) into the labels and
// annotations of a Job and of its pod template, called by constructJob when the Job is created
// only; nothing rewrites them. Scaling b, the last replicatedJob, from 2 to 3 shifts no index, yet
// sl-b-0, sl-b-1, sl-a-0 and their Pods keep the old counts, which a workload reading its world
// size through the downward API would read; the new sl-b-2 carries the new ones.
func hazardStaleReplicaLabels(t *T) {
	ns := t.Namespace("hazard")
	yaml := jobSet("sl").suspend(false).replicatedJob(hazardJob("a", 1), hazardJob("b", 2)).yaml()
	t.createJobSet(ns, "sl", yaml, "sl-a-0", "sl-b-0", "sl-b-1")
	r := t.scaleAt(ns, "sl", 1, 3)
	if !r.OK {
		t.Fatalf("scale of b to 3 refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "b" scaled up from 2 to 3: upstream's JobSet controller writes the replica `+
		`counts into the labels and annotations of a Job and its pods only when it creates the Job, so until the `+
		`JobSet restarts the Jobs that exist and their pods (and a workload that reads the counts through the `+
		`downward API) keep the old ones: Jobs sl-b-0, sl-b-1 keep jobset.sigs.k8s.io/replicatedjob-replicas 2 `+
		`(now 3); Jobs sl-a-0, sl-b-0, sl-b-1 keep jobset.sigs.k8s.io/global-replicas and `+
		`jobset.sigs.k8s.io/group-replicas 3 (now 4)`)
	t.WaitJobs(ns, "sl", []string{"sl-a-0", "sl-b-0", "sl-b-1", "sl-b-2"}, 60*time.Second)

	// Pinned: the Jobs and Pods that existed keep the old counts, the new Job and its Pod have
	// the new ones.
	want := map[string][3]string{ // replicatedjob-replicas, global-replicas, group-replicas
		"sl-a-0": {"1", "3", "3"}, "sl-b-0": {"2", "3", "3"}, "sl-b-1": {"2", "3", "3"}, "sl-b-2": {"3", "4", "4"},
	}
	for _, job := range []string{"sl-a-0", "sl-b-0", "sl-b-1", "sl-b-2"} {
		for kind, labels := range map[string]map[string]string{"Job": t.jobLabels(ns, job), "its Pod": t.podLabels(ns, job)} {
			got := [3]string{labels[rjobReplicasLabel], labels[globalReplicasLabel], labels[groupReplicasLabel]}
			if got != want[job] {
				t.Errorf("%s %s: replicatedjob-replicas, global-replicas, group-replicas %q, want %q",
					job, kind, got, want[job])
			}
		}
	}
	t.Logf("upstream v0.12.0 left sl-a-0, sl-b-0, sl-b-1 and their Pods at global-replicas 3, labelled sl-b-2 with 4")
}

// successJobSet: driver(1) and workers(n), successPolicy All over workers only.
func successJobSet(name string, workers int) string {
	return jobSet(name).suspend(false).
		set("spec.successPolicy", map[string]any{"operator": "All", "targetReplicatedJobs": []any{"workers"}}).
		replicatedJob(hazardJob("driver", 1), hazardJob("workers", workers)).yaml()
}

// hazardSuccessCompletes: upstream's executeSuccessPolicy (pkg/controllers/jobset_controller.go)
// completes the JobSet once the succeeded Jobs of the policy's targets number at least
// numJobsExpectedToSucceed (pkg/controllers/success_policy.go), the sum of the targets' replicas,
// read from the spec on every reconcile. Two of three workers succeeded; a scale to 2 meets the
// count, and the next reconcile completes the JobSet with its driver still running. Then
// jobSetFinished makes the reconcile delete the active Jobs (deleteJobs, Foreground) and nothing
// more; a scale of the finished JobSet is refused (upstream's ValidateUpdate refuses
// parallelism changes of a finished JobSet the same way, pkg/webhooks/jobset_webhook.go).
func hazardSuccessCompletes(t *T) {
	ns := t.Namespace("hazard")
	t.createJobSet(ns, "sp", successJobSet("sp", 3), "sp-driver-0", "sp-workers-0", "sp-workers-1", "sp-workers-2")
	t.finishJob(ns, "sp-workers-0", true)
	t.finishJob(ns, "sp-workers-1", true)
	t.waitCount(ns, "sp", "workers", "succeeded", 2)
	if _, term := t.jobsetState(ns, "sp"); term != "" {
		t.Fatalf("JobSet %s with 2 of 3 workers succeeded", term)
	}
	r := t.scaleAt(ns, "sp", 1, 2)
	if !r.OK {
		t.Fatalf("scale of workers to 2 refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "workers" scaled down from 3 to 2: the JobSet controller will mark the JobSet `+
		`Completed on its next reconcile: status.replicatedJobsStatus counts 2 succeeded Jobs of its `+
		`targetReplicatedJobs, and successPolicy All now waits for 2; once Completed, its Jobs still running are deleted`)
	// Pinned: Completed, with sp-driver-0 and sp-workers-2 never finished.
	t.waitTerminal(ns, "sp", "Completed", 30*time.Second)
	// Pinned: a finished JobSet's reconcile deletes its active Jobs and keeps the finished ones.
	t.WaitJobs(ns, "sp", []string{"sp-workers-0", "sp-workers-1"}, 60*time.Second)
	t.Logf("upstream v0.12.0 completed sp with sp-driver-0 and sp-workers-2 running, then deleted those two")

	r = t.scaleAt(ns, "sp", 1, 3)
	if r.OK {
		t.Fatalf("scale of a Completed JobSet allowed:\n%s", r.Out)
	}
	contains(t, "kubectl's error", r.Err, `The JobSet "sp" is invalid: spec.replicatedJobs[1].replicas: Forbidden: `+
		`Cannot mutate replicas when JobSet is in a terminal state (Completed or Failed): the JobSet controller `+
		`creates and deletes no Job of a finished JobSet; create a new JobSet to run again`)
	if got := at(t.Get(ns, "jobset", "sp"), "spec", "replicatedJobs", 1, "replicas"); got != float64(2) {
		t.Errorf("stored replicas of workers %v, want 2", got)
	}
	t.settle(ns, "sp")
	if got := t.Jobs(ns, "sp"); strings.Join(got, " ") != "sp-workers-0 sp-workers-1" {
		t.Errorf("Jobs after the refused scale: %v", got)
	}
}

// hazardSuccessZero: with its targets at 0 replicas numJobsExpectedToSucceed is 0, and
// executeSuccessPolicy, which runs once any Job has succeeded, finds 0 >= 0: the driver's success
// completes the JobSet although two workers still run (upstream deletes none on the scale).
func hazardSuccessZero(t *T) {
	ns := t.Namespace("hazard")
	t.createJobSet(ns, "sz", successJobSet("sz", 2), "sz-driver-0", "sz-workers-0", "sz-workers-1")
	r := t.scaleAt(ns, "sz", 1, 0)
	if !r.OK {
		t.Fatalf("scale of workers to 0 refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "workers" scaled down from 2 to 0: successPolicy All now waits for 0 Jobs `+
		`of its targetReplicatedJobs: the first Job of any replicatedJob that succeeds completes the JobSet `+
		`(upstream's executeSuccessPolicy); once Completed, its Jobs still running are deleted`)
	// Pinned: nothing happens until a Job succeeds (executeSuccessPolicy runs only then).
	t.settle(ns, "sz")
	t.stable(ns, "sz", 0, 3*time.Second)
	t.finishJob(ns, "sz-driver-0", true)
	t.waitTerminal(ns, "sz", "Completed", 30*time.Second)
	t.WaitJobs(ns, "sz", []string{"sz-driver-0"}, 60*time.Second)
	t.Logf("upstream v0.12.0 completed sz on sz-driver-0's success, then deleted sz-workers-0 and -1, unfinished")
}

// hazardDependsOn: upstream's reconcileReplicatedJobs (pkg/controllers/jobset_controller.go) skips
// a replicatedJob while dependencyReachedStatus (pkg/controllers/depends_on.go) is false, and for
// dependsOn Ready that needs the dependency's ready + failed + succeeded Jobs, counted by
// calculateReplicatedJobStatuses from the Jobs that exist, to equal its replicas exactly. After a
// scale of a from 2 to 1 a's two ready Jobs count 2: b's missing Job is not created until dep-a-1
// is gone.
func hazardDependsOn(t *T) {
	ns := t.Namespace("hazard")
	yaml := jobSet("dep").suspend(false).replicatedJob(hazardJob("a", 2),
		hazardJob("b", 2).set("dependsOn", []any{map[string]any{"name": "a", "status": "Ready"}})).yaml()
	t.createJobSet(ns, "dep", yaml, "dep-a-0", "dep-a-1")
	t.readyJob(ns, "dep-a-0")
	t.readyJob(ns, "dep-a-1")
	t.waitCount(ns, "dep", "a", "ready", 2)
	t.WaitJobs(ns, "dep", []string{"dep-a-0", "dep-a-1", "dep-b-0", "dep-b-1"}, 60*time.Second)

	r := t.scaleAt(ns, "dep", 0, 1)
	if !r.OK {
		t.Fatalf("scale of a to 1 refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "a" scaled down from 2 to 1: replicatedJob "b" depends on it (dependsOn Ready): `+
		`the JobSet controller creates its missing Jobs only while the ready, failed and succeeded Jobs of this `+
		`one number exactly 1, and status.replicatedJobsStatus counts 2: it waits until the Jobs above the new `+
		`count are gone`)
	// A Job of b goes (a node lost, a user's delete): upstream does not create it again while a
	// counts 2 for its 1 replica.
	t.Kubectl("delete", "job", "-n", ns, "dep-b-1", "--wait=true")
	t.absentFor(ns, "dep", "dep-b-1", 8*time.Second)
	if st := t.rjobStatus(ns, "dep", "a"); st["ready"] != float64(2) {
		t.Errorf("a's status while dep-b-1 stayed missing: %v, want ready 2", st)
	}
	// Once the Job above a's count is gone, the counts match and b's Job comes back.
	t.Kubectl("delete", "job", "-n", ns, "dep-a-1")
	t.WaitJobs(ns, "dep", []string{"dep-a-0", "dep-b-0", "dep-b-1"}, 60*time.Second)
	t.Logf("upstream v0.12.0 recreated dep-b-1 only after dep-a-1, above a's new count, was deleted")
}

// hazardInOrder: under startupPolicy InOrder upstream's reconcileReplicatedJobs walks the
// replicatedJobs in order; one for which allReplicasStarted (pkg/controllers/startup_policy.go:
// replicas == ready + failed + succeeded) is false gets its missing Jobs created, the condition
// StartupPolicyInProgress set (setInOrderStartupPolicyInProgressCondition, which turns
// StartupPolicyCompleted False: exclusiveConditions), and the walk stops there. A scale-up of a
// once the startup completed does exactly that again.
func hazardInOrder(t *T) {
	ns := t.Namespace("hazard")
	yaml := jobSet("ord").suspend(false).set("spec.startupPolicy", map[string]any{"startupPolicyOrder": "InOrder"}).
		replicatedJob(hazardJob("a", 1), hazardJob("b", 1)).yaml()
	t.createJobSet(ns, "ord", yaml, "ord-a-0")
	t.readyJob(ns, "ord-a-0")
	t.WaitJobs(ns, "ord", []string{"ord-a-0", "ord-b-0"}, 60*time.Second)
	t.readyJob(ns, "ord-b-0")
	t.waitCondition(ns, "ord", "StartupPolicyCompleted", "True")
	t.waitCount(ns, "ord", "a", "ready", 1)

	r := t.scaleAt(ns, "ord", 0, 2)
	if !r.OK {
		t.Fatalf("scale of a to 2 refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "a" scaled up from 1 to 2: startupPolicy InOrder: the JobSet controller sets `+
		`StartupPolicyInProgress again and creates no missing Job of the replicatedJobs after this one until its `+
		`ready, failed and succeeded Jobs number exactly 2 (status.replicatedJobsStatus counts 1)`)
	// Pinned: the new Job of a is created, and the startup is in progress again.
	t.WaitJobs(ns, "ord", []string{"ord-a-0", "ord-a-1", "ord-b-0"}, 60*time.Second)
	t.waitCondition(ns, "ord", "StartupPolicyInProgress", "True")
	if got := t.condition(ns, "ord", "StartupPolicyCompleted"); got != "False" {
		t.Errorf("StartupPolicyCompleted %q after the scale, want False", got)
	}
	// b's Job, once gone, is not created again until a's new Job is ready.
	t.Kubectl("delete", "job", "-n", ns, "ord-b-0", "--wait=true")
	t.absentFor(ns, "ord", "ord-b-0", 8*time.Second)
	t.readyJob(ns, "ord-a-1")
	t.WaitJobs(ns, "ord", []string{"ord-a-0", "ord-a-1", "ord-b-0"}, 60*time.Second)
	t.Logf("upstream v0.12.0 set StartupPolicyInProgress again and recreated ord-b-0 only once ord-a-1 was ready")
}

// hazardCoordinator: upstream's validateCoordinator (pkg/webhooks/jobset_webhook.go) runs on
// CREATE only; its controller labels every Job and pod with CoordinatorEndpoint
// (pkg/controllers/jobset_controller.go), which names the coordinator's Job by its index. A
// scale-down to that index is refused at replicas, in upstream's words.
func hazardCoordinator(t *T) {
	ns := t.Namespace("hazard")
	yaml := jobSet("coord").suspend(false).
		set("spec.coordinator", map[string]any{"replicatedJob": "workers", "jobIndex": 1, "podIndex": 0}).
		replicatedJob(workers(2).job("completionMode", "Indexed")).yaml()
	t.createJobSet(ns, "coord", yaml, jobNames("coord", 2)...)
	label := t.jobLabels(ns, "coord-workers-0")["jobset.sigs.k8s.io/coordinator"]
	if label != "coord-workers-1-0.coord" {
		t.Errorf("coordinator label of coord-workers-0: %q, want coord-workers-1-0.coord", label)
	}
	r := t.scaleAt(ns, "coord", 0, 1)
	if r.OK {
		t.Fatalf("scale-down past the coordinator allowed:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `The JobSet "coord" is invalid: spec.replicatedJobs[0].replicas: Invalid value: 1: `+
		`coordinator job index 1 is invalid for replicatedJob workers: every pod's coordinator label would name Job `+
		`coord-workers-1, which no longer exists; keep replicas at 2 or more, or set spec.coordinator.jobIndex below 1 `+
		`in the same update`)
	if got := at(t.Get(ns, "jobset", "coord"), "spec", "replicatedJobs", 0, "replicas"); got != float64(2) {
		t.Errorf("stored replicas %v, want 2", got)
	}
}

// hazardLongName: upstream's ValidateCreate (pkg/webhooks/jobset_webhook.go) checks that the
// longest Job name, <jobset>-<replicatedJob>-<replicas-1>, is a DNS-1035 label, on CREATE only; a
// Job named over 63 characters cannot be created. The JobSet's name has 59 characters, so
// "-w-9" fits and "-w-10" does not. (NonIndexed: without completionMode Indexed the pod names
// are generated by the Job controller and not checked.)
func hazardLongName(t *T) {
	ns := t.Namespace("hazard")
	name := "long-" + strings.Repeat("n", 54)
	yaml := jobSet(name).suspend(false).replicatedJob(hazardJob("w", 1).job("completionMode", "NonIndexed")).yaml()
	t.createJobSet(ns, name, yaml, name+"-w-0")
	r := t.scaleAt(ns, name, 0, 10, "--dry-run=server")
	if !r.OK {
		t.Fatalf("scale to 10 (longest Job name 63 characters) refused: %s", r.Err)
	}
	r = t.scaleAt(ns, name, 0, 11)
	if r.OK {
		t.Fatalf("scale to 11 (Job name %s-w-10, 64 characters) allowed:\n%s", name, r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, fmt.Sprintf(`The JobSet %q is invalid: spec.replicatedJobs[0].replicas: `+
		`Invalid value: 11: JobSet name is too long, job names generated for this JobSet will exceed 63 characters: `+
		`"%s-w-10" has 64 characters; keep replicas at most 10`, name, name))
	t.settle(ns, name)
	if got := t.Jobs(ns, name); len(got) != 1 {
		t.Errorf("Jobs after the refused scale: %v", got)
	}
}

// hazardFailed: without a failurePolicy upstream fails the JobSet on its first failed Job
// (executeFailurePolicy, pkg/controllers/failure_policy.go); jobSetFinished then stops the
// reconcile after deleting the active Jobs. A scale of the Failed JobSet is refused as one of a
// Completed JobSet is.
func hazardFailed(t *T) {
	ns := t.Namespace("hazard")
	t.createJobSet(ns, "fl", plainYAML("fl", 2, "busybox:1.36"), jobNames("fl", 2)...)
	t.finishJob(ns, "fl-workers-0", false)
	t.waitTerminal(ns, "fl", "Failed", 30*time.Second)
	r := t.scaleAt(ns, "fl", 0, 3)
	if r.OK {
		t.Fatalf("scale of a Failed JobSet allowed:\n%s", r.Out)
	}
	contains(t, "kubectl's error", r.Err, `The JobSet "fl" is invalid: spec.replicatedJobs[0].replicas: Forbidden: `+
		`Cannot mutate replicas when JobSet is in a terminal state (Completed or Failed)`)
}

// hazardPodsOverInt32: upstream's ValidateCreate checks replicas x parallelism against int32 on
// CREATE only; its controller counts pods in int32. The JobSet is suspended, so that its Job of
// 2^30 pods creates none (and NonIndexed: the Job API caps an Indexed Job's parallelism at 10^5).
func hazardPodsOverInt32(t *T) {
	ns := t.Namespace("hazard")
	rj := workers(1).job("parallelism", 1<<30).job("completionMode", "NonIndexed")
	delete(at(rj.obj, "template", "spec").(map[string]any), "completions") // as many pods as parallelism
	yaml := jobSet("big").suspend(true).replicatedJob(rj).yaml()
	t.createJobSet(ns, "big", yaml, "big-workers-0")
	r := t.scaleAt(ns, "big", 0, 2)
	if r.OK {
		t.Fatalf("scale to 2 x 2^30 pods allowed:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `The JobSet "big" is invalid: spec.replicatedJobs[0].replicas: Invalid value: 2: `+
		`the product of replicas and parallelism must not exceed 2147483647 for replicatedJob 'workers': keep replicas at most 1`)
}

// hazardManagedBy: upstream's reconcile returns at once for a JobSet whose spec.managedBy names
// another controller (managedByExternalController, pkg/controllers/jobset_controller.go): no Job
// is created, before or after a scale. The warning says so and adds no hazard of upstream's
// controller (here the global index one a(1) b(1) would otherwise get).
func hazardManagedBy(t *T) {
	ns := t.Namespace("hazard")
	yaml := jobSet("mb").suspend(false).set("spec.managedBy", "kueue.x-k8s.io/multikueue").
		replicatedJob(hazardJob("a", 1), hazardJob("b", 1)).yaml()
	t.createJobSet(ns, "mb", yaml)
	r := t.scaleAt(ns, "mb", 0, 2)
	if !r.OK {
		t.Fatalf("scale refused: %s", r.Err)
	}
	want := `replicatedJob "a" scaled up from 1 to 2: "kueue.x-k8s.io/multikueue" manages this JobSet (spec.managedBy): ` +
		`the JobSet controller creates no Job; Job mb-a-1 is for it to create`
	if got := serverWarnings(r.Err); len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q, want only\n  %s", got, want)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if got := t.Jobs(ns, "mb"); len(got) > 0 {
			t.Fatalf("upstream created Jobs %v of a JobSet managed by another controller", got)
		}
	}
}

// The RestartJob rows, with upstream's manager restarted with its alpha gate RestartJob for this
// case only: with the gate for every case, the scale-down cases would see upstream's reconcile
// fail instead of what they pin (the first part below).
func TestScaleHazardRestartJob(t *testing.T) { run(t, hazardRestartJob) }

// scaledJSON is the stored JobSet obj with spec.replicatedJobs[index].replicas set, as JSON
// (which check reads as YAML); its status stays the old one's.
func scaledJSON(obj map[string]any, index, replicas int) string {
	var c map[string]any
	b, _ := json.Marshal(obj)
	json.Unmarshal(b, &c)
	at(c, "spec", "replicatedJobs", index).(map[string]any)["replicas"] = replicas
	out, _ := json.Marshal(c)
	return string(out)
}

// managerLogged waits until the log of upstream's manager running now holds want.
func (t *T) managerLogged(want string) {
	t.Helper()
	var b []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if b, _ = os.ReadFile(t.c.JobSetManagerLog()); strings.Contains(string(b), want) {
			return
		}
	}
	t.Errorf("upstream's manager did not log %q within 30s (log %s)", want, t.c.JobSetManagerLog())
}

// hazardRestartJob: with the gate, upstream v0.12.0 labels every Job with job-restart-attempt
// (labelAndAnnotateObject, pkg/controllers/jobset_controller.go), reading
// getJobRestarts(js, rjob)[jobIdx] (pkg/controllers/failure_policy.go): the replicatedJob's
// status.replicatedJobsStatus[].jobRestarts, or `replicas` zeros while it is empty. getChildJobs
// looks every labelled Job up there by its job-index and fails the reconcile with "job index N is
// out of bounds for replicated job R" past the end. The harness's serve runs without the gate in
// its policy, as upstream's default, so here the webhook's answer with featureGates.RestartJob is
// check's, on the stored objects: the same decision core (TestScaleHazardRestartJobLimit shows a
// serve started with the gate answering through the API server).
func hazardRestartJob(t *T) {
	if err := t.c.RestartJobSetManager(map[string]bool{"RestartJob": true}); err != nil {
		t.Fatalf("upstream's manager with RestartJob: %v", err)
	}
	defer func() {
		if err := t.c.RestartJobSetManager(nil); err != nil {
			t.Errorf("upstream's manager without gates again: %v", err)
		}
	}()
	gated := filepath.Join(t.c.Work, "policy-restart-job.yaml")
	if err := os.WriteFile(gated, []byte("featureGates:\n  RestartJob: true\n"), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	ns := t.Namespace("hazard")

	// A scale-down: the Jobs above the count fail every reconcile; a Job below it that goes is
	// not created again until they are gone.
	t.createJobSet(ns, "rd", jobSet("rd").suspend(false).replicatedJob(hazardJob("w", 3)).yaml(),
		"rd-w-0", "rd-w-1", "rd-w-2")
	if got := t.jobLabels(ns, "rd-w-2")["jobset.sigs.k8s.io/job-restart-attempt"]; got != "0" {
		t.Fatalf("rd-w-2's job-restart-attempt %q: upstream's manager runs without the gate", got)
	}
	stored := t.Get(ns, "jobset", "rd")
	if r := t.scaleAt(ns, "rd", 0, 2); !r.OK {
		t.Fatalf("scale of w to 2 refused: %s", r.Err)
	}
	code, out := checkPredicts(t, scaledJSON(stored, 0, 3), scaledJSON(stored, 0, 2), "--config", gated)
	t.Logf("check --config (RestartJob: true): exit %d: %s", code, out)
	contains(t, "check's warning", out, `warning: replicatedJob "w" scaled down from 3 to 2: with the RestartJob `+
		`feature gate, upstream's JobSet controller fails every reconcile of this JobSet with "job index 2 is out of `+
		`bounds for replicated job w" (getChildJobs: a Job's index must be below the length of its jobRestarts `+
		`list, 2 here) until Job rd-w-2 is deleted: meanwhile it updates no status and runs no success or failure policy`)
	t.managerLogged("job index 2 is out of bounds for replicated job w")
	t.Kubectl("delete", "job", "-n", ns, "rd-w-0", "--wait=true")
	t.absentFor(ns, "rd", "rd-w-0", 8*time.Second)
	t.Kubectl("delete", "job", "-n", ns, "rd-w-2")
	t.WaitJobs(ns, "rd", []string{"rd-w-0", "rd-w-1"}, 60*time.Second)
	t.Logf("upstream v0.12.0 (RestartJob) created rd-w-0 again only once rd-w-2, above the count, was gone")

	// A scale-up past a populated jobRestarts: labelAndAnnotateObject indexes it past its end, a
	// panic that controller-runtime recovers on every reconcile. The list is written as upstream's
	// failurePolicyRecreateJob leaves it after a RestartJob action; upstream keeps it
	// (calculateReplicatedJobStatuses).
	t.createJobSet(ns, "ru", jobSet("ru").suspend(false).replicatedJob(hazardJob("w", 2)).yaml(), "ru-w-0", "ru-w-1")
	status := `{"status":{"replicatedJobsStatus":[{"name":"w","ready":0,"succeeded":0,"failed":0,"active":2,` +
		`"suspended":0,"jobRestarts":[0,0],"jobRestartsCountTowardsMax":[0,0]}]}}`
	t.Kubectl("patch", "jobset", "-n", ns, "ru", "--subresource=status", "--type=merge", "-p", status)
	t.settle(ns, "ru")
	stored = t.Get(ns, "jobset", "ru")
	if got := at(stored, "status", "replicatedJobsStatus", 0, "jobRestarts"); fmt.Sprint(got) != "[0 0]" {
		t.Fatalf("jobRestarts after upstream's reconcile: %v, want [0 0]", got)
	}
	code, out = checkPredicts(t, scaledJSON(stored, 0, 2), scaledJSON(stored, 0, 3), "--config", gated)
	t.Logf("check --config (RestartJob: true): exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d, want 1 (refused)", code)
	}
	contains(t, "check's refusal", out, `spec.replicatedJobs[0].replicas: Invalid value: 3: job index 2 is out of `+
		`bounds for replicated job w: status.replicatedJobsStatus[0].jobRestarts has 2 entries, which the JobSet `+
		`controller (RestartJob feature gate) reads by job index and never lengthens; keep replicas at most 2`)
	// The harness's serve, without the gate in its policy, allows it: what upstream then does.
	if r := t.scaleAt(ns, "ru", 0, 3); !r.OK {
		t.Fatalf("scale of w to 3 refused without the gate in the policy: %s", r.Err)
	}
	t.managerLogged("index out of range [2] with length 2")
	t.absentFor(ns, "ru", "ru-w-2", 8*time.Second)
	t.Logf("upstream v0.12.0 (RestartJob) never created ru-w-2: its reconcile panics on jobRestarts[2]")
}

// The RestartJob limit of 1024 replicas, with upstream's manager and jobset-webhook's serve both
// on the RestartJob gate for this case only. No JobSet of 1025 Jobs is needed: the scale is
// refused, so only Job 0 ever exists.
func TestScaleHazardRestartJobLimit(t *testing.T) { run(t, hazardRestartJobLimit) }

// servingWebhook is the harness's serve that the webhook configurations name now (the newest
// one still running).
func (c *Cluster) servingWebhook() *Webhook {
	for i := len(c.Webhooks) - 1; i >= 0; i-- {
		if !c.Webhooks[i].p.exited() {
			return c.Webhooks[i]
		}
	}
	return nil
}

// hazardRestartJobLimit: upstream's validateFailurePolicy (sigs.k8s.io/jobset v0.12.0,
// pkg/webhooks/jobset_webhook.go, called by ValidateCreate only) refuses a RestartJob (or
// RestartJobAndIgnoreMaxRestarts) rule next to a replicatedJob of more than 1024 replicas, the
// maxItems of status.replicatedJobsStatus[].jobRestarts; its ValidateUpdate does not run it
// again. jobset-webhook re-runs it on a scale, with featureGates.RestartJob in its policy: (a) a
// scale of such a JobSet from 1 to 1025 is refused at replicas in upstream's words, and no Job
// but w-0 is created; (b) the same JobSet created with 1025 replicas is refused by upstream's
// vjobset.kb.io alone (jobset-webhook's configurations are emptied meanwhile, so that the
// refusal cannot be ours: the API server calls validating webhooks in parallel, and ours words
// it the same).
func hazardRestartJobLimit(t *T) {
	c := t.c
	first := c.servingWebhook()
	if first == nil {
		t.Fatalf("no serve of the harness is running")
	}
	if err := c.RestartJobSetManager(map[string]bool{"RestartJob": true}); err != nil {
		t.Fatalf("upstream's manager with RestartJob: %v", err)
	}
	gated := filepath.Join(c.Work, "policy-restart-job.yaml")
	if err := os.WriteFile(gated, []byte("featureGates:\n  RestartJob: true\n"), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	w, err := c.StartWebhookWithPolicy("127.0.0.1", gated)
	if err != nil {
		t.Fatalf("serve with featureGates.RestartJob: %v", err)
	}
	defer func() {
		if err := c.RegisterWebhooks([]*Webhook{first}); err != nil {
			t.Errorf("registering the harness's serve again: %v", err)
		}
		w.p.stop(10 * time.Second)
		if err := c.RestartJobSetManager(nil); err != nil {
			t.Errorf("upstream's manager without gates again: %v", err)
		}
	}()
	if err := c.RegisterWebhooks([]*Webhook{w}); err != nil {
		t.Fatalf("registering the serve with featureGates.RestartJob: %v", err)
	}
	ns := t.Namespace("hazard")
	restartJob := func(name string, replicas int) string {
		return jobSet(name).suspend(false).set("spec.failurePolicy", map[string]any{"maxRestarts": 3,
			"rules": []any{map[string]any{"name": "restartOne", "action": "RestartJob"}}}).
			replicatedJob(hazardJob("w", replicas)).yaml()
	}

	// (a) The scale, refused by jobset-webhook at replicas.
	t.createJobSet(ns, "rl", restartJob("rl", 1), "rl-w-0")
	r := t.scaleAt(ns, "rl", 0, 1025)
	if r.OK {
		t.Fatalf("scale of w to 1025 next to a RestartJob rule allowed:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `The JobSet "rl" is invalid: spec.replicatedJobs[0].replicas: Invalid value: 1025: `+
		`JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a `+
		`replicated job with replicas > 1024: keep replicas at most 1024`)
	if got := at(t.Get(ns, "jobset", "rl"), "spec", "replicatedJobs", 0, "replicas"); got != float64(1) {
		t.Errorf("stored replicas %v, want 1", got)
	}
	t.settle(ns, "rl")
	if got := t.Jobs(ns, "rl"); len(got) != 1 || got[0] != "rl-w-0" {
		t.Errorf("Jobs after the refused scale: %v, want only rl-w-0", got)
	}

	// (b) The same JobSet created with 1025 replicas: upstream's own CREATE validation refuses it.
	if err := c.RegisterWebhooks(nil); err != nil {
		t.Fatalf("emptying jobset-webhook's configurations: %v", err)
	}
	for _, kind := range []string{"validatingwebhookconfiguration", "mutatingwebhookconfiguration"} {
		if hooks := t.Kubectl("get", kind, "jobset-webhook", "-o", "jsonpath={.webhooks}"); hooks != "" {
			t.Fatalf("%s jobset-webhook still has webhooks: %s", kind, hooks)
		}
	}
	r = t.Try(restartJob("rc", 1025), nil, "create", "-n", ns, "-f", "-")
	if r.OK {
		t.Fatalf("upstream v0.12.0 created a JobSet of 1025 replicas next to a RestartJob rule:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	// Upstream answers its fmt.Errorf list as one Invalid status whose cause names no field.
	contains(t, "kubectl's error", r.Err, `The JobSet "rc" is invalid: <nil>: Internal error: JobSet cannot have a `+
		`failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with `+
		`replicas > 1024`)
}
