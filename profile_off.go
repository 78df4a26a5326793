//go:build !coveyprof

package main

// startProfile is a no-op in a normal build: profiling is compiled in only
// with -tags coveyprof (see profile_on.go), so runtime/pprof costs the
// shipped binary nothing.
func startProfile() (stop func()) { return func() {} }
