package harness

// The scale-down notice (docs/elastic.md, "Notice before deletion") on the real control plane,
// next to upstream JobSet v0.12.0's manager: the Job controller creates the Pods (Pending: there
// is no kubelet), so the notice's annotations land on real Pod objects, as a downward-API volume
// would read them. Short notices keep the cases short.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// 4 -> 2 with a 20 s notice: every Job stays until the deadline, the leaving Jobs and every worker
// Pod carry the notice, a controller restarted during it keeps the deadline, then Jobs 3 and 2
// are deleted in that order and the notice ends.
func TestScaleDownNotice(t *testing.T) { run(t, sdNotice) }

// A scale back up during the notice deletes nothing and takes the notice off; a notice annotation
// that is not whole seconds is refused.
func TestScaleDownNoticeScaleBackUp(t *testing.T) { run(t, sdNoticeScaleBackUp) }

const (
	noticeSecondsKey  = "elastic.jobset-webhook.io/scale-down-notice-seconds"
	noticeStateKey    = "elastic.jobset-webhook.io/scale-down-notice-state"
	noticeReplicasKey = "elastic.jobset-webhook.io/scale-down-replicas"
	noticeLeavingKey  = "elastic.jobset-webhook.io/scale-down-leaving"
	noticeDeadlineKey = "elastic.jobset-webhook.io/scale-down-deadline"
)

// noticeJobSet creates JobSet name (workers of `replicas` Jobs) that asks for a notice of
// `seconds`, and waits for its Jobs and their Pods.
func noticeJobSet(t *T, name string, replicas, seconds int) (ns string) {
	ns = t.Namespace("notice")
	js := appliedJobSet(name, replicas, "busybox:1.36").
		set("metadata.annotations", map[string]any{noticeSecondsKey: strconv.Itoa(seconds)})
	if r := t.Try(js.yaml(), nil, "create", "-n", ns, "-f", "-"); !r.OK {
		t.Fatalf("create: %s", r.Err)
	}
	t.WaitJobs(ns, name, jobNames(name, replicas), 60*time.Second)
	for deadline := time.Now().Add(30 * time.Second); len(t.annotationsOf(ns, "pods", name)) < replicas; {
		if time.Now().After(deadline) {
			t.Fatalf("no %d Pods for the Jobs of %s", replicas, name)
		}
		time.Sleep(300 * time.Millisecond)
	}
	return ns
}

// annotationsOf maps each Job or Pod (kind "jobs" or "pods") of the JobSet to its annotations.
func (t *T) annotationsOf(ns, kind, jobset string) map[string]map[string]string {
	out := t.Kubectl("get", kind, "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name="+jobset, "-o", "json")
	var list struct {
		Items []struct {
			Metadata struct {
				Name        string
				Annotations map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v", err)
	}
	m := map[string]map[string]string{}
	for _, i := range list.Items {
		m[i.Metadata.Name] = i.Metadata.Annotations
	}
	return m
}

// noticeOf is "replicas leaving deadline" of one object's notice annotations, "" without them.
func noticeOf(a map[string]string) string {
	if a[noticeDeadlineKey] == "" {
		return ""
	}
	return a[noticeReplicasKey] + " " + a[noticeLeavingKey] + " " + a[noticeDeadlineKey]
}

// waitPodsNoticed waits until every Pod of the JobSet carries the same notice, and returns it.
func (t *T) waitPodsNoticed(ns, jobset string, timeout time.Duration) string {
	var pods map[string]map[string]string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		pods = t.annotationsOf(ns, "pods", jobset)
		seen := map[string]bool{}
		for _, a := range pods {
			seen[noticeOf(a)] = true
		}
		if len(seen) == 1 && !seen[""] {
			for n := range seen {
				return n
			}
		}
	}
	t.Fatalf("the Pods of %s do not all carry one notice after %v: %v", jobset, timeout, pods)
	return ""
}

// eventMessages are the messages of the namespace's Events of one reason.
func (t *T) eventMessages(ns, reason string) []string {
	out := t.Kubectl("get", "events", "-n", ns, "--field-selector", "reason="+reason,
		"-o", "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}")
	return strings.Split(strings.TrimSpace(out), "\n")
}

// runNoticeExample runs the worked example (docs/examples/scale-down-notice/watch-notice.sh) once
// on the annotations of the Pod whose name starts with podPrefix, written as a downward-API volume
// holds them: no kubelet runs here to project them, so the file is written as the kubelet's
// fieldpath.FormatMap writes it (k8s.io/kubernetes pkg/fieldpath/fieldpath.go: one `key="value"`
// line per annotation, sorted, the value quoted as Go's %q). The marker must appear, saying the
// Job leaves by the deadline.
func (t *T) runNoticeExample(pods map[string]map[string]string, podPrefix, index, deadline string) {
	t.Helper()
	var annotations map[string]string
	for name, a := range pods {
		if strings.HasPrefix(name, podPrefix) {
			annotations = a
		}
	}
	if annotations == nil {
		t.Fatalf("no Pod %s* among %v", podPrefix, pods)
	}
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var file strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&file, "%s=%q\n", k, annotations[k])
	}
	dir := t.TempDir()
	noticeFile, checkpoints := filepath.Join(dir, "annotations"), filepath.Join(dir, "checkpoints")
	if err := os.WriteFile(noticeFile, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", filepath.Join(t.c.Root, "docs", "examples", "scale-down-notice", "watch-notice.sh"))
	cmd.Env = append(os.Environ(), "NOTICE_FILE="+noticeFile, "CHECKPOINT_DIR="+checkpoints,
		"JOB_INDEX="+index, "ONCE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("watch-notice.sh: %v: %s", err, out)
	}
	marker, err := os.ReadFile(filepath.Join(checkpoints, "checkpoint-"+deadline))
	if err != nil {
		t.Fatalf("watch-notice.sh wrote no marker for the deadline %s (%v); it said: %s", deadline, err, out)
	}
	if want := "deadline=" + deadline + " replicas=2 leaving=2,3 job=" + index + " leaves\n"; string(marker) != want {
		t.Errorf("marker %q, want %q", marker, want)
	}
	t.Logf("the worked example on Pod %s*'s notice: %s", podPrefix, strings.TrimSpace(string(out)))
}

