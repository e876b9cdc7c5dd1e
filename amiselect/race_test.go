//go:build race

package amiselect

// raceDetector: under -race the laws of prediction check a fifth as many
// catalogs: they are pure functions with no goroutines, which the race
// detector has nothing to find in, and it slows them tenfold.
const raceDetector = true
