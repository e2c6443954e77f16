// Command e2e starts a real control plane on loopback (etcd, kube-apiserver,
// kube-controller-manager), installs upstream JobSet's CRD and controller manager next to
// `jobset-webhook serve`, and either keeps it up for a person (`e2e cluster`) or drives it with
// kubectl (`e2e test`). Every process it starts runs in its own process group, dies with the
// harness (SIGKILL on parent death) and is stopped on exit, on SIGINT/SIGTERM and at the time
// limit. See docs/e2e.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"
	"time"
)

func usage() {
	fmt.Fprintf(os.Stderr, `usage: e2e cluster|test|stress [flags]
  cluster   bring the control plane up, print the KUBECONFIG line, wait for Ctrl-C
  test      bring it up, run the end-to-end cases with kubectl, print "N passed, N failed, N skipped"
  stress    bring it up and down --count times in a row, print "N of N starts passed"
`)
	flag.PrintDefaults()
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	root := fs.String("root", ".", "repository root (holds build/jobset-webhook and manifests/)")
	bin := fs.String("bin", "build-e2e/bin", "folder of the Go binaries (etcd, kube-apiserver, ...)")
	work := fs.String("work", "build-e2e/run", "folder for certificates, data, logs (emptied first)")
	crd := fs.String("jobset-dir", "", "upstream JobSet v0.12.0 source folder (module cache) for its CRD and webhook manifests")
	examples := fs.String("examples", os.Getenv("JOBSET_UPSTREAM_EXAMPLES"), "folder of upstream example JobSets (default $JOBSET_UPSTREAM_EXAMPLES; cases skipped when absent)")
	limit := fs.Duration("limit", 0, "stop everything after this long (default: test 25m, cluster 8h)")
	kubectl := fs.String("kubectl", "", "kubectl to drive the cluster with (default BIN/kubectl)")
	kcm := fs.Bool("controller-manager", true, "start kube-controller-manager (false only to debug the harness: no pods, no garbage collection)")
	run := fs.String("run", "", "test: run only the cases whose name matches this regular expression")
	rollout := fs.Bool("rollout", true, "test: run the rollout-under-load case (--rollout=false leaves it out; see docs/e2e.md)")
	count := fs.Int("count", 20, "stress: how many starts")
	fs.Parse(os.Args[2:])
	if mode != "cluster" && mode != "test" && mode != "stress" {
		usage()
		os.Exit(2)
	}
	if *limit == 0 {
		switch mode {
		case "test":
			*limit = 25 * time.Minute
		case "cluster":
			*limit = 8 * time.Hour
		case "stress":
			*limit = time.Duration(*count) * 5 * time.Minute
		}
	}
	absRoot, _ := filepath.Abs(*root)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(absRoot, p)
	}
	var filter *regexp.Regexp
	if *run != "" {
		filter = regexp.MustCompile(*run)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		logf("received %v: stopping", s)
		cancel()
	}()

	if *kubectl == "" {
		*kubectl = filepath.Join(abs(*bin), "kubectl")
	}
	c := &Cluster{
		Root:        absRoot,
		Bin:         abs(*bin),
		Work:        abs(*work),
		JobSetDir:   *crd,
		KubectlPath: *kubectl,
		NoKCM:       !*kcm,
		ScaleDown:   mode == "cluster",
		ctx:         ctx,
	}
	if mode == "stress" {
		os.Exit(stress(c, *count))
	}
	code := 0
	start := time.Now()
	if err := c.Up(); err != nil {
		logf("cluster start failed: %v", err)
		c.Down()
		c.tailLogs()
		// The plain closing line, so that a failed start-up reads as a failed run.
		if mode == "test" {
			fmt.Println("0 passed, 1 failed")
		}
		os.Exit(1)
	}
	logf("control plane, JobSet controller and jobset-webhook up in %.1fs", time.Since(start).Seconds())
	switch mode {
	case "cluster":
		c.printTryIt()
		<-ctx.Done()
	case "test":
		s := &Suite{c: c, filter: filter, examples: *examples, rollout: *rollout}
		s.RunAll()
		if s.failed > 0 {
			c.tailLogs()
		}
		logf("start-up and cases took %.1fs", time.Since(start).Seconds())
		c.Down()
		fmt.Printf("%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
		if s.failed > 0 || ctx.Err() != nil {
			code = 1
		}
		os.Exit(code)
	}
	c.Down()
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "==> "+format+"\n", args...)
}

// stress brings the control plane of template up and down count times in a row, each start
// bounded to 5 minutes; a failed start's folder is kept as WORK-failed-N. It prints one line per
// start and ends with "N of N starts passed"; the exit code is 1 if any failed.
func stress(template *Cluster, count int) int {
	passed := 0
	ports := newPortPool()
	for i := 1; i <= count && template.ctx.Err() == nil; i++ {
		ctx, cancel := context.WithTimeout(template.ctx, 5*time.Minute)
		c := &Cluster{Root: template.Root, Bin: template.Bin, Work: template.Work,
			JobSetDir: template.JobSetDir, KubectlPath: template.KubectlPath, NoKCM: template.NoKCM,
			ctx: ctx, ports: ports}
		start := time.Now()
		err := c.Up()
		c.Down()
		cancel()
		d := time.Since(start).Seconds()
		if err == nil {
			passed++
			fmt.Printf("start %2d of %d: ok     (%.1fs)\n", i, count, d)
			continue
		}
		kept := fmt.Sprintf("%s-failed-%d", template.Work, i)
		os.RemoveAll(kept)
		os.Rename(template.Work, kept)
		fmt.Printf("start %2d of %d: FAILED (%.1fs): %v; logs in %s\n", i, count, d, err, kept)
	}
	fmt.Printf("%d of %d starts passed\n", passed, count)
	if passed < count {
		return 1
	}
	return 0
}
