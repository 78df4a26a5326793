package tools

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"covey/permission"
	"covey/tools/toolname"
)

// web_fetch's address policy: a URL the model chooses must not reach the
// user's own machine or network (a local admin page, a cloud metadata
// address, a database's HTTP port) unless an allow rule names its host
// (web_fetch(domain:127.0.0.1)). The check is made on the address
// actually dialed, after DNS and on every redirect, so neither a name
// that resolves to 127.0.0.1 nor a redirect gets around it. Backends the
// user configured (a local model, a self-hosted search server) do not go
// through web_fetch and stay reachable.

// errPrivateAddress refuses a dial to a local address.
var errPrivateAddress = errors.New("a loopback, link-local or private address")

// privateAddr reports whether ip is one web_fetch does not reach unasked:
// loopback, link-local, private (RFC 1918, fc00::/7), unspecified,
// multicast, carrier-grade NAT (100.64/10) and IPv4 mapped or translated
// forms of those.
func privateAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is4In6() {
		ip = netip.AddrFrom4(ip.As4())
	}
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	nat64 := netip.MustParsePrefix("64:ff9b::/96")
	if nat64.Contains(ip) {
		a := ip.As16()
		return privateAddr(netip.AddrFrom4([4]byte{a[12], a[13], a[14], a[15]}))
	}
	return !ip.IsValid() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsPrivate() || ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || cgnat.Contains(ip)
}

// ruleAllower is a gate that can say whether an allow rule names a
// request's domain (permission.Policy).
type ruleAllower interface {
	RuleAllows(req permission.Request) bool
}

// mayReachPrivate reports whether web_fetch may reach rawURL's host at a
// local address: the config's AllowPrivate, else an allow rule of the
// gate's (when the gate is a policy).
func (t *webFetchTool) mayReachPrivate(rawURL string) bool {
	if t.cfg.AllowPrivate != nil {
		return t.cfg.AllowPrivate(rawURL)
	}
	ra, ok := t.cfg.Gate.(ruleAllower)
	return ok && ra.RuleAllows(permission.Request{Tool: toolname.WebFetch, URL: rawURL})
}

// guardedTransport is a transport whose every connection is checked
// where it is dialed: a local address is refused unless allowed.
func guardedTransport(base http.RoundTripper, allowed bool) http.RoundTripper {
	if allowed {
		return base
	}
	tr, ok := base.(*http.Transport)
	if base == nil {
		tr, ok = http.DefaultTransport.(*http.Transport)
	}
	if !ok {
		// A transport covey cannot see into: fail closed.
		return refusingTransport{}
	}
	tr = tr.Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || privateAddr(ap.Addr()) {
				return fmt.Errorf("%s is %w", address, errPrivateAddress)
			}
			return nil
		}}
	tr.DialContext = d.DialContext
	tr.Proxy = nil // a proxy would dial for us, unchecked
	return tr
}

// refusingTransport refuses every request.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("this client's transport cannot be checked for %w", errPrivateAddress)
}

// privateNote is how a refused local address is explained to the model.
func privateNote(host string) string {
	return fmt.Sprintf("%s is (or resolves to, or redirects to) a loopback, link-local or private address, which web_fetch does not reach: "+
		"it would reach the user's own machine or network. If the user wants it, they add web_fetch(domain:%s) to permissions.allow", host, host)
}

// dialRefused reports whether err is the address policy's refusal.
func dialRefused(err error) bool { return errors.Is(err, errPrivateAddress) }

// PrivateByRule is WebFetchConfig.AllowPrivate for a session's policy: an
// allow rule naming the URL's host.
func PrivateByRule(p *permission.Policy) func(rawURL string) bool {
	if p == nil {
		return nil
	}
	return func(rawURL string) bool {
		return p.RuleAllows(permission.Request{Tool: toolname.WebFetch, URL: rawURL})
	}
}
