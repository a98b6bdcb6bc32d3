package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedFileIsCurrent fails when gitleaks_rules.go is not what the
// gitleaks version in go.mod and this generator make: run go generate in
// internal/redact.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../gitleaks_rules.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("internal/redact/gitleaks_rules.go is out of date; run go generate ./internal/redact")
	}
}