func sdNotice(t *T) {
	ns := noticeJobSet(t, "nt", 4, 20)
	before := t.jobUIDs(ns, "nt")
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	start := time.Now()
	t.patchReplicas(ns, "nt", 2)

	notice := t.waitPodsNoticed(ns, "nt", 10*time.Second)
	fields := strings.Fields(notice)
	if len(fields) != 3 || fields[0] != "2" || fields[1] != "2,3" {
		t.Fatalf("the Pods' notice is %q, want replicas 2, leaving 2,3 and a deadline", notice)
	}
	deadline, err := time.Parse(time.RFC3339, fields[2])
	if err != nil {
		t.Fatalf("deadline %q: %v", fields[2], err)
	}
	// Whole seconds, at least the period after the patch, and soon after it.
	if d := deadline.Sub(start); d < 19*time.Second || d > 25*time.Second {
		t.Errorf("deadline %v is %v after the patch, want about 20 s", deadline, d)
	}
	jobs := t.annotationsOf(ns, "jobs", "nt")
	for name, a := range jobs {
		want := ""
		if name == "nt-workers-2" || name == "nt-workers-3" {
			want = notice
		}
		if noticeOf(a) != want {
			t.Errorf("Job %s's notice %q, want %q", name, noticeOf(a), want)
		}
	}
	if at(t.Get(ns, "jobset", "nt"), "metadata", "annotations", noticeStateKey) == nil {
		t.Errorf("the JobSet has no %s", noticeStateKey)
	}
	t.runNoticeExample(t.annotationsOf(ns, "pods", "nt"), "nt-workers-3-", "3", fields[2])
	if got := ctl.metric("jobset_scale_down_notices"); got != 1 {
		t.Errorf("jobset_scale_down_notices = %v, want 1", got)
	}
	if got := ctl.metric("jobset_scale_down_notice_deadline_seconds"); got < 10 || got > 21 {
		t.Errorf("jobset_scale_down_notice_deadline_seconds = %v, want 10 .. 20", got)
	}

	// A new process takes over (the Lease is handed over on SIGTERM) and reads the same deadline.
	ctl.p.stop(5 * time.Second)
	ctl2 := startController(t, ns, "b")
	defer ctl2.p.stop(5 * time.Second)
	ctl2.waitLeader(t, 20*time.Second)

	// Every Job stays until the deadline; then 3 and 2 go.
	var gone time.Time
	for limit := deadline.Add(15 * time.Second); time.Now().Before(limit); time.Sleep(200 * time.Millisecond) {
		now := time.Now()
		got := t.Jobs(ns, "nt")
		if len(got) == 4 {
			continue
		}
		if now.Before(deadline) {
			t.Fatalf("Jobs %v at %v, before the deadline %v", got, now, deadline)
		}
		if len(got) == 2 {
			gone = now
			break
		}
	}
	if gone.IsZero() {
		t.Fatalf("Jobs %v 15 s after the deadline, want nt-workers-0 and -1", t.Jobs(ns, "nt"))
	}
	t.Logf("deadline %v; Jobs 3 and 2 seen gone %v after it", deadline.Format(time.RFC3339), gone.Sub(deadline))
	after := t.jobUIDs(ns, "nt")
	for _, n := range jobNames("nt", 2) {
		if after[n] != before[n] {
			t.Errorf("%s was replaced", n)
		}
	}
	msgs, who := t.scaleEvents(ns)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "Deleted Job nt-workers-3 ") ||
		!strings.HasPrefix(msgs[1], "Deleted Job nt-workers-2 ") {
		t.Errorf("Events: %q, want nt-workers-3 then nt-workers-2", msgs)
	}
	for _, w := range who {
		if w != "b" {
			t.Errorf("a Job was deleted by %q, want the controller started during the notice (b)", w)
		}
	}
	if got := t.eventMessages(ns, "ScaleDownNoticeStarted"); len(got) != 1 {
		t.Errorf("ScaleDownNoticeStarted Events: %q, want one (the restart started no second notice)", got)
	}

	// The notice ends: the staying Pods and the JobSet are cleared.
	for limit := time.Now().Add(15 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		pods := t.annotationsOf(ns, "pods", "nt")
		noticed := 0
		for _, a := range pods {
			if noticeOf(a) != "" {
				noticed++
			}
		}
		state := at(t.Get(ns, "jobset", "nt"), "metadata", "annotations", noticeStateKey)
		if noticed == 0 && state == nil {
			break
		}
		if time.Now().After(limit) {
			t.Fatalf("after the deletions %d Pods still carry the notice, state %v", noticed, state)
		}
	}
	if got := t.eventMessages(ns, "ScaleDownNoticeEnded"); len(got) != 1 ||
		!strings.Contains(got[0], "Jobs nt-workers-2, nt-workers-3 deleted after "+fields[2]) {
		t.Errorf("ScaleDownNoticeEnded Events: %q", got)
	}
	if got := ctl2.metric("jobset_scale_down_notices"); got != 0 {
		t.Errorf("jobset_scale_down_notices = %v after the notice, want 0", got)
	}
	t.stable(ns, "nt", 0, 2*time.Second)
}

