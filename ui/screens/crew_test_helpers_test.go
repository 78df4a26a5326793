package screens

import (
	"strings"
	"testing"
	"time"

	xgolden "github.com/charmbracelet/x/exp/golden"

	"covey/agent"
	"covey/theme"
	"covey/ui/keys"
	"covey/ui/transcript"
)

// fixedNow is the tests' clock.
var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// crewT0 is when the test crew started.
var crewT0 = fixedNow.Add(-2 * time.Minute)

func testStyles() *theme.Styles { return &theme.New(theme.ModeDark, true, false).Styles }

func defaultKeys() *keys.KeyMap {
	k := keys.Default()
	return &k
}

// checkGolden compares got with testdata/<test>/<name>.golden through
// x/exp/golden (-update rewrites it): <test> is the top-level test, so the
// cases of a table share one folder.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	xgolden.RequireEqual(goldenTB{TB: t, name: strings.Split(t.Name(), "/")[0] + "/" + name}, got)
}

// goldenTB names a golden file for x/exp/golden, which takes the name from
// the test.
type goldenTB struct {
	testing.TB
	name string
}

// Name implements testing.TB.
func (g goldenTB) Name() string { return g.name }

// crew builds the overview's rows, children's panes, from plain events, as
// the root's router would: the overview sees only the panes, so its tests
// need no root.
type crew struct {
	now       time.Time
	cost      func(model string, u agent.Usage) (float64, bool)
	byID      map[string]*transcript.SubagentBlock
	byName    map[string]*transcript.SubagentBlock
	order     []*transcript.SubagentBlock
	parent    map[*transcript.SubagentBlock]*transcript.SubagentBlock
	callOwner map[string]*transcript.SubagentBlock // task call ID → the child that made it
}

func newCrew(cost func(string, agent.Usage) (float64, bool)) *crew {
	return &crew{
		cost: cost, byID: map[string]*transcript.SubagentBlock{}, byName: map[string]*transcript.SubagentBlock{},
		parent: map[*transcript.SubagentBlock]*transcript.SubagentBlock{}, callOwner: map[string]*transcript.SubagentBlock{},
	}
}

// at applies events at crewT0+d.
func (c *crew) at(d time.Duration, evs ...agent.Event) {
	c.now = crewT0.Add(d)
	for _, ev := range evs {
		c.apply(ev)
	}
}

func (c *crew) apply(ev agent.Event) {
	src := ev.From()
	if e, ok := ev.(agent.ChildStarted); ok {
		b := transcript.NewSubagentBlock(e)
		b.Observe(c.now)
		c.byID[src.AgentID], c.byName[src.Name] = b, b
		c.order = append(c.order, b)
		c.parent[b] = c.callOwner[src.ParentCallID]
		c.price(b)
		return
	}
	b := c.byID[src.AgentID]
	if b == nil {
		return // the main agent's events make no row
	}
	switch e := ev.(type) {
	case agent.ContextReported:
		b.SetContext(e.Tokens, e.Window)
		return
	case agent.ToolStarted:
		c.callOwner[e.CallID] = b
	}
	b.Observe(c.now)
	for p := c.parent[b]; p != nil; p = c.parent[p] {
		p.MarkActive(c.now)
	}
	b.Apply(ev)
	switch ev.(type) {
	case agent.UsageReported, agent.ChildFinished:
		c.price(b)
	}
}

func (c *crew) price(b *transcript.SubagentBlock) {
	if c.cost == nil {
		return
	}
	if v, ok := c.cost(b.Model(), b.Usage()); ok {
		b.SetCost(v)
	}
}

// rows lists the children depth first, each right under its parent.
func (c *crew) rows() []*transcript.SubagentBlock {
	kids := map[*transcript.SubagentBlock][]*transcript.SubagentBlock{}
	for _, b := range c.order {
		kids[c.parent[b]] = append(kids[c.parent[b]], b)
	}
	var out []*transcript.SubagentBlock
	var walk func(p *transcript.SubagentBlock)
	walk = func(p *transcript.SubagentBlock) {
		for _, k := range kids[p] {
			out = append(out, k)
			walk(k)
		}
	}
	walk(nil)
	return out
}
