package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkGoplsEditDiagnostics measures, on covey's own repository, the
// time from an edit's content reaching gopls to its diagnostics for that
// version coming back (what an edit's result waits for): 20 edits of
// tools/write_file.go, alternately breaking it (an undefined name) and
// fixing it, after one warm-up edit that loads the workspace. The file on
// disk is never changed: the edits go to gopls only. It reports the median
// and worst of the 20, the cold first edit, and gopls's resident memory.
//
//	go test ./lsp -run '^$' -bench GoplsEditDiagnostics -benchtime 1x
func BenchmarkGoplsEditDiagnostics(b *testing.B) {
	gopls := goplsPath(b)
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(root, "tools", "write_file.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	broken := string(orig) + "\nvar _ = benchUndefinedName\n"
	for range b.N {
		m := goplsManager(b, gopls)
		ctx := context.Background()
		start := time.Now()
		if got := m.AfterWrite(ctx, root, file, string(orig)); !strings.Contains(got, "gopls reports") {
			b.Fatalf("warm-up edit: %s", got)
		}
		cold := time.Since(start)
		var lat []time.Duration
		for i := range 20 {
			content := string(orig)
			if i%2 == 0 {
				content = broken
			}
			t0 := time.Now()
			got := m.AfterWrite(ctx, root, file, content)
			lat = append(lat, time.Since(t0))
			if (i%2 == 0) != strings.Contains(got, "undefined: benchUndefinedName") {
				b.Fatalf("edit %d: wrong diagnostics:\n%s", i, got)
			}
		}
		rss := 0
		for _, pid := range m.PIDs() {
			rss += rssKB(pid)
		}
		m.Close()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "worst-ms")
		b.ReportMetric(float64(cold.Milliseconds()), "first-edit-ms")
		b.ReportMetric(float64(rss)/1024, "gopls-rss-MB")
	}
}

// rssKB is a process's resident memory from /proc (0 where unknown).
func rssKB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}
