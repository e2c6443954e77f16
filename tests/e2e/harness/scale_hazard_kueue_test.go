package harness

// The Kueue hazard of docs/elastic.md on the real control plane with Kueue v0.17.0's manager
// running (kueue.go): what Kueue does to a JobSet it admitted when its replicas change, next to
// what jobset-webhook answers for the same edit.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Kueue's queue-name label on a running JobSet: a scale is a stop and a restart, warned (or
// refused by the policy's scaleHazards.deny: kueue).
func TestScaleHazardKueue(t *testing.T) { run(t, hazardKueue) }

// kueueQueues are a ResourceFlavor, a ClusterQueue of 10 CPUs for every namespace and the
// LocalQueue team-a in the case's namespace.
const kueueQueues = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: e2e-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: e2e-cluster-queue
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: e2e-flavor
      resources:
      - name: cpu
        nominalQuota: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: team-a
spec:
  clusterQueue: e2e-cluster-queue
`

// hazardKueue: Kueue's JobSet integration (pkg/controller/jobs/jobset) sums each replicatedJob's
// pods into a PodSet of its Workload (PodSets: replicas x parallelism). Its reconciler
// (pkg/controller/jobframework/reconciler.go, ensureOneWorkload) looks for a Workload that
// EquivalentToWorkload finds equal to the JobSet's PodSets; after a replicas change of a running
// JobSet there is none, so it logs "job with no matching workload, suspending", stops the JobSet
// (stopJob, StopReasonNoMatchingWorkload: spec.suspend true, pod templates restored from the old
// Workload) and deletes the old Workload; the next reconcile creates a Workload of the new counts,
// which the scheduler admits, and Kueue unsuspends the JobSet. Upstream's JobSet controller
// suspends its Jobs and resumes them (the same Jobs), and the Job controller deletes their Pods
// and creates new ones: a stop and a restart, not a resize. jobset-webhook warns of it on the scale, and with
// scaleHazards.deny: kueue refuses it, leaving the JobSet running as it was.
//
// A suspended JobSet is another matter: Kueue updates its Workload, not yet admitted, to the new
// counts in place (the toUpdate branch of ensureOneWorkload), and jobset-webhook gives no Kueue
// warning.
//
// Kueue does not refuse its kueue.x-k8s.io/elastic-job annotation on a JobSet (an earlier account
// said it did): its JobSet webhook (pkg/controller/jobs/jobset/jobset_webhook.go, validateCreate:
// jobframework.ValidateJobOnCreate) has no rule for it (the SparkApplication webhook has one:
// "elastic job is not supported in SparkApplication"), and validatedUpdateForEnabledWorkloadSlice
// (pkg/controller/jobframework/validation.go) only keeps it from being toggled once set. The
// annotation takes effect only with the alpha feature gate ElasticJobsViaWorkloadSlices
// (default off, pkg/features/kube_features.go; workloadslicing.Enabled), so here Kueue admits
// such a JobSet like any other, and its Workload is not marked elastic. Kueue's JobSet webhooks
// run for this case's namespace, so the acceptance is Kueue's own; a queue name Kueue refuses
// (ValidateQueueName: not a DNS subdomain) shows that they do.
func hazardKueue(t *T) {
	if t.c.KueueBinary() == "" {
		t.Skip("no " + filepath.Join(t.c.Bin, "kueue") + " (scripts/dev e2e-go builds it from tests/e2e/kueue)")
	}
	ns := t.Namespace("hazard")
	k, err := t.c.StartKueue(ns)
	t.Cleanup(func() {
		for _, err := range k.Stop() {
			t.Errorf("removing Kueue: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("Kueue: %v (log %s)", err, filepath.Join(t.c.LogDir(), "kueue.log"))
	}
	if r := t.Try(kueueQueues, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("Kueue's queues: %s", r.Err)
	}
	queued := func(name, queue string) *jobSetBuilder {
		return jobSet(name).suspend(false).set("metadata.labels", map[string]any{"kueue.x-k8s.io/queue-name": queue}).
			replicatedJob(workers(1).container("resources", map[string]any{"requests": map[string]any{"cpu": "100m"}}))
	}

	// Created running: Kueue's mjobset.kb.io suspends it (ApplyDefaultForSuspend), its scheduler
	// admits its Workload, and Kueue unsuspends it.
	r := t.Try(queued("kr", "team-a").yaml(), nil, "create", "-n", ns, "-f", "-", "-o", "json")
	if !r.OK {
		t.Fatalf("create kr: %s", r.Err)
	}
	var created map[string]any
	json.Unmarshal([]byte(r.Out), &created)
	if got := at(created, "spec", "suspend"); got != true {
		t.Errorf("kr as created: spec.suspend %v, want true (Kueue's defaulting webhook)", got)
	}
	first := t.admittedWorkload(ns, "kr", 1)
	t.WaitJobs(ns, "kr", []string{"kr-workers-0"}, 60*time.Second)
	pod := t.podUID(ns, "kr-workers-0")
	job := at(t.Get(ns, "job", "kr-workers-0"), "metadata", "uid")

	// The same scale refused by a serve whose policy denies the class kueue: nothing happens.
	t.refusedByKueuePolicy(ns, "kr")
	if got := at(t.Get(ns, "jobset", "kr"), "spec", "suspend"); got != false {
		t.Errorf("kr after the refused scale: spec.suspend %v, want false", got)
	}
	if w := t.workloadsOf(ns, "kr"); len(w) != 1 || w[0].UID != first.UID {
		t.Errorf("kr's Workloads after the refused scale: %+v, want only %s", w, first.Name)
	}
	if got := t.podUID(ns, "kr-workers-0"); got != pod {
		t.Errorf("the Pod of kr-workers-0 was replaced after the refused scale")
	}

	// Allowed with the harness's policy, and warned.
	watch := t.watchSuspend(ns, "kr")
	r = t.scaleAt(ns, "kr", 0, 2)
	if !r.OK {
		t.Fatalf("scale refused: %s", r.Err)
	}
	hasWarning(t, r.Err, `replicatedJob "workers" scaled up from 1 to 2: Kueue manages this JobSet (label `+
		`kueue.x-k8s.io/queue-name=team-a): a running JobSet whose replicas change matches no Workload, so Kueue `+
		`suspends it and queues it again, stopping every Job, rather than resizing it`)
	second := t.admittedWorkload(ns, "kr", 2)
	t.WaitJobs(ns, "kr", []string{"kr-workers-0", "kr-workers-1"}, 60*time.Second)
	t.waitSuspend(ns, "kr", false)
	seen := watch()
	t.Logf("kr's spec.suspend, each version the API server sent from the scale on: %v", seen)
	if s := strings.Join(seen, " "); !strings.HasPrefix(s, "false true") || !strings.HasSuffix(s, "true false") {
		t.Errorf("kr's spec.suspend went %v after the scale, want false, true, false (stopped, then admitted again)", seen)
	}
	// The Workload's name is the JobSet's name and a hash of its uid, so the new one has the old
	// one's name: its uid tells them apart.
	if second.UID == first.UID {
		t.Errorf("kr kept Workload %s (uid %s): Kueue resized it in place", first.Name, first.UID)
	}
	if got := t.podUID(ns, "kr-workers-0"); got == pod {
		t.Errorf("the Pod of kr-workers-0 was kept: the JobSet was resized, not stopped")
	}
	// Upstream v0.12.0 suspends the Jobs of a suspended JobSet and resumes them
	// (suspendJobs, resumeJobsIfNecessary: pkg/controllers/jobset_controller.go) rather than recreating them;
	// the Job controller deletes a suspended Job's Pods.
	if got := at(t.Get(ns, "job", "kr-workers-0"), "metadata", "uid"); got != job {
		t.Errorf("Job kr-workers-0 was created again (uid %v, then %v), want it suspended and resumed", job, got)
	}
	t.kueueLogged(k, "job with no matching workload, suspending")
	// Kueue's events and upstream's (SuspendedJobs, ResumeJobs) in the order they were first
	// recorded (Kueue's recorder counts a repeated one up: CreatedWorkload and Started, same
	// message, appear once, before the scale).
	events := t.Kubectl("get", "events", "-n", ns, "--field-selector", "involvedObject.kind=JobSet,involvedObject.name=kr",
		"--sort-by=.metadata.creationTimestamp", "-o", `jsonpath={range .items[*]}{.reason}: {.message} (x{.count}){"\n"}{end}`)
	t.Logf("kr's events:\n%s", events)
	inOrder(t, "kr's events", events,
		"Stopped: No matching Workload; restoring pod templates according to existent Workload",
		"DeletedWorkload: Deleted not matching Workload: "+ns+"/"+first.Name,
		"SuspendedJobs: jobset is suspended",
		"ResumeJobs: jobset is resumed")
	t.Logf("Kueue v0.17.0 stopped kr (Workload uid %s of 1 pod deleted, the Pod of kr-workers-0 replaced) and admitted "+
		"it again with Workload uid %s of 2 pods: a restart, not a resize", first.UID, second.UID)

	// A suspended JobSet, in a LocalQueue that does not exist, is never admitted: its Workload
	// follows the scale in place, and no Kueue warning is given.
	if r := t.Try(queued("ks", "no-such-queue").suspend(true).yaml(), nil, "create", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create ks: %s", r.Err)
	}
	pending := t.pendingWorkload(ns, "ks", 1)
	r = t.scaleAt(ns, "ks", 0, 2)
	if !r.OK {
		t.Fatalf("scale of the suspended JobSet refused: %s", r.Err)
	}
	if strings.Contains(r.Err, "Kueue") {
		t.Errorf("a suspended JobSet got the Kueue warning:\n%s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled up from 1 to 2`)
	if w := t.pendingWorkload(ns, "ks", 2); w.UID != pending.UID {
		t.Errorf("ks's Workload was replaced (%s, then %s), want it updated in place", pending.Name, w.Name)
	}

	// Kueue's elastic-job annotation on a JobSet: accepted by Kueue's webhooks and ignored.
	bad := queued("kb", "Team_A")
	if r := t.Try(bad.yaml(), nil, "create", "-n", ns, "-f", "-"); r.OK {
		t.Errorf("Kueue's webhook accepted queue-name Team_A: its webhooks do not run for %s", ns)
	} else {
		contains(t, "kubectl's error", r.Err, `admission webhook "vjobset.kb.io" denied the request: metadata.labels[kueue.x-k8s.io/queue-name]`)
	}
	elastic := queued("ke", "team-a").set("metadata.annotations", map[string]any{"kueue.x-k8s.io/elastic-job": "true"})
	if r := t.Try(elastic.yaml(), nil, "create", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("a JobSet with kueue.x-k8s.io/elastic-job refused: %s", r.Err)
	}
	if w := t.admittedWorkload(ns, "ke", 1); w.Annotations["kueue.x-k8s.io/elastic-job"] != "" {
		t.Errorf("ke's Workload %s is marked elastic: %v", w.Name, w.Annotations)
	}
	t.Logf("Kueue v0.17.0 accepted kueue.x-k8s.io/elastic-job on JobSet ke and admitted it as any other " +
		"(ElasticJobsViaWorkloadSlices is off by default)")
}

