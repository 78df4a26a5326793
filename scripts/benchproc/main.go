// Command benchproc measures whole processes for covey's bench scripts
// (scripts/bench-*): wall time, CPU time (user + system, the kernel's own
// accounting of the finished child) and peak memory, and the idle cost of a
// running process. It needs nothing but the Go toolchain and Linux's /proc.
//
//	benchproc pair [-n 20] -a 'CMD ARGS' -b 'CMD ARGS'
//	    runs A and B in turn n times (A B A B ...) and prints each one's
//	    median wall, CPU and peak RSS and the A/B ratios of the medians and
//	    the median of the pairwise ratios. Words split as a shell would
//	    (single and double quotes), but no shell runs.
//	benchproc run -o FILE [-pidfile FILE] -- CMD ARGS
//	    runs CMD with this process's terminal and writes its wall and CPU
//	    milliseconds to FILE as JSON (for a TUI run inside tmux).
//	benchproc idle -pid PID [-for 10s]
//	    samples a running process: context switches of all its threads
//	    (each one a wake-up) and CPU milliseconds over the period.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchproc pair|run|idle ... (see the doc comment)")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "pair":
		err = pair(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "idle":
		err = idle(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchproc:", err)
		os.Exit(1)
	}
}

// sample is one finished run.
type sample struct {
	wall, cpu time.Duration
	rssKB     int64
}

func measure(argv []string, stdout io.Writer) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stdout
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return sample{}, fmt.Errorf("run %q: %w", argv, err)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru != nil {
		s.rssKB = ru.Maxrss
	}
	return s, nil
}

func pair(args []string) error {
	fs := flag.NewFlagSet("pair", flag.ContinueOnError)
	n := fs.Int("n", 20, "runs of each command")
	a := fs.String("a", "", "command A")
	b := fs.String("b", "", "command B (the yardstick)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	argvA, argvB := splitWords(*a), splitWords(*b)
	if len(argvA) == 0 || len(argvB) == 0 {
		return errors.New("pair needs -a and -b")
	}
	var sa, sb []sample
	for i := -1; i < *n; i++ { // run -1 warms the caches and is not counted
		x, err := measure(argvA, io.Discard)
		if err != nil {
			return err
		}
		y, err := measure(argvB, io.Discard)
		if err != nil {
			return err
		}
		if i >= 0 {
			sa, sb = append(sa, x), append(sb, y)
		}
	}
	report := func(name string, s []sample) (wall, cpu time.Duration) {
		wall = median(s, func(x sample) time.Duration { return x.wall })
		cpu = median(s, func(x sample) time.Duration { return x.cpu })
		rss := median(s, func(x sample) time.Duration { return time.Duration(x.rssKB) })
		fmt.Printf("%s median of %d: wall %.2f ms, cpu %.2f ms, peak %.1f MiB\n", name, len(s), ms(wall), ms(cpu), float64(rss)/1024)
		return wall, cpu
	}
	fmt.Printf("A = %s\nB = %s\n", *a, *b)
	wa, ca := report("A", sa)
	wb, cb := report("B", sb)
	pairs := make([]float64, len(sa))
	for i := range sa {
		pairs[i] = float64(sa[i].wall) / float64(max(sb[i].wall, 1))
	}
	slices.Sort(pairs)
	fmt.Printf("A/B wall: %.2f (ratio of medians), %.2f (median of pairs); cpu: %.2f\n",
		float64(wa)/float64(max(wb, 1)), pairs[len(pairs)/2], float64(ca)/float64(max(cb, 1)))
	return nil
}

func median(s []sample, f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// splitWords splits s into words as sh would for plain words and quotes.
func splitWords(s string) []string {
	var (
		words []string
		cur   strings.Builder
		in    bool
		quote rune
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("o", "", "file for the figures (JSON)")
	pidfile := fs.String("pidfile", "", "file for the child's pid")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return errors.New("run needs -o FILE and a command")
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", fs.Arg(0), err)
	}
	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
			return err
		}
	}
	_ = cmd.Wait()
	res := map[string]any{
		"wall_ms": ms(time.Since(start)),
		"cpu_ms":  ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()),
		"user_ms": ms(cmd.ProcessState.UserTime()),
		"sys_ms":  ms(cmd.ProcessState.SystemTime()),
		"exit":    cmd.ProcessState.ExitCode(),
		"nvcsw":   rusage(cmd).Nvcsw,
		"nivcsw":  rusage(cmd).Nivcsw,
	}
	data, _ := json.Marshal(res)
	return os.WriteFile(*out, append(data, '\n'), 0o644)
}

// procSample is a process's context switches (all threads) and CPU ticks.
func procSample(pid int) (switches int64, cpu time.Duration, err error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		return 0, 0, fmt.Errorf("process %d: no tasks", pid)
	}
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended
		}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				switches += n
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name (which may hold spaces) start at ")".
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return switches, time.Duration(ut+st) * time.Second / hz, nil
}

func idle(args []string) error {
	fs := flag.NewFlagSet("idle", flag.ContinueOnError)
	pid := fs.Int("pid", 0, "process to sample")
	d := fs.Duration("for", 10*time.Second, "how long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s0, c0, err := procSample(*pid)
	if err != nil {
		return err
	}
	time.Sleep(*d)
	s1, c1, err := procSample(*pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle %s: %d context switches (wake-ups), %.0f ms cpu\n", *d, s1-s0, ms(c1-c0))
	return nil
}

func rusage(cmd *exec.Cmd) *syscall.Rusage {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru
	}
	return &syscall.Rusage{}
}
