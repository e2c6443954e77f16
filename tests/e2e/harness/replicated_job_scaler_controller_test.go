package harness

// The scale-down controller applying ReplicatedJobScalers on the real control plane: upstream's
// v0.12.0 manager creates the Jobs a scale up asks for, the controller deletes those a scale down
// leaves, kube-controller-manager's HorizontalPodAutoscaler controller reads and writes the
// scaler's /scale, our webhook refuses what it refuses of any edit, and the garbage collector
// deletes a JobSet's scalers with it.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestReplicatedJobScalerController(t *testing.T) { run(t, scalerController) }

func TestReplicatedJobScalerAutoCreate(t *testing.T) { run(t, scalerAutoCreate) }

// waitScaler polls the scaler until ok(scaler) holds, or fails with what it last saw.
func (t *T) waitScaler(ns, name, what string, timeout time.Duration, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	var s map[string]any
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		r := t.Try("", nil, "get", "-n", ns, "rjs", name, "-o", "json")
		if !r.OK {
			continue // not created yet
		}
		if err := json.Unmarshal([]byte(r.Out), &s); err == nil && ok(s) {
			return s
		}
	}
	b, _ := json.Marshal(at(s, "status"))
	t.Fatalf("scaler %s/%s: not %s after %v; status %s", ns, name, what, timeout, b)
	return nil
}

func scalerCondition(s map[string]any, typ string) (status, reason, message string) {
	conds, _ := at(s, "status", "conditions").([]any)
	for _, c := range conds {
		if at(c, "type") == typ {
			status, _ = at(c, "status").(string)
			reason, _ = at(c, "reason").(string)
			message, _ = at(c, "message").(string)
		}
	}
	return
}