// refusedByKueuePolicy tries the scale of jobset's first replicatedJob from 1 to 2 through a
// second serve whose policy has scaleHazards.deny: [kueue], registered in place of the harness's
// for the attempt (as hazardRestartJobLimit does), and checks the refusal.
func (t *T) refusedByKueuePolicy(ns, jobset string) {
	t.Helper()
	c := t.c
	first := c.servingWebhook()
	if first == nil {
		t.Fatalf("no serve of the harness is running")
	}
	policy := filepath.Join(c.Work, "policy-deny-kueue.yaml")
	if err := os.WriteFile(policy, []byte("scaleHazards:\n  deny: [kueue]\n"), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	w, err := c.StartWebhookWithPolicy("127.0.0.1", policy)
	if err != nil {
		t.Fatalf("serve with scaleHazards.deny: [kueue]: %v", err)
	}
	defer func() {
		if err := c.RegisterWebhooks([]*Webhook{first}); err != nil {
			t.Errorf("registering the harness's serve again: %v", err)
		}
		w.p.stop(10 * time.Second)
	}()
	if err := c.RegisterWebhooks([]*Webhook{w}); err != nil {
		t.Fatalf("registering the serve with scaleHazards.deny: [kueue]: %v", err)
	}
	r := t.scaleAt(ns, jobset, 0, 2)
	if r.OK {
		t.Fatalf("scale allowed with scaleHazards.deny: [kueue]:\n%s", r.Err)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `spec.replicatedJobs[0].replicas: Forbidden: scaled up from 1 to 2: Kueue manages this `+
		`JobSet (label kueue.x-k8s.io/queue-name=team-a): a running JobSet whose replicas change matches no Workload, so `+
		`Kueue suspends it and queues it again, stopping every Job, rather than resizing it; the policy refuses it `+
		`(scaleHazards.deny: kueue)`)
}

// kueueWorkload is what a case reads of one Workload.
type kueueWorkload struct {
	Name, UID   string
	Counts      []int // spec.podSets[].count
	Admitted    bool
	Annotations map[string]string
}

// workloadsOf lists the Workloads in ns that jobset owns.
func (t *T) workloadsOf(ns, jobset string) []kueueWorkload {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name, UID       string
				Annotations     map[string]string
				OwnerReferences []struct{ Kind, Name string }
			}
			Spec   struct{ PodSets []struct{ Count int } }
			Status struct {
				Conditions []struct{ Type, Status string }
			}
		}
	}
	out := t.Kubectl("get", "workloads.kueue.x-k8s.io", "-n", ns, "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("Workloads: %v", err)
	}
	var ws []kueueWorkload
	for _, it := range list.Items {
		owned := false
		for _, o := range it.Metadata.OwnerReferences {
			owned = owned || (o.Kind == "JobSet" && o.Name == jobset)
		}
		if !owned {
			continue
		}
		w := kueueWorkload{Name: it.Metadata.Name, UID: it.Metadata.UID, Annotations: it.Metadata.Annotations}
		for _, ps := range it.Spec.PodSets {
			w.Counts = append(w.Counts, ps.Count)
		}
		for _, cond := range it.Status.Conditions {
			w.Admitted = w.Admitted || (cond.Type == "Admitted" && cond.Status == "True")
		}
		ws = append(ws, w)
	}
	return ws
}