func sdNoticeScaleBackUp(t *T) {
	ns := noticeJobSet(t, "nb", 4, 6)
	before := t.jobUIDs(ns, "nb")
	ctl := startController(t, ns, "a")
	defer ctl.p.stop(5 * time.Second)
	ctl.waitLeader(t, 20*time.Second)
	t.patchReplicas(ns, "nb", 2)
	fields := strings.Fields(t.waitPodsNoticed(ns, "nb", 10*time.Second))
	deadline, err := time.Parse(time.RFC3339, fields[len(fields)-1])
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.patchReplicas(ns, "nb", 4)
	// Well past the deadline, nothing was deleted and nothing carries the notice.
	time.Sleep(time.Until(deadline.Add(3 * time.Second)))
	after := t.jobUIDs(ns, "nb")
	for _, n := range jobNames("nb", 4) {
		if after[n] == "" || after[n] != before[n] {
			t.Errorf("%s: uid %q, was %q", n, after[n], before[n])
		}
	}
	for kind, objs := range map[string]map[string]map[string]string{
		"Job": t.annotationsOf(ns, "jobs", "nb"), "Pod": t.annotationsOf(ns, "pods", "nb")} {
		for name, a := range objs {
			if noticeOf(a) != "" {
				t.Errorf("%s %s still carries the notice %q", kind, name, noticeOf(a))
			}
		}
	}
	if got := t.eventMessages(ns, "ScaleDownNoticeCancelled"); len(got) != 1 ||
		!strings.Contains(got[0], "scaled back up to 4") {
		t.Errorf("ScaleDownNoticeCancelled Events: %q", got)
	}
	if got := ctl.metric("jobset_scale_down_jobs_deleted_total"); got != 0 {
		t.Errorf("jobset_scale_down_jobs_deleted_total = %v, want 0", got)
	}

	// A notice that is not whole seconds would count as absent (no notice at all): refused at the
	// annotation, on UPDATE (kubectl annotate) and on CREATE.
	const notWhole = `must be a whole number of seconds from 0 to 604800, in digits only ("300" for 5m); ` +
		`the scale-down controller would give no notice`
	r := t.Try("", nil, "annotate", "-n", ns, "jobset", "nb", "--overwrite", noticeSecondsKey+"=5m")
	if r.OK {
		t.Errorf("annotation %s=5m allowed:\n%s", noticeSecondsKey, r.Out)
	}
	contains(t, "kubectl's error", r.Err, `The JobSet "nb" is invalid: metadata.annotations[`+noticeSecondsKey+
		`]: Invalid value: "5m": `+notWhole)
	js := appliedJobSet("nc", 1, "busybox:1.36").set("metadata.annotations", map[string]any{noticeSecondsKey: "1.5"})
	r = t.Try(js.yaml(), nil, "create", "-n", ns, "-f", "-")
	if r.OK {
		t.Errorf("JobSet with %s=1.5 created:\n%s", noticeSecondsKey, r.Out)
	}
	contains(t, "kubectl's error", r.Err, `metadata.annotations[`+noticeSecondsKey+`]: Invalid value: "1.5": `+notWhole)
}