// scalerEvents are "reason: message" of the Events on one scaler.
func (t *T) scalerEvents(ns, name string) []string {
	out := t.Kubectl("get", "events", "-n", ns, "--field-selector",
		"involvedObject.kind=ReplicatedJobScaler,involvedObject.name="+name, "-o", "json")
	var list struct {
		Items []struct{ Reason, Message string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v", err)
	}
	var got []string
	for _, e := range list.Items {
		got = append(got, e.Reason+": "+e.Message)
	}
	return got
}

func scalerController(t *T) {
	installScalerCRD(t)
	ns := newJobSet(t, "el", 2, false)
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)

	scaler := `apiVersion: elastic.jobset-webhook.io/v1alpha1
kind: ReplicatedJobScaler
metadata:
  name: el-workers
spec:
  jobSetName: el
  replicatedJobName: workers
  replicas: 2
  minReplicas: 1
  maxReplicas: 4
`
	if r := t.Try(scaler, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("apply scaler: %s", r.Err)
	}
	// The controller makes the JobSet its owner and reports the two Jobs in place.
	s := t.waitScaler(ns, "el-workers", "owned and ready", 30*time.Second, func(s map[string]any) bool {
		st, _, _ := scalerCondition(s, "Ready")
		return at(s, "metadata", "ownerReferences", 0, "kind") == "JobSet" && st == "True"
	})
	if at(s, "metadata", "ownerReferences", 0, "uid") != at(t.Get(ns, "jobset", "el"), "metadata", "uid") {
		t.Errorf("owner of the scaler: %v; want JobSet el's uid", at(s, "metadata", "ownerReferences"))
	}

	// kubectl scale up: the controller patches the JobSet, upstream's manager creates Job 2.
	t.Kubectl("scale", "-n", ns, "rjs/el-workers", "--replicas", "3")
	t.WaitJobs(ns, "el", jobNames("el", 3), 60*time.Second)
	raw := "/apis/elastic.jobset-webhook.io/v1alpha1/namespaces/" + ns +
		"/replicatedjobscalers/el-workers/scale"
	t.waitScaler(ns, "el-workers", "at 3", 30*time.Second, func(s map[string]any) bool {
		return at(s, "status", "replicas") == float64(3)
	})
	sc := scaleOf(t, raw)
	wantSelector := "jobset.sigs.k8s.io/jobset-name=el,jobset.sigs.k8s.io/replicatedjob-name=workers," +
		"batch.kubernetes.io/job-completion-index=0"
	if sc.Spec.Replicas != 3 || sc.Status.Replicas != 3 || sc.Status.Selector != wantSelector {
		t.Errorf("/scale after the scale up: spec %d, status %d, selector %q; want 3, 3, %q",
			sc.Spec.Replicas, sc.Status.Replicas, sc.Status.Selector, wantSelector)
	}

	// kubectl scale down: the controller patches the JobSet and deletes Jobs 2 then 1.
	t.Kubectl("scale", "-n", ns, "rjs/el-workers", "--replicas", "1")
	t.WaitJobs(ns, "el", jobNames("el", 1), 60*time.Second)
	t.waitScaler(ns, "el-workers", "at 1", 30*time.Second, func(s map[string]any) bool {
		st, _, _ := scalerCondition(s, "Ready")
		return at(s, "status", "replicas") == float64(1) && st == "True"
	})
	events := strings.Join(t.scalerEvents(ns, "el-workers"), "\n")
	contains(t, "the scaler's Events", events, "Scaled: Scaled replicatedJob workers of JobSet el from 2 to 3")
	contains(t, "the scaler's Events", events, "Scaled: Scaled replicatedJob workers of JobSet el from 3 to 1")
	// Our webhook's warnings on the controller's patches, which the API server sends back as
	// Warning headers (apiserver v0.37.2, pkg/endpoints/filters/warning.go), reach the scaler's
	// user as Warning Events.
	contains(t, "the scaler's Events", events,
		`ScaleWarning: replicatedJob "workers" scaled up from 2 to 3: the JobSet controller will create Job`)
	contains(t, "the scaler's Events", events,
		`ScaleWarning: replicatedJob "workers" scaled down from 3 to 1: `)
	if got := ctl.metric(`jobset_scaler_scales_total{result="applied"}`); got != 2 {
		t.Errorf(`jobset_scaler_scales_total{result="applied"} = %v, want 2`, got)
	}

	// A HorizontalPodAutoscaler targeting the scaler. kubernetes v1.37
	// pkg/controller/podautoscaler/horizontal.go, reconcileAutoscaler: a Scale read through the
	// scale client sets AbleToScale True with reason SucceededGetScale; without a metrics server
	// the metrics fail (ScalingActive False) and it scales nothing. Its first look may fail with
	// FailedGetScale: kube-controller-manager's RESTMapper learns of a CRD made after it started
	// only when it is reset (cmd/kube-controller-manager/app/controllermanager.go resets it every
	// 30 s), so the case waits for True.
	hpa := `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: el-workers
spec:
  scaleTargetRef:
    apiVersion: elastic.jobset-webhook.io/v1alpha1
    kind: ReplicatedJobScaler
    name: el-workers
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 80
`
	if r := t.Try(hpa, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("apply hpa: %s", r.Err)
	}
	var able string
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		h := t.Get(ns, "hpa", "el-workers")
		conds, _ := at(h, "status", "conditions").([]any)
		for _, c := range conds {
			if at(c, "type") == "AbleToScale" {
				able = fmt.Sprintf("%v %v", at(c, "status"), at(c, "reason"))
			}
		}
		if strings.HasPrefix(able, "True") {
			break
		}
	}
	if able != "True SucceededGetScale" {
		t.Errorf("HPA AbleToScale: %q; want True SucceededGetScale", able)
	}
	t.Kubectl("delete", "hpa", "-n", ns, "el-workers")

	// The scale an HPA makes: horizontal.go's reconcileAutoscaler writes the Scale it read back
	// with the new spec.replicas (scaleNamespacer.Update, a PUT of /scale).
	var got map[string]any
	if err := json.Unmarshal([]byte(t.Kubectl("get", "--raw", raw)), &got); err != nil {
		t.Fatalf("%v", err)
	}
	got["spec"] = map[string]any{"replicas": 2}
	b, _ := json.Marshal(got)
	if r := t.Try(string(b), nil, "replace", "--raw", raw, "-f", "-"); !r.OK {
		t.Fatalf("PUT /scale: %s", r.Err)
	}
	t.WaitJobs(ns, "el", jobNames("el", 2), 60*time.Second)

	// A scale past maxReplicas: refused by the CRD's rule before anything reaches the JobSet.
	r := t.Try("", nil, "scale", "-n", ns, "rjs/el-workers", "--replicas", "5")
	if r.OK {
		t.Errorf("kubectl scale to 5 past maxReplicas 4 succeeded")
	}
	contains(t, "kubectl scale past maxReplicas", r.Err, "replicas must be less than or equal to maxReplicas")

	// A scale our webhook refuses: the JobSet has finished (update.cpp's terminal-state rule,
	// upstream's jobSetFinished stops reconciling it). The refusal lands in ScalingLimited and a
	// Warning Event; nothing loops.
	for _, j := range jobNames("el", 2) {
		t.finishJob(ns, j, true)
	}
	t.waitTerminal(ns, "el", "Completed", 30*time.Second)
	t.Kubectl("scale", "-n", ns, "rjs/el-workers", "--replicas", "3")
	s = t.waitScaler(ns, "el-workers", "refused", 30*time.Second, func(s map[string]any) bool {
		st, _, _ := scalerCondition(s, "ScalingLimited")
		return st == "True"
	})
	_, reason, message := scalerCondition(s, "ScalingLimited")
	if reason != "ScaleRefused" {
		t.Errorf("ScalingLimited reason %q; want ScaleRefused", reason)
	}
	contains(t, "ScalingLimited's message", message, "denied the request")
	contains(t, "ScalingLimited's message", message,
		"Cannot mutate replicas when JobSet is in a terminal state (Completed or Failed)")
	contains(t, "the scaler's Events", strings.Join(t.scalerEvents(ns, "el-workers"), "\n"),
		"ScaleRefused: Cannot scale replicatedJob workers of JobSet el from 2 to 3: ")
	time.Sleep(3 * time.Second)
	if got := ctl.metric(`jobset_scaler_scales_total{result="refused"}`); got != 1 {
		t.Errorf(`jobset_scaler_scales_total{result="refused"} = %v after 3 s; want 1 (no loop)`, got)
	}

	// The JobSet deleted: the garbage collector deletes its scaler.
	t.Kubectl("delete", "jobset", "-n", ns, "el", "--wait=false")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if r := t.Try("", nil, "get", "-n", ns, "rjs", "el-workers"); !r.OK && strings.Contains(r.Err, "NotFound") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("scaler el-workers still exists 60 s after its JobSet was deleted")
		}
	}
}

// A JobSet annotated elastic.jobset-webhook.io/scalers=true gets a scaler per replicatedJob.
func scalerAutoCreate(t *T) {
	installScalerCRD(t)
	ns := t.Namespace("autoscaler")
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	js := appliedJobSet("auto", 2, "busybox:1.36").
		set("metadata.annotations", map[string]any{"elastic.jobset-webhook.io/scalers": "true"}).yaml()
	if r := t.Try(js, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.WaitJobs(ns, "auto", jobNames("auto", 2), 60*time.Second)
	s := t.waitScaler(ns, "auto-workers", "ready", 30*time.Second, func(s map[string]any) bool {
		st, _, _ := scalerCondition(s, "Ready")
		return st == "True"
	})
	if at(s, "spec", "replicas") != float64(2) || at(s, "metadata", "ownerReferences", 0, "name") != "auto" {
		t.Errorf("created scaler: spec %v, owners %v; want replicas 2, owned by auto", at(s, "spec"),
			at(s, "metadata", "ownerReferences"))
	}
	t.Kubectl("scale", "-n", ns, "rjs/auto-workers", "--replicas", "3")
	t.WaitJobs(ns, "auto", jobNames("auto", 3), 60*time.Second)
}