// admittedWorkload waits until jobset has exactly one Workload, admitted, of one PodSet of
// count pods, and its JobSet runs (spec.suspend false).
func (t *T) admittedWorkload(ns, jobset string, count int) kueueWorkload {
	t.Helper()
	w := t.oneWorkload(ns, jobset, count, true)
	t.waitSuspend(ns, jobset, false)
	return w
}

// pendingWorkload waits until jobset has exactly one Workload, not admitted, of count pods.
func (t *T) pendingWorkload(ns, jobset string, count int) kueueWorkload {
	t.Helper()
	return t.oneWorkload(ns, jobset, count, false)
}

func (t *T) oneWorkload(ns, jobset string, count int, admitted bool) kueueWorkload {
	t.Helper()
	var ws []kueueWorkload
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		ws = t.workloadsOf(ns, jobset)
		if len(ws) == 1 && len(ws[0].Counts) == 1 && ws[0].Counts[0] == count && ws[0].Admitted == admitted {
			return ws[0]
		}
	}
	t.Fatalf("%s's Workloads after 60s: %+v, want one of %d pods, admitted %t", jobset, ws, count, admitted)
	return kueueWorkload{}
}

// waitSuspend waits until the JobSet's spec.suspend is want.
func (t *T) waitSuspend(ns, jobset string, want bool) {
	t.Helper()
	var got any
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if got = at(t.Get(ns, "jobset", jobset), "spec", "suspend"); got == want {
			return
		}
	}
	t.Fatalf("%s: spec.suspend %v after 60s, want %t", jobset, got, want)
}

