package worker

import (
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Service describes how a service manager runs `baton worker run`.
type Service struct {
	// Executable is the absolute path of the baton binary.
	Executable string
	// Path is the PATH the worker runs with: it must find git and the
	// agent command.
	Path string
	// Env holds more variables for the worker, such as GITHUB_API_URL for
	// GitHub Enterprise. Tokens are better left to `gh auth token` than
	// written into a unit file.
	Env map[string]string
	// StopTimeoutMinutes is how long the manager waits after SIGTERM
	// before killing the worker: the runs in progress finish by their
	// deadline, so timeout_minutes plus a margin.
	StopTimeoutMinutes int
	// LogDir is where launchd writes the worker's output (systemd uses
	// the journal).
	LogDir string
}

// ServiceLabel is the launchd label and the base of the systemd unit's name.
const ServiceLabel = "baton-worker"

// SystemdUnit renders a systemd user unit (~/.config/systemd/user/
// baton-worker.service). On stop, systemd sends SIGTERM to the worker
// only (KillMode=mixed): it claims nothing more, its runs end by their
// deadline, and then the rest of the group is killed.
func SystemdUnit(s Service) string {
	var b strings.Builder
	b.WriteString("[Unit]\n")
	b.WriteString("Description=baton worker: labelled issues to pull requests\n")
	b.WriteString("Wants=network-online.target\nAfter=network-online.target\n\n")
	b.WriteString("[Service]\n")
	b.WriteString("Type=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s worker run\n", systemdQuote(s.Executable))
	if s.Path != "" {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote("PATH="+s.Path))
	}
	for _, k := range sortedKeys(s.Env) {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(k+"="+s.Env[k]))
	}
	b.WriteString("Restart=on-failure\nRestartSec=60\n")
	b.WriteString("KillMode=mixed\nKillSignal=SIGTERM\n")
	fmt.Fprintf(&b, "TimeoutStopSec=%dmin\n\n", max(s.StopTimeoutMinutes, 1))
	b.WriteString("[Install]\nWantedBy=default.target\n")
	return b.String()
}

// systemdQuote quotes a word for a systemd command line or Environment=
// line: double quotes, with backslash, quote and the specifier % escaped.
func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\%$;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$")
	return `"` + r.Replace(s) + `"`
}

// LaunchdPlist renders a launchd agent (~/Library/LaunchAgents/
// baton-worker.plist). ExitTimeOut gives the runs in progress time to
// finish after SIGTERM.
func LaunchdPlist(s Service) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString(`<plist version="1.0">` + "\n<dict>\n")
	key := func(k string) { fmt.Fprintf(&b, "\t<key>%s</key>\n", xmlText(k)) }
	str := func(indent, v string) { fmt.Fprintf(&b, "%s<string>%s</string>\n", indent, xmlText(v)) }
	key("Label")
	str("\t", ServiceLabel)
	key("ProgramArguments")
	b.WriteString("\t<array>\n")
	for _, a := range []string{s.Executable, "worker", "run"} {
		str("\t\t", a)
	}
	b.WriteString("\t</array>\n")
	env := maps.Clone(s.Env)
	if env == nil {
		env = map[string]string{}
	}
	if s.Path != "" {
		env["PATH"] = s.Path
	}
	if len(env) > 0 {
		key("EnvironmentVariables")
		b.WriteString("\t<dict>\n")
		for _, k := range sortedKeys(env) {
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n", xmlText(k))
			str("\t\t", env[k])
		}
		b.WriteString("\t</dict>\n")
	}
	key("RunAtLoad")
	b.WriteString("\t<true/>\n")
	key("KeepAlive")
	b.WriteString("\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n")
	key("ExitTimeOut")
	fmt.Fprintf(&b, "\t<integer>%d</integer>\n", max(s.StopTimeoutMinutes, 1)*60)
	if s.LogDir != "" {
		key("StandardOutPath")
		str("\t", strings.TrimRight(s.LogDir, "/")+"/worker.out.log")
		key("StandardErrorPath")
		str("\t", strings.TrimRight(s.LogDir, "/")+"/worker.err.log")
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String()
}

// xmlText escapes s for XML character data.
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
