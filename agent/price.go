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
