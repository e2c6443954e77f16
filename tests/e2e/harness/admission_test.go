package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

const imagePath = "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"

// The admission cases: jobset-webhook called by the real API server, driven by kubectl.

// Scale up with kubectl patch: allowed, warned, the Job of the new index created.
func TestPatchScaleUp(t *testing.T) { run(t, scaleUpPatch) }

// Scale down with kubectl apply: allowed, warned, the Jobs above the count remain.
func TestApplyScaleDown(t *testing.T) { run(t, scaleDownApply) }

// Scale up with kubectl apply, down with a kubectl merge patch.
func TestApplyScaleUpPatchDown(t *testing.T) { run(t, scaleApplyThenPatch) }

// Scale with kubectl apply of a manifest that leaves completionMode to the defaults.
func TestApplyWithoutCompletionMode(t *testing.T) { run(t, scaleApplyDefaultsLeftOut) }

// Server-side apply three times leaves generation alone; a scale by server-side apply.
func TestServerSideApplyStable(t *testing.T) { run(t, serverSideApplyStable) }

// kubectl apply again of a JobSet with volumeClaimPolicies that upstream's defaulting stored:
// allowed.
func TestReapplyVolumeClaimPolicies(t *testing.T) { run(t, reapplyVolumeClaimPolicies) }

// Image change refused, kubectl names the field.
func TestRefuseImage(t *testing.T) { run(t, refuseImage) }

// Renamed replicatedJob refused, kubectl names the field.
func TestRefuseRename(t *testing.T) { run(t, refuseRename) }

// Reordered replicatedJobs refused, kubectl names the field.
func TestRefuseReorder(t *testing.T) { run(t, refuseReorder) }

// kubectl apply --dry-run=server: scale allowed and not stored, image change refused.
func TestDryRun(t *testing.T) { run(t, dryRun) }

// kubectl edit through KUBE_EDITOR: scale allowed.
func TestEdit(t *testing.T) { run(t, edit) }

// A suspended JobSet updated as Kueue does (nodeSelector, tolerations, labels): allowed.
func TestKueueUpdate(t *testing.T) { run(t, kueue) }

// Unknown container field: kubectl apply fails strict validation; check agrees.
func TestUnknownFieldStrict(t *testing.T) { run(t, strictUnknownField) }

// Unknown container field with --validate=false: pruned, allowed; check agrees.
func TestUnknownFieldPruned(t *testing.T) { run(t, prunedUnknownField) }

// Unknown fields in status and a PVC template: kubectl create refused; check agrees.
func TestUnknownFieldsInStatusAndPVC(t *testing.T) { run(t, unknownStatusAndPVC) }

// A quantity outside the CRD's pattern: kubectl apply refused at limits.cpu; check agrees.
func TestQuantityOutsidePattern(t *testing.T) { run(t, quantityOutsidePattern) }

// A quantity the pattern accepts and ParseQuantity refuses: refused at limits[cpu]; check agrees.
func TestQuantityUndecodable(t *testing.T) { run(t, quantityUndecodable) }

// kubectl apply of each example of $JOBSET_UPSTREAM_EXAMPLES (-examples), one subtest per file,
// each into a namespace of its own where only jobset-webhook defaults; skipped when the folder
// is absent.
func TestUpstreamExamples(t *testing.T) {
	dir := *examplesFlag
	if !fileExists(dir) {
		t.Skip(dir + " is absent (a clone alone has no shared/; set JOBSET_UPSTREAM_EXAMPLES)")
	}
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		t.Run(rel, func(t *testing.T) { run(t, func(t *T) { example(t, f) }) })
	}
	if len(files) == 0 {
		run(t, func(t *T) { t.Fatalf("no .yaml file in %s", dir) })
	}
}

