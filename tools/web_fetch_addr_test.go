package tools

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"covey/permission"
)

// testServersOK lets the fetch tests reach their httptest servers on
// loopback, as an allow rule would.
func testServersOK(string) bool { return true }

func TestPrivateAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.1": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "fd00::1": true, "0.0.0.0": true, "::": true, "100.64.0.1": true,
		"::ffff:127.0.0.1": true, "64:ff9b::7f00:1": true, "224.0.0.1": true,
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false, "100.128.0.1": false,
	} {
		if got := privateAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("privateAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestWebFetchRefusesLocalAddresses: the model's URL does not reach the
// machine covey runs on, by address, or by a name resolving to it; only an allow rule naming the host lets it.
func TestWebFetchRefusesLocalAddresses(t *testing.T) {
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ADMIN SECRET")) }))
	defer secret.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(secret.URL, "http://"), ":")
	allowAll := permission.NewPolicy(permission.ModeBypass, nil, nil)
	for name, url := range map[string]string{
		"loopback":               secret.URL + "/",
		"a name resolving to it": "http://localhost:" + port + "/",
	} {
		t.Run(name, func(t *testing.T) {
			r := runFetch(t, NewWebFetch(WebFetchConfig{Gate: allowAll}), map[string]any{"url": url})
			if !r.IsError || strings.Contains(r.Content, "ADMIN SECRET") || !strings.Contains(r.Content, "private address") {
				t.Fatalf("bypassPermissions fetched a local address: %+v", r)
			}
		})
	}
	rules, err := permission.ParseRules([]string{"web_fetch(domain:127.0.0.1)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ruled := permission.NewPolicy(permission.ModeDefault, rules, nil)
	if r := runFetch(t, NewWebFetch(WebFetchConfig{Gate: ruled}), map[string]any{"url": secret.URL + "/"}); r.IsError || !strings.Contains(r.Content, "ADMIN SECRET") {
		t.Fatalf("an allow rule naming the host did not let the fetch through: %+v", r)
	}
}
