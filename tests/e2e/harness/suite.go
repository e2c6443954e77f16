package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Suite runs named cases; each passes, fails or is skipped (a missing tool or input), and the
// counts end the run as "N passed, N failed, N skipped".
type Suite struct {
	c        *Cluster
	filter   *regexp.Regexp
	examples string
	rollout  bool

	passed, failed, skipped int
	ns                      int
}

// T is one case's handle.
type T struct {
	name    string
	c       *Cluster
	errors  []string
	skipped string
	notes   []string
}

type stopCase struct{}

func (t *T) Errorf(format string, args ...any) {
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	panic(stopCase{})
}
func (t *T) Skip(reason string) {
	t.skipped = reason
	panic(stopCase{})
}

// Note records what a case measured or saw, printed with its result.
func (t *T) Note(format string, args ...any) { t.notes = append(t.notes, fmt.Sprintf(format, args...)) }

func (s *Suite) Run(name string, f func(t *T)) {
	if s.filter != nil && !s.filter.MatchString(name) {
		return
	}
	if s.c.ctx.Err() != nil {
		s.failed++
		fmt.Printf("FAIL  %s: time limit reached before it ran\n", name)
		return
	}
	t := &T{name: name, c: s.c}
	start := time.Now()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopCase); !ok {
					t.errors = append(t.errors, fmt.Sprintf("panic: %v", r))
				}
			}
		}()
		f(t)
	}()
	d := time.Since(start).Seconds()
	switch {
	case len(t.errors) > 0:
		s.failed++
		fmt.Printf("FAIL  %s (%.1fs)\n", name, d)
		for _, e := range t.errors {
			fmt.Printf("      %s\n", strings.ReplaceAll(e, "\n", "\n      "))
		}
	case t.skipped != "":
		s.skipped++
		fmt.Printf("SKIP  %s: %s\n", name, t.skipped)
	default:
		s.passed++
		fmt.Printf("ok    %s (%.1fs)\n", name, d)
	}
	for _, n := range t.notes {
		fmt.Printf("      note: %s\n", strings.ReplaceAll(n, "\n", "\n      "))
	}
}

// Namespace makes a fresh namespace for one case; labels as "k=v".
func (t *T) Namespace(prefix string, labels ...string) string {
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
	out := t.Kubectl("get", "-n", ns, kind, name, "-o", "json")
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%v", err)
	}
	return obj
}

// Jobs lists the names of the Jobs of one JobSet.
func (t *T) Jobs(ns, jobset string) []string {
	out := t.Kubectl("get", "jobs", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name="+jobset,
		"-o", "jsonpath={.items[*].metadata.name}")
	names := strings.Fields(out)
	sort.Strings(names)
	return names
}

// WaitJobs waits until the JobSet's Jobs are exactly want (sorted), or fails.
func (t *T) WaitJobs(ns, jobset string, want []string, timeout time.Duration) {
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

// jobsetYAML is a small JobSet: one replicatedJob "workers" of `replicas` Jobs of one pod.
func jobsetYAML(name string, replicas int, image string, suspend bool) string {
	return fmt.Sprintf(`apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: %s
spec:
  suspend: %v
  replicatedJobs:
  - name: workers
    replicas: %d
    template:
      spec:
        parallelism: 1
        completions: 1
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: main
              image: %s
              command: ["sleep", "600"]
`, name, suspend, replicas, image)
}

func contains(t *T, what, text, want string) {
	if !strings.Contains(text, want) {
		t.Errorf("%s does not contain %q:\n%s", what, want, strings.TrimSpace(text))
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
