//go:build unix

package agent

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWireVsChat measures each wire against Chat Completions in the
// same run, interleaved so that a shared machine's load weighs on all of
// them alike: each op streams one 1,000-token answer on every wire (in a
// rotating order) and one 10-token answer for the time to the first
// token. It reports, per wire, the process CPU per 1,000 tokens (user and
// system time, GC included, from getrusage; summed over the run, so a
// preemption costs no CPU) and the median wall time to the first token
// (the median, because on a loaded machine a preempted sample is many
// times the others), and each native wire's ratio to Chat's: the goal is
// 1.1 or less.
//
//	go test ./agent -run '^$' -bench BenchmarkWireVsChat -benchtime 300x -count 3
func BenchmarkWireVsChat(b *testing.B) {
	wires := []string{APIChat, APIResponses, APIAnthropic}
	long := map[string]Provider{
		APIChat: benchProvider(APIChat, chatTokens(1000)), APIResponses: benchProvider(APIResponses, responsesTokens(1000)),
		APIAnthropic: benchProvider(APIAnthropic, anthropicTokens(1000)),
	}
	short := map[string]Provider{
		APIChat: benchProvider(APIChat, chatTokens(10)), APIResponses: benchProvider(APIResponses, responsesTokens(10)),
		APIAnthropic: benchProvider(APIAnthropic, anthropicTokens(10)),
	}
	req := benchRequest()
	cpu, first := map[string]time.Duration{}, map[string][]time.Duration{}
	n := 0
	for b.Loop() {
		for k := range wires {
			api := wires[(n+k)%len(wires)]
			before := processCPU()
			comp, err := long[api].Stream(context.Background(), req, StreamHandler{Text: func(string) {}})
			cpu[api] += processCPU() - before
			if err != nil || len(comp.Message.Content) < 1000 {
				b.Fatalf("%s: %v (%d bytes)", api, err, len(comp.Message.Content))
			}
			start := time.Now()
			var ft time.Duration
			if _, err := short[api].Stream(context.Background(), req, StreamHandler{Text: func(string) {
				if ft == 0 {
					ft = time.Since(start)
				}
			}}); err != nil || ft == 0 {
				b.Fatalf("%s: %v, first token %s", api, err, ft)
			}
			first[api] = append(first[api], ft)
		}
		n++
	}
	median := map[string]time.Duration{}
	for _, api := range wires {
		slices.Sort(first[api])
		median[api] = first[api][len(first[api])/2]
		b.ReportMetric(float64(cpu[api].Microseconds())/1000/float64(n), api+"-cpu-ms/1k-tokens")
		b.ReportMetric(float64(median[api].Microseconds())/1000, api+"-ms/first-token")
	}
	for _, api := range wires[1:] {
		if cpu[APIChat] > 0 && median[APIChat] > 0 {
			b.ReportMetric(float64(cpu[api])/float64(cpu[APIChat]), api+"/chat-cpu")
			b.ReportMetric(float64(median[api])/float64(median[APIChat]), api+"/chat-first-token")
		}
	}
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
