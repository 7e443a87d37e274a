package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Cluster scripts (issue 19 §1): `ccsim reproduce PAPER --emit slurm`
// prints a script that submits the reproduction as a Slurm job array, one
// task per shard (`--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`),
// and a job that depends on the array and builds the report
// (`--report-only`); `--emit k8s` prints a Kubernetes Indexed Job with the
// same contract (`JOB_COMPLETION_INDEX`). The shared result directory is
// the only coupling: shards never run the same run (shardOf), a re-run
// shard redoes only its missing runs, and run locks keep two processes
// from running one run twice.

// emitConfig is what the emitted files need.
type emitConfig struct {
	paper       string
	experiments []string
	scale, out  string
	shards      int
	cpus        int    // per task (--workers of each shard)
	ccsim       string // the binary the tasks run
	image, pvc  string // k8s: container image, the claim holding OUT
}

// parseShard parses --shard "i/n" (0 ≤ i < n).
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n || n > 1<<20 {
		return 0, 0, fmt.Errorf("--shard = %q: want i/n with 0 ≤ i < n ≤ 1048576 (e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)", s)
	}
	return i, n, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// reproduceArgs are the common arguments of every task.
func (c *emitConfig) reproduceArgs() string {
	args := []string{shellQuote(c.ccsim), "reproduce", shellQuote(c.paper)}
	for _, e := range c.experiments {
		args = append(args, shellQuote(e))
	}
	args = append(args, "--scale", shellQuote(c.scale), "--out", shellQuote(c.out))
	return strings.Join(args, " ")
}

// writeSlurm prints the submission script.
func (c *emitConfig) writeSlurm(w io.Writer) error {
	name := "ccsim-" + c.paper
	log := shellQuote(filepath.Join(c.out, "slurm"))
	_, err := fmt.Fprintf(w, `#!/bin/sh
# ccsim reproduce %[1]s on Slurm: %[2]d array tasks (one shard each, %[9]s), then the report.
# Submit with: sh THIS_FILE   (the result directory %[4]s must be on a file system every node shares)
set -e
mkdir -p %[5]s
array=$(sbatch --parsable --job-name=%[6]s --array=0-%[7]d --cpus-per-task=%[3]d --output=%[5]s/shard-%%a.out <<'CCSIM_EOF'
#!/bin/sh
exec %[8]s --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --workers "${SLURM_CPUS_PER_TASK:-1}"
CCSIM_EOF
)
report=$(sbatch --parsable --job-name=%[6]s-report --dependency=afterany:"$array" --cpus-per-task=1 --output=%[5]s/report.out <<'CCSIM_EOF'
#!/bin/sh
exec %[8]s --report-only
CCSIM_EOF
)
echo "submitted array job $array (%[2]d shards) and report job $report; results in %[4]s"
`, c.paper, c.shards, c.cpus, shellQuote(filepath.Join(c.out, c.paper)), log, name, c.shards-1, c.reproduceArgs(), plural(c.cpus, "CPU"))
	return err
}

// writeK8s prints an Indexed Job for the shards and, after it, the report
// Job to apply once the first has completed.
func (c *emitConfig) writeK8s(w io.Writer) error {
	name := strings.ToLower("ccsim-" + strings.NewReplacer("_", "-", ".", "-").Replace(c.paper))
	args := func(extra ...string) string {
		a := []string{"reproduce", c.paper}
		a = append(a, c.experiments...)
		a = append(a, "--scale", c.scale, "--out", "/results")
		a = append(a, extra...)
		q := make([]string, len(a))
		for i, s := range a {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	job := func(jobName, extra string, completions int, cmdArgs string) string {
		return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
spec:
%s  template:
    spec:
      restartPolicy: Never
      containers:
        - name: ccsim
          image: %s
          command: [%q]
          args: %s
          env:
            - name: JOB_COMPLETION_INDEX
              valueFrom: {fieldRef: {fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
          resources: {requests: {cpu: "%d"}}
          volumeMounts: [{name: results, mountPath: /results}]
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: %s}
`, jobName, extra, c.image, c.ccsim, cmdArgs, c.cpus, c.pvc)
	}
	shards := fmt.Sprintf("  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n  backoffLimit: %d\n", c.shards, c.shards, c.shards)
	shardArgs := strings.TrimSuffix(args(), "]") + fmt.Sprintf(`, "--shard", "$(JOB_COMPLETION_INDEX)/%d", "--workers", "%d"]`, c.shards, c.cpus)
	_, err := fmt.Fprintf(w, "# ccsim reproduce %s on Kubernetes: an Indexed Job of %d shards (JOB_COMPLETION_INDEX),\n"+
		"# then, once it has completed (kubectl wait --for=condition=complete job/%s), the report Job.\n"+
		"# The claim %s must be ReadWriteMany: every pod writes into it.\n%s---\n%s",
		c.paper, c.shards, name, c.pvc, job(name, shards, c.shards, shardArgs), job(name+"-report", "", 1, args("--report-only")))
	return err
}

// ccsimPath is the binary the emitted scripts run: this one.
func ccsimPath() string {
	p, err := os.Executable()
	if err != nil {
		return "ccsim"
	}
	return p
}