func example(t *T, file string) {
	ns := t.Namespace("ex", upstreamDefaultingOff)
	r := t.Try("", nil, "apply", "-n", ns, "-f", file)
	if !r.OK && strings.Contains(r.Err, `no matches for kind "Workload" in version "scheduling.k8s.io/v1alpha2"`) {
		t.Skip("needs the alpha API scheduling.k8s.io/v1alpha2 (Workload, PodGroup), off in kube-apiserver v1.37 by default")
	}
	if !r.OK && strings.Contains(r.Err, "feature gate is disabled") {
		// Upstream v0.12.0 and jobset-webhook's default policy both keep the alpha gates
		// (RestartJob, InPlaceRestart) off: refusing is the right answer here.
		t.Logf("refused, as with the gates off: %s", strings.TrimSpace(r.Err))
		contains(t, "kubectl's error", r.Err, "<nil>: Internal error: ")
		return
	}
	if !r.OK {
		t.Fatalf("kubectl apply -f %s failed:\n%s", file, r.Err)
	}
	names := regexp.MustCompile(`jobset\.jobset\.x-k8s\.io/(\S+) created`).FindAllStringSubmatch(r.Out, -1)
	if len(names) == 0 {
		t.Fatalf("no JobSet created:\n%s", r.Out)
	}
	for _, m := range names {
		js := t.Get(ns, "jobset", m[1])
		// D1, D2, D3 of docs/policy.md: not defaulted by the CRD's schema, and upstream's
		// defaulting webhook skips this namespace.
		if at(js, "spec", "successPolicy", "operator") == nil {
			t.Errorf("%s: spec.successPolicy.operator not defaulted", m[1])
		}
		if at(js, "spec", "startupPolicy", "startupPolicyOrder") == nil {
			t.Errorf("%s: spec.startupPolicy.startupPolicyOrder not defaulted", m[1])
		}
		rjobs, _ := at(js, "spec", "replicatedJobs").([]any)
		for i := range rjobs {
			if at(rjobs, i, "template", "spec", "completionMode") == nil {
				t.Errorf("%s: spec.replicatedJobs[%d].template.spec.completionMode not defaulted", m[1], i)
			}
		}
	}
}

// newJobSet creates a JobSet in a fresh namespace and waits for its Jobs.
func newJobSet(t *T, name string, replicas int, suspend bool) (ns string) {
	ns = t.Namespace("scale")
	r := t.Try(applied(name, replicas, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.WaitJobs(ns, name, jobNames(name, replicas), 60*time.Second)
	return ns
}

// plain is the JobSet most cases use: workers(replicas) of image, spec.suspend false written out.
func plain(name string, replicas int, image string) *jobSetBuilder {
	return jobSet(name).suspend(false).replicatedJob(workers(replicas).image(image))
}

// plainYAML is plain as YAML.
func plainYAML(name string, replicas int, image string) string {
	return plain(name, replicas, image).yaml()
}

// applied is the manifest a user keeps for `kubectl apply`: plain with the one default that
// sits inside the replicatedJobs list written out (completionMode). kubectl apply sends a JSON
// merge patch for a custom resource, which replaces the whole list with the manifest's; a default
// filled in on CREATE by a mutating webhook and absent from the manifest is then removed, and the
// UPDATE is judged as removing it (docs/e2e.md, "What the real API server does").
func applied(name string, replicas int, image string) string {
	return appliedJobSet(name, replicas, image).yaml()
}

func appliedJobSet(name string, replicas int, image string) *jobSetBuilder {
	return jobSet(name).suspend(false).replicatedJob(workers(replicas).image(image).job("completionMode", "Indexed"))
}

func jobNames(jobset string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("%s-workers-%d", jobset, i))
	}
	return out
}

func replicasPatch(n int) string {
	return fmt.Sprintf(`[{"op":"replace","path":"/spec/replicatedJobs/0/replicas","value":%d}]`, n)
}

func scaleUpPatch(t *T) {
	ns := newJobSet(t, "up", 2, false)
	r := t.Try("", nil, "patch", "-n", ns, "jobset", "up", "--type=json", "-p", replicasPatch(3))
	if !r.OK {
		t.Fatalf("patch refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err,
		`Warning: replicatedJob "workers" scaled up from 2 to 3: the JobSet controller will create Job up-workers-2`)
	t.WaitJobs(ns, "up", jobNames("up", 3), 60*time.Second)
}

// settle waits until the JobSet controller has seen the JobSet's latest generation: it writes
// no observedGeneration, so wait for a reconcile to have had time (its Jobs' list steady for 3 s).
func (t *T) settle(ns, jobset string) []string {
	prev := t.Jobs(ns, jobset)
	steady := time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		cur := t.Jobs(ns, jobset)
		if strings.Join(cur, " ") != strings.Join(prev, " ") {
			prev, steady = cur, time.Now()
		} else if time.Since(steady) > 3*time.Second {
			break
		}
	}
	return prev
}

