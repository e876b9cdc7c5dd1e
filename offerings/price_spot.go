package offerings

import "time"

// SpotStats describes a spot price history over a window [From, To]. The
// price in force at From is the last change at or before it (as
// DescribeSpotPriceHistory returns it with a StartTime); the mean weights
// each price by how long it was in force within the window.
type SpotStats struct {
	Window time.Duration `json:"window"`
	From   time.Time     `json:"from"`
	To     time.Time     `json:"to"`
	// Samples counts the prices in force during the window, Changes the
	// changes inside it.
	Samples int     `json:"samples"`
	Changes int     `json:"changes"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Mean    float64 `json:"mean"`
	Latest  float64 `json:"latest"`
}

// spotStats computes the statistics of h (oldest first, none after to)
// over [from, to]. The window starts no earlier than the first entry.
func spotStats(h []spotEntry, from, to time.Time) *SpotStats {
	s := &SpotStats{Window: to.Sub(from), From: from, To: to}
	start := 0
	for i, e := range h {
		if !e.at.After(from) {
			start = i
		}
	}
	in := h[start:]
	var weighted, total float64
	for i, e := range in {
		begin := e.at
		if begin.Before(from) {
			begin = from
		} else if i > 0 {
			s.Changes++
		}
		end := to
		if i+1 < len(in) {
			end = in[i+1].at
		}
		if s.Samples == 0 || e.value < s.Min {
			s.Min = e.value
		}
		if e.value > s.Max {
			s.Max = e.value
		}
		s.Samples++
		d := end.Sub(begin).Seconds()
		weighted += e.value * d
		total += d
	}
	s.Latest = in[len(in)-1].value
	s.Mean = s.Latest
	if total > 0 {
		s.Mean = weighted / total
	}
	return s
}
