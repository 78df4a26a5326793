package agent

// Price is what a model costs per million tokens, in whatever currency the
// user writes it in config (prices: {model: {input: 3.0, output: 15.0}}).
type Price struct {
	Input  float64 `yaml:"input" json:"input"`
	Output float64 `yaml:"output" json:"output"`
	// CacheRead and CacheWrite price input read from and written to a
	// prompt cache (Anthropic: a tenth of Input, and 1.25 times it); 0
	// prices it as Input.
	CacheRead  float64 `yaml:"cache_read" json:"cache_read,omitempty"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write,omitempty"`
}

// Cost returns the cost of u at price p.
func (p Price) Cost(u Usage) float64 {
	read, write := p.CacheRead, p.CacheWrite
	if read == 0 {
		read = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	fresh := max(u.InputTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	return (float64(fresh)*p.Input + float64(u.CachedTokens)*read + float64(u.CacheWriteTokens)*write +
		float64(u.OutputTokens)*p.Output) / 1e6
}

// Prices is the price table of config, by model name.
type Prices map[string]Price

// Cost returns the cost of u on model, and whether the model has a price.
// A nil or empty table prices nothing.
func (ps Prices) Cost(model string, u Usage) (float64, bool) {
	p, ok := ps[model]
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// CostFunc returns ps as an agent.Config.Cost function (0 for a model
// without a price), or nil when the table is empty.
func (ps Prices) CostFunc() func(model string, u Usage) float64 {
	if len(ps) == 0 {
		return nil
	}
	return func(model string, u Usage) float64 {
		c, _ := ps.Cost(model, u)
		return c
	}
}

// PriceBook prices a model's tokens: by the user's table (config's
// prices:) first, then by a catalog of the vendors' own prices. A user's
// price that leaves the cache prices unset takes the catalog's, scaled to
// the user's input price (the table may be in another currency), so a
// cache read of Claude's costs a tenth of its input, not all of it.
type PriceBook struct {
	Table Prices
	// Catalog is the vendors' price of a model; nil when no endpoint of
	// the session is on a vendor the catalog prices.
	Catalog func(model string) (Price, bool)
}

// Price is model's price, and whether it has one.
func (b PriceBook) Price(model string) (Price, bool) {
	p, ok := b.Table[model]
	var c Price
	cok := false
	if b.Catalog != nil {
		c, cok = b.Catalog(model)
	}
	if !ok {
		return c, cok
	}
	if cok && c.Input > 0 {
		if p.CacheRead == 0 && c.CacheRead > 0 {
			p.CacheRead = p.Input * c.CacheRead / c.Input
		}
		if p.CacheWrite == 0 && c.CacheWrite > 0 {
			p.CacheWrite = p.Input * c.CacheWrite / c.Input
		}
	}
	return p, true
}

// Cost returns the cost of u on model, and whether the model has a price.
func (b PriceBook) Cost(model string, u Usage) (float64, bool) {
	p, ok := b.Price(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// Empty reports whether the book can price nothing: no table and no
// catalog.
func (b PriceBook) Empty() bool { return len(b.Table) == 0 && b.Catalog == nil }

// CostFunc returns b as an agent.Config.Cost function (0 for a model
// without a price), or nil when the book is empty.
func (b PriceBook) CostFunc() func(model string, u Usage) float64 {
	if b.Empty() {
		return nil
	}
	return func(model string, u Usage) float64 {
		c, _ := b.Cost(model, u)
		return c
	}
}