func scaleDownApply(t *T) {
	ns := newJobSet(t, "down", 3, false)
	r := t.Try(applied("down", 1, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("apply refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err,
		`Warning: replicatedJob "workers" scaled down from 3 to 1: Jobs down-workers-1, down-workers-2 keep running (the JobSet controller deletes none)`)
	got := t.settle(ns, "down")
	if strings.Join(got, " ") != strings.Join(jobNames("down", 3), " ") {
		t.Errorf("Jobs after scale-down to 1: %v, want all three left in place (upstream deletes none)", got)
	}
	js := t.Get(ns, "jobset", "down")
	if at(js, "spec", "replicatedJobs", 0, "replicas") != float64(1) {
		t.Errorf("stored replicas = %v, want 1", at(js, "spec", "replicatedJobs", 0, "replicas"))
	}
}

func scaleApplyThenPatch(t *T) {
	ns := newJobSet(t, "both", 1, false)
	r := t.Try(applied("both", 3, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("apply refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err,
		`Warning: replicatedJob "workers" scaled up from 1 to 3: the JobSet controller will create Jobs both-workers-1, both-workers-2`)
	t.WaitJobs(ns, "both", jobNames("both", 3), 60*time.Second)
	r = t.Try("", nil, "patch", "-n", ns, "jobset", "both", "--type=merge", "-p",
		`{"spec":{"replicatedJobs":[{"name":"workers","replicas":2,"template":`+templateJSON("busybox:1.36")+`}]}}`)
	// A merge patch replaces the list too: the manifest-style template without completionMode.
	if !r.OK {
		t.Fatalf("merge patch refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled down from 3 to 2: Job both-workers-2 keeps running`)
}

// templateJSON is applied's Job template as JSON, for a merge patch (which replaces lists).
func templateJSON(image string) string {
	return mustJSON(workers(0).image(image).job("completionMode", "Indexed").object()["template"])
}

// scaleApplyDefaultsLeftOut: the manifest as most users write it (no completionMode). kubectl's
// merge patch replaces replicatedJobs whole, the API server re-applies the CRD schema's defaults
// only (replicas, groupName), and the CREATE-time default completionMode: Indexed is gone from the
// patched object; our mutating webhook gives it back on UPDATE (docs/install.md, "What the
// mutating webhook does on UPDATE"), so the scale is allowed and nothing else changes.
func scaleApplyDefaultsLeftOut(t *T) {
	ns := t.Namespace("scale")
	if r := t.Try(plainYAML("plain", 1, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	r := t.Try(plainYAML("plain", 2, "busybox:1.36"), nil, "apply", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("apply of replicas 2 refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled up from 1 to 2`)
	if mode := t.Kubectl("get", "jobset", "-n", ns, "plain", "-o",
		"jsonpath={.spec.replicatedJobs[0].template.spec.completionMode}"); mode != "Indexed" {
		t.Errorf("completionMode after the apply: %q, want Indexed", mode)
	}
	t.WaitJobs(ns, "plain", jobNames("plain", 2), 60*time.Second)
	code, out := checkPredicts(t, plainYAML("plain", 1, "busybox:1.36"),
		plainYAML("plain", 2, "busybox:1.36"))
	t.Logf("check: exit %d: %s", code, out)
	if code != 0 {
		t.Errorf("check exits %d; the cluster allows", code)
	}
}

// serverSideApplyStable: upstream registers its defaulting webhook for CREATE only because
// defaulting on UPDATE made server-side apply loop, the JobSet's generation growing on every
// apply of the same manifest (kubernetes-sigs/jobset issue 926). Ours gives back on UPDATE only
// what the stored object holds: the same manifest applied again changes nothing, and a scale
// through server-side apply is allowed.
func serverSideApplyStable(t *T) {
	ns := t.Namespace("ssa")
	apply := func(replicas int) Result {
		return t.Try(plainYAML("ssa", replicas, "busybox:1.36"), nil,
			"apply", "--server-side", "-n", ns, "-f", "-")
	}
	generation := func() string {
		return t.Kubectl("get", "jobset", "-n", ns, "ssa", "-o", "jsonpath={.metadata.generation}")
	}
	if r := apply(1); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	first := generation()
	for i := 0; i < 2; i++ {
		if r := apply(1); !r.OK {
			t.Fatalf("apply %d of the same manifest refused: %s", i+2, r.Err)
		}
	}
	if g := generation(); g != first {
		t.Errorf("generation after applying the same manifest three times: %s, was %s", g, first)
	}
	r := apply(2)
	if !r.OK {
		t.Fatalf("server-side apply of replicas 2 refused: %s", r.Err)
	}
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled up from 1 to 2`)
	t.Logf("generation %s after create and two identical applies, %s after the scale", first, generation())
	t.WaitJobs(ns, "ssa", jobNames("ssa", 2), 60*time.Second)
}

func refuseImage(t *T) {
	ns := newJobSet(t, "img", 1, false)
	r := t.Try("", nil, "patch", "-n", ns, "jobset", "img", "--type=json", "-p",
		`[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]`)
	if r.OK {
		t.Fatalf("image change allowed:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	// kubectl prints an Invalid status from its causes, as for the API server's own validation:
	// the webhook's name ("admission webhook ... denied the request") is in the message only.
	contains(t, "kubectl's error", r.Err, `The JobSet "img" is invalid: `+imagePath+`: Invalid value: "busybox:1.37": field is immutable`)
}

func refuseRename(t *T) {
	ns := newJobSet(t, "ren", 1, false)
	r := t.Try("", nil, "patch", "-n", ns, "jobset", "ren", "--type=json", "-p",
		`[{"op":"replace","path":"/spec/replicatedJobs/0/name","value":"trainers"}]`)
	if r.OK {
		t.Fatalf("rename allowed:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `The JobSet "ren" is invalid: spec.replicatedJobs: Forbidden: field is immutable: added "trainers"; removed "workers"`)
}

func refuseReorder(t *T) {
	ns := t.Namespace("reorder")
	two := plain("ord", 1, "busybox:1.36").replicatedJob(replicatedJob("ps", 1)).yaml()
	if r := t.Try(two, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	js := t.Get(ns, "jobset", "ord")
	rj := at(js, "spec", "replicatedJobs").([]any)
	swapped := []any{rj[1], rj[0]}
	patch := map[string]any{"spec": map[string]any{"replicatedJobs": swapped}}
	r := t.Try("", nil, "patch", "-n", ns, "jobset", "ord", "--type=merge", "-p", mustJSON(patch))
	if r.OK {
		t.Fatalf("reorder allowed:\n%s", r.Out)
	}
	t.Logf("kubectl printed: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `The JobSet "ord" is invalid: spec.replicatedJobs: Forbidden: field is immutable: replicatedJobs were reordered: [0] was "workers", now "ps"`)
}

func dryRun(t *T) {
	ns := newJobSet(t, "dry", 1, false)
	r := t.Try(applied("dry", 4, "busybox:1.36"), nil, "apply", "--dry-run=server", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("dry-run scale refused: %s", r.Err)
	}
	contains(t, "kubectl's output", r.Out, "jobset.jobset.x-k8s.io/dry configured (server dry run)")
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled up from 1 to 4`)
	if got := at(t.Get(ns, "jobset", "dry"), "spec", "replicatedJobs", 0, "replicas"); got != float64(1) {
		t.Errorf("dry run stored replicas %v", got)
	}
	r = t.Try(applied("dry", 1, "busybox:1.37"), nil, "apply", "--dry-run=server", "-n", ns, "-f", "-")
	if r.OK {
		t.Fatalf("dry-run image change allowed:\n%s", r.Out)
	}
	contains(t, "kubectl's error", r.Err, imagePath)
}

func edit(t *T) {
	ns := newJobSet(t, "ed", 2, false)
	// kubectl edit writes the object as YAML to a file and runs KUBE_EDITOR on it.
	script := filepath.Join(t.c.Work, "edit-replicas.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec sed -i 's/^    replicas: 2$/    replicas: 3/' \"$1\"\n"), 0o755)
	r := t.Try("", []string{"KUBE_EDITOR=" + script}, "edit", "-n", ns, "jobset", "ed")
	if !r.OK {
		t.Fatalf("kubectl edit failed: %s\n%s", r.Err, r.Out)
	}
	contains(t, "kubectl's output", r.Out, "jobset.jobset.x-k8s.io/ed edited")
	contains(t, "kubectl's stderr", r.Err, `Warning: replicatedJob "workers" scaled up from 2 to 3`)
	t.WaitJobs(ns, "ed", jobNames("ed", 3), 60*time.Second)
}

func kueue(t *T) {
	ns := t.Namespace("kueue")
	if r := t.Try(jobSet("kq").suspend(true).replicatedJob(workers(2)).yaml(), nil, "apply", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	// What Kueue's jobframework does when it admits a suspended JobSet: the pod templates get the
	// flavor's nodeSelector and tolerations and Kueue's labels, then suspend goes false.
	base := "/spec/replicatedJobs/0/template/spec/template"
	labels := `{"op":"add","path":"` + base + `/metadata/labels","value":{"kueue.x-k8s.io/podset":"workers"}}`
	if at(t.Get(ns, "jobset", "kq"), "spec", "replicatedJobs", 0, "template", "spec", "template", "metadata") == nil {
		labels = `{"op":"add","path":"` + base + `/metadata","value":{"labels":{"kueue.x-k8s.io/podset":"workers"}}}`
	}
	patch := `[
 {"op":"add","path":"` + base + `/spec/nodeSelector","value":{"cloud.example.com/flavor":"spot"}},
 {"op":"add","path":"` + base + `/spec/tolerations","value":[{"key":"spot","operator":"Exists","effect":"NoSchedule"}]},
 ` + labels + `]`
	r := t.Try("", nil, "patch", "-n", ns, "jobset", "kq", "--type=json", "-p", patch)
	if !r.OK {
		t.Fatalf("Kueue-style update of a suspended JobSet refused: %s", r.Err)
	}
	r = t.Try("", nil, "patch", "-n", ns, "jobset", "kq", "--type=merge", "-p", `{"spec":{"suspend":false}}`)
	if !r.OK {
		t.Fatalf("resume refused: %s", r.Err)
	}
	t.WaitJobs(ns, "kq", jobNames("kq", 2), 60*time.Second)
	sel := t.Kubectl("get", "job", "-n", ns, "kq-workers-0", "-o", "jsonpath={.spec.template.spec.nodeSelector}")
	contains(t, "Job kq-workers-0's nodeSelector", sel, "cloud.example.com/flavor")
}

// checkPredicts runs `build/jobset-webhook check --old OLD --new NEW [flags]` (runCheck).
func checkPredicts(t *T, old, new string, flags ...string) (int, string) {
	dir := filepath.Join(t.c.Work, "check-"+strings.ReplaceAll(t.Name(), "/", "-"))
	os.MkdirAll(dir, 0o755)
	oldF, newF := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
	os.WriteFile(oldF, []byte(old), 0o644)
	os.WriteFile(newF, []byte(new), 0o644)
	return runCheck(t, append([]string{"check", "--old", oldF, "--new", newF}, flags...)...)
}

// runCheck runs build/jobset-webhook with args and returns its exit code and output (stdout and
// stderr); skips the case when the binary is missing.
func runCheck(t *T, args ...string) (int, string) {
	exe := filepath.Join(t.c.Root, "build", "jobset-webhook")
	if !fileExists(exe) {
		t.Skip("build/jobset-webhook is missing")
	}
	out, err := exec.Command(exe, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("check: %v", err)
	}
	return code, strings.TrimSpace(string(out))
}

// withUnknownField is applied's manifest with `foo: bar` in its container.
func withUnknownField(name string, replicas int) string {
	return jobSet(name).suspend(false).replicatedJob(workers(replicas).job("completionMode", "Indexed").
		container("foo", "bar")).yaml()
}

func strictUnknownField(t *T) {
	ns := newJobSet(t, "strict", 1, false)
	old := applied("strict", 1, "busybox:1.36")
	new := withUnknownField("strict", 2)
	r := t.Try(new, nil, "apply", "-n", ns, "-f", "-")
	if r.OK {
		t.Errorf("apply with an unknown field succeeded:\n%s", r.Out)
	}
	t.Logf("cluster: kubectl apply: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, `unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo"`)
	// apiserver pkg/endpoints/handlers/patch.go: the patched object as the value of field "patch".
	contains(t, "kubectl's error", r.Err, `The request is invalid: patch: Invalid value: "{`)
	if t.Failed() {
		return
	}
	code, out := checkPredicts(t, old, new)
	t.Logf("check: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d; the cluster refuses (strict field validation)", code)
	}
	contains(t, "check's output", out, `patch: Invalid value: "{...}": strict decoding error: unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].foo"`)
}

func prunedUnknownField(t *T) {
	ns := newJobSet(t, "prune", 1, false)
	old := applied("prune", 1, "busybox:1.36")
	new := withUnknownField("prune", 2)
	r := t.Try(new, nil, "apply", "--validate=false", "-n", ns, "-f", "-")
	if !r.OK {
		t.Fatalf("apply --validate=false refused: %s", r.Err)
	}
	js := t.Get(ns, "jobset", "prune")
	if c := at(js, "spec", "replicatedJobs", 0, "template", "spec", "template", "spec", "containers", 0); c == nil {
		t.Fatalf("no container stored")
	} else if _, has := c.(map[string]any)["foo"]; has {
		t.Errorf("unknown field stored, not pruned")
	}
	if got := at(js, "spec", "replicatedJobs", 0, "replicas"); got != float64(2) {
		t.Errorf("replicas %v, want 2", got)
	}
	if t.Failed() {
		return
	}
	// kubectl's --validate=false is field validation Ignore, check's --field-validation=Ignore.
	code, out := checkPredicts(t, old, new, "--field-validation=Ignore")
	t.Logf("check --field-validation=Ignore: exit %d: %s", code, out)
	if code != 0 {
		t.Errorf("check exits %d; the cluster allows (pruned)", code)
	}
}

func mustJSON(v any) string {
	b, err := jsonMarshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
