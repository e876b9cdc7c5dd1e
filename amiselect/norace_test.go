//go:build !race

package amiselect

const raceDetector = false
