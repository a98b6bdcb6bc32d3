package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ClaudeCLI asks the agent CLI in print mode: Command -p --output-format
// json [--model Model] Args..., the prompt on standard input. It runs on the
// user's own login; no API key is needed.
type ClaudeCLI struct {
	// Command is the CLI program (default "claude").
	Command string
	// Model, when set, is passed as --model.
	Model string
	// Args are more flags, such as --tools "" for a run without tools.
	Args []string
	// Dir is where the CLI runs; empty: a fresh temporary folder, removed
	// afterwards, so that the run's files and hooks stay out of any
	// project.
	Dir string
	// Env is the CLI's environment; nil: the process's.
	Env []string
}

var _ Client = ClaudeCLI{}

// Name implements Client.
func (ClaudeCLI) Name() string { return "claude" }

// cliResult is the part of the CLI's JSON result read here.
type cliResult struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Usage   struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Complete implements Client. A run that ends in an error (a failed exit,
// is_error, or a subtype other than "success") is an error with the run's
// usage; output that is not the CLI's JSON result is ErrOutput.
func (c ClaudeCLI) Complete(ctx context.Context, prompt string) (Reply, error) {
	command := c.Command
	if command == "" {
		command = "claude"
	}
	dir := c.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "baton-llm-")
		if err != nil {
			return Reply{}, fmt.Errorf("run %s: %w", command, err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	args := []string{"-p", "--output-format", "json"}
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	args = append(args, c.Args...)

	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = dir
	cmd.Env = c.Env
	cmd.Stdin = strings.NewReader(prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	name := filepath.Base(command)
	runErr := cmd.Run()
	if runErr != nil && ctx.Err() != nil {
		return Reply{}, fmt.Errorf("run %s: %w", name, ctx.Err())
	}
	// A failed run still prints its result (exit status 1 with the API's
	// error in it), which says more than the status.
	var res cliResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Type != "result" {
		if runErr != nil {
			return Reply{}, fmt.Errorf("run %s: %w: %s", name, runErr, Quote(stderr.String()+" "+stdout.String()))
		}
		return Reply{}, fmt.Errorf("read %s result: %w: %s", name, ErrOutput, Quote(stdout.String()))
	}
	r := Reply{
		Text:         res.Result,
		InputTokens:  res.Usage.InputTokens + res.Usage.CacheCreationInputTokens + res.Usage.CacheReadInputTokens,
		OutputTokens: res.Usage.OutputTokens,
	}
	failed := res.IsError || (res.Subtype != "" && res.Subtype != "success")
	if runErr == nil && !failed {
		return r, nil
	}
	kind := res.Subtype
	if kind == "" || kind == "success" {
		kind = "error"
	}
	cost := Reply{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}
	if runErr != nil {
		return cost, fmt.Errorf("run %s: %w: %s: %s", name, runErr, kind, Quote(res.Result))
	}
	return cost, fmt.Errorf("%s: %s: %s", name, kind, Quote(res.Result))
}
