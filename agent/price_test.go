package agent

import (
	"math"
	"testing"
)

// TestPriceBook: the user's table first; its unset cache prices come from
// the catalog, scaled to the user's input price; a model the table does
// not name takes the catalog's price whole.
func TestPriceBook(t *testing.T) {
	catalog := func(model string) (Price, bool) {
		if model == "claude" {
			return Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, true
		}
		return Price{}, false
	}
	u := Usage{InputTokens: 1_000_000, CachedTokens: 600_000, CacheWriteTokens: 300_000, OutputTokens: 100_000}
	cases := map[string]struct {
		book  PriceBook
		model string
		want  float64
		ok    bool
	}{
		// 0.1M fresh * 3 + 0.6M * 0.3 + 0.3M * 3.75 + 0.1M * 15
		"catalog only": {PriceBook{Catalog: catalog}, "claude", 0.3 + 0.18 + 1.125 + 1.5, true},
		// the user's input of 6 doubles the catalog's cache prices too
		"table without cache prices": {PriceBook{Table: Prices{"claude": {Input: 6, Output: 30}}, Catalog: catalog}, "claude", 0.6 + 0.36 + 2.25 + 3, true},
		"table with its own":         {PriceBook{Table: Prices{"claude": {Input: 6, Output: 30, CacheRead: 1, CacheWrite: 7}}, Catalog: catalog}, "claude", 0.6 + 0.6 + 2.1 + 3, true},
		"table, no catalog entry":    {PriceBook{Table: Prices{"local": {Input: 1, Output: 2}}, Catalog: catalog}, "local", 1 + 0.2, true},
		"nobody prices it":           {PriceBook{Table: Prices{"local": {Input: 1, Output: 2}}, Catalog: catalog}, "other", 0, false},
		"empty":                      {PriceBook{}, "claude", 0, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := tc.book.Cost(tc.model, u)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Cost = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if !(PriceBook{}).Empty() || (PriceBook{Catalog: catalog}).Empty() || (PriceBook{}).CostFunc() != nil {
		t.Error("Empty: want true only without table and catalog")
	}
}
