// Command cluster starts the real control plane of the end-to-end tests on loopback (etcd,
// kube-apiserver, kube-controller-manager, upstream JobSet's CRD and manager, `jobset-webhook
// serve` and the scale-down controller) and keeps it up for a person: it prints the KUBECONFIG
// line and the walkthrough of walkthrough.txt, and stops everything on Ctrl-C or at --limit. With
// --stress N it starts the control plane and stops it N times in a row instead. Every process
// runs in its own process group and dies with this one. See docs/e2e.md.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/template"
	"time"

	"jobset-webhook/tests/e2e/harness"
)

//go:embed walkthrough.txt
var walkthrough string

func main() {
	root := flag.String("root", "", "repository root (holds build/jobset-webhook and manifests/; default: found above the working folder)")
	bin := flag.String("bin", "build-e2e/bin", "folder of the Go binaries (etcd, kube-apiserver, ...), under ROOT when relative")
	work := flag.String("work", "build-e2e/run", "folder for certificates, data, logs (emptied first), under ROOT when relative")
	jobsetDir := flag.String("jobset-dir", "", "upstream JobSet v0.12.0 source folder (module cache) for its CRD and webhook manifests (default: go list in tests/e2e/jobset)")
	limit := flag.Duration("limit", 0, "stop everything after this long (default 8h; with --stress, 5m per start)")
	kubectl := flag.String("kubectl", "", "kubectl to drive the cluster with (default BIN/kubectl)")
	kcm := flag.Bool("controller-manager", true, "start kube-controller-manager (false only to debug the harness: no pods, no garbage collection)")
	stress := flag.Int("stress", 0, "start the control plane and stop it this many times in a row, print \"N of N starts passed\"")
	flag.Parse()

	if *root == "" {
		r, err := harness.FindRoot(".")
		if err != nil {
			fatalf("%v", err)
		}
		*root = r
	}
	absRoot, _ := filepath.Abs(*root)
	if *jobsetDir == "" {
		d, err := harness.JobSetModuleDir(absRoot)
		if err != nil {
			fatalf("%v", err)
		}
		*jobsetDir = d
	}
	if *limit == 0 {
		*limit = 8 * time.Hour
		if *stress > 0 {
			*limit = time.Duration(*stress) * 5 * time.Minute
		}
	}
	if *kubectl == "" {
		*kubectl = filepath.Join(harness.Abs(absRoot, *bin), "kubectl")
	}

	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		fmt.Fprintf(os.Stderr, "==> received %v: stopping\n", s)
		cancel()
	}()

	c := &harness.Cluster{
		Root:        absRoot,
		Bin:         harness.Abs(absRoot, *bin),
		Work:        harness.Abs(absRoot, *work),
		JobSetDir:   *jobsetDir,
		KubectlPath: *kubectl,
		NoKCM:       !*kcm,
		ScaleDown:   *stress == 0,
		Ctx:         ctx,
	}
	if *stress > 0 {
		os.Exit(harness.Stress(c, *stress))
	}
	start := time.Now()
	if err := c.Up(); err != nil {
		fmt.Fprintf(os.Stderr, "==> cluster start failed: %v\n", err)
		c.Down()
		c.TailLogs()
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "==> control plane, JobSet controller and jobset-webhook up in %.1fs\n", time.Since(start).Seconds())
	printWalkthrough(c)
	<-ctx.Done()
	c.Down()
}

// printWalkthrough fills walkthrough.txt in with this run's paths and port.
func printWalkthrough(c *harness.Cluster) {
	run := walkthroughRun{
		Root: c.Root, Kubeconfig: c.Kubeconfig, Kubectl: c.KubectlPath, Logs: c.LogDir(),
		Metrics: c.ControllerMetrics, Helm: filepath.Join(c.Bin, "helm"),
		ServeURL: c.Webhooks[0].URL(""), ServeCA: c.WebhookCA(),
	}
	if err := writeWalkthrough(os.Stdout, run); err != nil {
		fatalf("walkthrough: %v", err)
	}
}

// walkthroughRun is what walkthrough.txt names of this run.
type walkthroughRun struct {
	Root, Kubeconfig, Kubectl, Logs string
	Metrics                         int
	Helm                            string // build-e2e/bin/helm (scripts/dev chart builds it)
	ServeURL, ServeCA               string // the run's serve, and the CA of its certificate
}

func writeWalkthrough(w io.Writer, run walkthroughRun) error {
	t, err := template.New("walkthrough").Option("missingkey=error").Parse(walkthrough)
	if err != nil {
		return err
	}
	return t.Execute(w, run)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "==> "+format+"\n", args...)
	os.Exit(2)
}
