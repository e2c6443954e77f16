package harness

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Stress brings the control plane of template up and down count times in a row, each start
// bounded to 5 minutes; a failed start's folder is kept as WORK-failed-N. It prints one line per
// start and ends with "N of N starts passed"; the exit code is 1 if any failed.
func Stress(template *Cluster, count int) int {
	passed := 0
	ports := newPortPool()
	for i := 1; i <= count && template.Ctx.Err() == nil; i++ {
		ctx, cancel := context.WithTimeout(template.Ctx, 5*time.Minute)
		c := &Cluster{Root: template.Root, Bin: template.Bin, Work: template.Work,
			JobSetDir: template.JobSetDir, KubectlPath: template.KubectlPath, NoKCM: template.NoKCM,
			Ctx: ctx, ports: ports}
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
