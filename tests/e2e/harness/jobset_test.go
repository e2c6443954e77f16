package harness

// Manifests of the cases, built as values and written as YAML: a builder per kind, as upstream's
// pkg/util/testing/wrappers.go has them (MakeJobSet("js").ReplicatedJob(...).Obj()), e.g.
//
//	jobSet("js").suspend(true).replicatedJob(workers(2).image("busybox:1.37")).yaml()

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// jobSetBuilder is a JobSet manifest (jobset.x-k8s.io/v1alpha2) under construction.
type jobSetBuilder struct {
	obj  map[string]any
	jobs []*replicatedJobBuilder
}

// jobSet is a JobSet named name with no replicatedJobs yet.
func jobSet(name string) *jobSetBuilder {
	return &jobSetBuilder{obj: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2",
		"kind":       "JobSet",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{},
	}}
}

// replicatedJob appends replicatedJobs, in order.
func (b *jobSetBuilder) replicatedJob(rjs ...*replicatedJobBuilder) *jobSetBuilder {
	b.jobs = append(b.jobs, rjs...)
	return b
}

// suspend writes spec.suspend, false included.
func (b *jobSetBuilder) suspend(s bool) *jobSetBuilder { return b.set("spec.suspend", s) }

// failurePolicy sets spec.failurePolicy.maxRestarts (without one upstream fails the JobSet on
// the first failed Job; with one it restarts it).
func (b *jobSetBuilder) failurePolicy(maxRestarts int) *jobSetBuilder {
	return b.set("spec.failurePolicy", map[string]any{"maxRestarts": maxRestarts})
}

// set puts value at a dotted path of maps (created as needed), such as "spec.volumeClaimPolicies"
// or "status".
func (b *jobSetBuilder) set(path string, value any) *jobSetBuilder {
	setPath(b.obj, path, value)
	return b
}

// object is the manifest as a value (maps, lists, scalars).
func (b *jobSetBuilder) object() map[string]any {
	obj := deepCopy(b.obj).(map[string]any)
	rjs := []any{}
	for _, rj := range b.jobs {
		rjs = append(rjs, rj.object())
	}
	obj["spec"].(map[string]any)["replicatedJobs"] = rjs
	return obj
}

func (b *jobSetBuilder) yaml() string { return toYAML(b.object()) }

// replicatedJobBuilder is one entry of spec.replicatedJobs.
type replicatedJobBuilder struct{ obj map[string]any }

// replicatedJob is `replicas` Jobs of a pod template with restartPolicy Never and one container
// "main", busybox:1.36, that sleeps 600 s (no kubelet runs it anyway).
func replicatedJob(name string, replicas int) *replicatedJobBuilder {
	return &replicatedJobBuilder{obj: map[string]any{
		"name":     name,
		"replicas": replicas,
		"template": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"restartPolicy": "Never",
			"containers": []any{map[string]any{
				"name": "main", "image": "busybox:1.36", "command": []any{"sleep", "600"}}},
		}}}},
	}}
}

// workers is the replicatedJob of most cases: "workers", `replicas` Jobs of one pod each
// (parallelism 1, completions 1, backoffLimit 0).
func workers(replicas int) *replicatedJobBuilder {
	return replicatedJob("workers", replicas).job("parallelism", 1).job("completions", 1).job("backoffLimit", 0)
}

// job sets a field of the Job template's spec (parallelism, backoffLimit, completionMode, ...).
func (r *replicatedJobBuilder) job(field string, value any) *replicatedJobBuilder {
	setPath(r.obj, "template.spec."+field, value)
	return r
}

// container sets a field of the first container (image, resources, volumeMounts, ...).
func (r *replicatedJobBuilder) container(field string, value any) *replicatedJobBuilder {
	c := at(r.obj, "template", "spec", "template", "spec", "containers", 0).(map[string]any)
	c[field] = value
	return r
}

// set puts value at a dotted path of the entry (dependsOn, groupName, ...).
func (r *replicatedJobBuilder) set(path string, value any) *replicatedJobBuilder {
	setPath(r.obj, path, value)
	return r
}

func (r *replicatedJobBuilder) image(image string) *replicatedJobBuilder {
	return r.container("image", image)
}

func (r *replicatedJobBuilder) object() map[string]any { return deepCopy(r.obj).(map[string]any) }

func setPath(obj map[string]any, path string, value any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	obj[keys[len(keys)-1]] = value
}

// toYAML writes a value of maps, lists and scalars as block YAML: keys sorted, strings
// double-quoted (JSON's quoting is YAML's), empty maps and lists as {} and [].
func toYAML(v any) string {
	var b strings.Builder
	writeYAML(&b, v, "")
	return b.String()
}

func writeYAML(b *strings.Builder, v any, indent string) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := yamlScalar(v[k]); ok {
				fmt.Fprintf(b, "%s%s: %s\n", indent, k, s)
				continue
			}
			fmt.Fprintf(b, "%s%s:\n", indent, k)
			next := indent + "  "
			if _, isList := v[k].([]any); isList {
				next = indent // a list under a key may sit at the key's indentation
			}
			writeYAML(b, v[k], next)
		}
	case []any:
		for _, item := range v {
			if s, ok := yamlScalar(item); ok {
				fmt.Fprintf(b, "%s- %s\n", indent, s)
				continue
			}
			// The item at two more spaces, its first line's indentation turned into "- ".
			var sub strings.Builder
			writeYAML(&sub, item, indent+"  ")
			b.WriteString(indent + "- " + strings.TrimPrefix(sub.String(), indent+"  "))
		}
	default:
		s, _ := yamlScalar(v)
		fmt.Fprintf(b, "%s%s\n", indent, s)
	}
}

// yamlScalar is v written on one line, and whether v is written on one line (a scalar, or an
// empty map or list).
func yamlScalar(v any) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		return "{}", len(v) == 0
	case []any:
		return "[]", len(v) == 0
	case string:
		b, _ := json.Marshal(v)
		return string(b), true
	default:
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(b), true
	}
}

func TestJobSetBuilderWritesBlockYAML(t *testing.T) {
	got := jobSet("js").suspend(true).
		replicatedJob(workers(2).image("busybox:1.37").container("resources", map[string]any{})).
		set("status", map[string]any{"foo": 1}).yaml()
	want := `apiVersion: "jobset.x-k8s.io/v1alpha2"
kind: "JobSet"
metadata:
  name: "js"
spec:
  replicatedJobs:
  - name: "workers"
    replicas: 2
    template:
      spec:
        backoffLimit: 0
        completions: 1
        parallelism: 1
        template:
          spec:
            containers:
            - command:
              - "sleep"
              - "600"
              image: "busybox:1.37"
              name: "main"
              resources: {}
            restartPolicy: "Never"
  suspend: true
status:
  foo: 1
`
	if got != want {
		t.Errorf("yaml() =\n%s\nwant\n%s", got, want)
	}
}
