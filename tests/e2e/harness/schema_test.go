package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The schema cases: the JobSet CRD's structural schema, which the API server applies to the
// whole object (embedded Job and Pod templates included) on CREATE and to the new object of an
// UPDATE, with ratcheting, before any validating webhook (apiextensions-apiserver
// pkg/registry/customresource/strategy.go, Validate and ValidateUpdate: the schema through
// kube-openapi pkg/validation/validate, then listtype.ValidateListSetsAndMaps). validate and
// check must give the same answer in the same words.

const podPath = "spec.replicatedJobs[0].template.spec.template.spec"

// What the API server adds after an error of a blocking type, the CRD's CEL rules not run
// (apiextensions-apiserver pkg/registry/customresource/strategy.go, hasBlockingErr).
const celBlocked = "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// CREATE: required fields of the CRD and list-map keys, refused by kubectl create; validate and
// check (a new JobSet) agree. A replicatedJob without a template, or a Job template without a pod
// template, is given one by jobset-webhook's mutating webhook before the API server applies the
// schema (the pod template's defaults, docs/policy.md), so the field the cluster finds missing is
// the pod template's containers; validate models the same order.
func TestSchemaCreate(t *testing.T) {
	cases := []struct {
		name     string
		manifest func() string
		want     string
	}{
		{"replicatedJob without template", func() string {
			return jobSet("no-template").replicatedJob(&replicatedJobBuilder{obj: map[string]any{
				"name": "workers", "replicas": 1}}).yaml()
		}, podPath + ".containers: Required value"},
		{"Job template without pod template", func() string {
			return jobSet("no-pod").replicatedJob(&replicatedJobBuilder{obj: map[string]any{
				"name": "workers", "replicas": 1,
				"template": map[string]any{"spec": map[string]any{"parallelism": 1}}}}).yaml()
		}, podPath + ".containers: Required value"},
		{"pod template without containers", func() string {
			return jobSet("no-containers").replicatedJob(&replicatedJobBuilder{obj: map[string]any{
				"name": "workers", "replicas": 1,
				"template": map[string]any{"spec": map[string]any{"template": map[string]any{
					"spec": map[string]any{"restartPolicy": "Never"}}}}}}).yaml()
		}, podPath + ".containers: Required value"},
		{"container without name", func() string {
			w := workers(1)
			delete(at(w.obj, "template", "spec", "template", "spec", "containers", 0).(map[string]any), "name")
			return jobSet("no-name").replicatedJob(w).yaml()
		}, podPath + ".containers[0].name: Required value"},
		{"two containers named alike", func() string {
			w := workers(1)
			spec := at(w.obj, "template", "spec", "template", "spec").(map[string]any)
			spec["containers"] = append(spec["containers"].([]any),
				map[string]any{"name": "main", "image": "busybox:1.36"})
			return jobSet("dup-containers").replicatedJob(w).yaml()
		}, podPath + `.containers[1]: Duplicate value: {"name":"main"}`},
		{"two volumes named alike", func() string {
			w := workers(1)
			spec := at(w.obj, "template", "spec", "template", "spec").(map[string]any)
			v := map[string]any{"name": "data", "emptyDir": map[string]any{}}
			spec["volumes"] = []any{v, deepCopy(v)}
			return jobSet("dup-volumes").replicatedJob(w).yaml()
		}, podPath + `.volumes[1]: Duplicate value: {"name":"data"}`},
		// The CRD's CEL rules of an object: the API server omits the value (field.OmitValueType in
		// apiextensions-apiserver v0.37.2, pkg/apiserver/schema/cel/validation.go, Validate), so
		// ErrorBody prints "Invalid value: <message>", no "object".
		{"startupPolicy InOrder with dependsOn (CEL)", func() string {
			return jobSet("cel-order").set("spec.startupPolicy", map[string]any{"startupPolicyOrder": "InOrder"}).
				replicatedJob(replicatedJob("a", 1)).
				replicatedJob(replicatedJob("b", 1).set("dependsOn", []any{map[string]any{"name": "a", "status": "Ready"}})).yaml()
		}, "spec: Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive"},
		{"volumeClaimPolicies template with a namespace (CEL)", func() string {
			return jobSet("cel-claim").set("spec.volumeClaimPolicies", []any{map[string]any{
				"templates": []any{map[string]any{"metadata": map[string]any{"name": "data", "namespace": "other"}}}}}).
				replicatedJob(workers(1)).yaml()
		}, "spec.volumeClaimPolicies[0]: Invalid value: namespace cannot be set for VolumeClaimPolicies templates"},
		// A rule that selects a field the object leaves out does not evaluate: cel-go's "no such
		// key" (k8s.io/apiserver v0.36 pkg/cel/common/valuesunstructured.go, unstructuredMap.Get),
		// reported at the rule's node with its type as the value and the rule's message
		// (apiextensions-apiserver v0.36 pkg/apiserver/schema/cel/validation.go,
		// validateExpressions: "%v evaluating rule: %v").
		{"startupPolicy InOrder without replicatedJobs (CEL, no such key)", func() string {
			obj := jobSet("cel-no-rjobs").set("spec.startupPolicy", map[string]any{"startupPolicyOrder": "InOrder"}).object()
			delete(obj["spec"].(map[string]any), "replicatedJobs")
			return toYAML(obj)
		}, `spec: Invalid value: "object": no such key: replicatedJobs evaluating rule: StartupPolicy and DependsOn APIs are mutually exclusive`},
		{"a claim template without metadata (CEL, no such key)", func() string {
			return jobSet("cel-no-meta").set("spec.volumeClaimPolicies", []any{map[string]any{
				"templates": []any{map[string]any{"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}}}}}}).
				replicatedJob(workers(1)).yaml()
		}, `spec.volumeClaimPolicies[0]: Invalid value: "object": no such key: metadata evaluating rule: namespace cannot be set for VolumeClaimPolicies templates`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(t *T) { createRefusedAlike(t, c.manifest(), c.want) })
		})
	}
}

// UPDATE: the new object against the schema; an invalid value reads as the API server's type or
// bound error, not as a change of an immutable field.
func TestSchemaUpdate(t *testing.T) {
	cases := []struct {
		name    string
		suspend bool
		edit    func(*jobSetBuilder, *replicatedJobBuilder)
		want    string
	}{
		{"ttlSecondsAfterFinished below its minimum", false, func(b *jobSetBuilder, _ *replicatedJobBuilder) {
			b.set("spec.ttlSecondsAfterFinished", -5)
		}, "spec.ttlSecondsAfterFinished: Invalid value: -5: spec.ttlSecondsAfterFinished in body should be greater than or equal to 0"},
		{"suspend as a string", false, func(b *jobSetBuilder, _ *replicatedJobBuilder) {
			b.set("spec.suspend", "yes")
		}, `spec.suspend: Invalid value: "string": spec.suspend in body must be of type boolean: "string"`},
		{"a boolean nodeSelector value in a suspended JobSet", true, func(_ *jobSetBuilder, w *replicatedJobBuilder) {
			w.set("template.spec.template.spec.nodeSelector", map[string]any{"disk": true})
		}, podPath + `.nodeSelector.disk: Invalid value: "boolean": ` + podPath + `.nodeSelector.disk in body must be of type string: "boolean"`},
		// kube-openapi's typeValidator holds a boolean against an int32's format first
		// (validate/type.go), and its numberValidator checks an int32's range with a plain error
		// that apiextensions reports at no field (validate/values.go IsValueValidAgainstRange).
		{"a boolean for an int32", false, func(b *jobSetBuilder, _ *replicatedJobBuilder) {
			b.set("spec.ttlSecondsAfterFinished", true)
		}, `spec.ttlSecondsAfterFinished: Invalid value: "": spec.ttlSecondsAfterFinished in body must be of type int32: ""`},
		{"an int32 out of range", false, func(_ *jobSetBuilder, w *replicatedJobBuilder) {
			w.job("backoffLimit", 3000000000)
		}, `<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicatedJobs[0].template.spec.backoffLimit`},
		{"a boolean image", false, func(_ *jobSetBuilder, w *replicatedJobBuilder) {
			w.image("busybox:1.36").container("image", true)
		}, podPath + `.containers[0].image: Invalid value: "boolean": ` + podPath + `.containers[0].image in body must be of type string: "boolean"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(t *T) {
				name := "schema-update"
				ns := t.Namespace("schema")
				old := appliedJobSet(name, 1, "busybox:1.36").suspend(c.suspend).yaml()
				if r := t.Try(old, nil, "apply", "-n", ns, "-f", "-"); !r.OK {
					t.Fatalf("create: %s", r.Err)
				}
				w := workers(1).image("busybox:1.36").job("completionMode", "Indexed")
				b := jobSet(name).suspend(c.suspend)
				c.edit(b, w)
				refusedAlike(t, ns, old, b.replicatedJob(w).yaml(), c.want)
			})
		})
	}
}

// createRefusedAlike creates manifest in a fresh namespace and asserts that the cluster refuses
// it with want in its error, and that validate and check (a new JobSet) exit 1 with the same words.
// The namespace is one where upstream's mjobset.kb.io does not default, as validate and check
// model the cluster (docs/e2e.md): upstream's webhook answers with the JobSet re-encoded from its
// Go type, which writes `containers: null` and a container's `name: ""` into the object before
// the API server applies the schema.
func createRefusedAlike(t *T, manifest, want string) {
	ns := t.Namespace("schema", upstreamDefaultingOff)
	r := t.Try(manifest, nil, "create", "-n", ns, "-f", "-")
	if r.OK {
		t.Errorf("create succeeded; want a refusal with %q:\n%s", want, r.Out)
	}
	t.Logf("cluster: kubectl create: %s", strings.TrimSpace(r.Err))
	contains(t, "kubectl's error", r.Err, want)
	if t.Failed() {
		return
	}
	code, out := validatePredicts(t, manifest)
	t.Logf("validate: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("validate exits %d; the cluster refuses", code)
	}
	contains(t, "validate's output", out, want)
	if strings.Contains(r.Err, celBlocked) {
		contains(t, "validate's output", out, celBlocked)
	}
	code, out = checkPredicts(t, "", manifest)
	t.Logf("check: exit %d: %s", code, out)
	if code != 1 {
		t.Errorf("check exits %d; the cluster refuses", code)
	}
	contains(t, "check's output", out, want)
}

// validatePredicts runs `build/jobset-webhook validate FILE` and returns its exit code and output;
// skips the case when the binary is missing.
func validatePredicts(t *T, manifest string) (int, string) {
	return validateWith(t, manifest)
}

// validateWith is validatePredicts with more flags of validate (--format json, ...).
func validateWith(t *T, manifest string, flags ...string) (int, string) {
	exe := filepath.Join(t.c.Root, "build", "jobset-webhook")
	if !fileExists(exe) {
		t.Skip("build/jobset-webhook is missing")
	}
	dir := filepath.Join(t.c.Work, "validate-"+strings.ReplaceAll(t.Name(), "/", "-"))
	os.MkdirAll(dir, 0o755)
	f := filepath.Join(dir, "manifest.yaml")
	os.WriteFile(f, []byte(manifest), 0o644)
	out, err := exec.Command(exe, append(append([]string{"validate"}, flags...), f)...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("validate: %v", err)
	}
	return code, strings.TrimSpace(string(out))
}