// podUID is the uid of the one Pod of a Job (waited for, up to 60 s).
func (t *T) podUID(ns, job string) string {
	t.Helper()
	var out string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		out = strings.TrimSpace(t.Kubectl("get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+job,
			"-o", "jsonpath={.items[*].metadata.uid}"))
		if out != "" && !strings.Contains(out, " ") {
			return out
		}
	}
	t.Fatalf("Pods of Job %s after 60s: %q, want one", job, out)
	return ""
}

// watchSuspend watches the JobSet (kubectl get --watch) and returns a function that stops the
// watch and gives spec.suspend of each version the API server sent, in order, a repeated value
// once: the suspension and resumption of a restart take a second or less, which polling misses.
func (t *T) watchSuspend(ns, jobset string) func() []string {
	ctx, cancel := context.WithCancel(t.c.Ctx)
	cmd := exec.CommandContext(ctx, t.c.KubectlPath, "get", "jobset", jobset, "-n", ns, "--watch",
		"-o", `jsonpath={.spec.suspend}{"\n"}`)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+t.c.Kubeconfig)
	out := &lockedBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("kubectl get --watch: %v", err)
	}
	// The watch's first line is the JobSet as it is now.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(out.String(), "\n") {
			break
		}
	}
	return func() []string {
		time.Sleep(time.Second) // the last events on their way
		cancel()
		cmd.Wait()
		var seen []string
		for _, v := range strings.Fields(out.String()) {
			if len(seen) == 0 || seen[len(seen)-1] != v {
				seen = append(seen, v)
			}
		}
		return seen
	}
}

// lockedBuffer is a bytes.Buffer that a child's output goroutine writes while the case reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// inOrder checks that text holds each of wants, in this order.
func inOrder(t *T, what, text string, wants ...string) {
	t.Helper()
	rest := text
	for _, w := range wants {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%s: no %q after the ones before it:\n%s", what, w, strings.TrimSpace(text))
			return
		}
		rest = rest[i+len(w):]
	}
}

// kueueLogged waits until Kueue's log holds want.
func (t *T) kueueLogged(k *Kueue, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if b, _ := os.ReadFile(k.Log()); strings.Contains(string(b), want) {
			return
		}
	}
	t.Errorf("Kueue did not log %q within 30s (log %s)", want, k.Log())
}
