package ec2fake

import "testing"

// BenchmarkDefaultCatalog is the cost of one DefaultCatalog call: decoding
// both embedded files (1366 instance types, 387 images).
func BenchmarkDefaultCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		images, types := DefaultCatalog()
		if len(images) == 0 || len(types) == 0 {
			b.Fatal("empty catalog")
		}
	}
}

// BenchmarkNewWithCatalog adds loading into a Backend (validation and
// indexing).
func BenchmarkNewWithCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewWithCatalog(Options{})
	}
}

// BenchmarkFullCatalog is the cost of one FullCatalog call (1366 instance
// types, 4105 images).
func BenchmarkFullCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		images, types := FullCatalog()
		if len(images) == 0 || len(types) == 0 {
			b.Fatal("empty catalog")
		}
	}
}
