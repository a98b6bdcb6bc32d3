package worker

import (
	"slices"
	"strings"
)

// The agent's environment is an allow list: an agent that a repository's
// text has talked into something can do only what these give it. The
// queue's URL carries its database password, and with it any repository's
// checkpoints and transcripts; baton's own variables never reach the agent.
var (
	// agentVars are passed by name.
	agentVars = []string{
		"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ", "LANG", "LANGUAGE",
		"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
		"SSH_AUTH_SOCK",
		"GH_TOKEN", "GITHUB_TOKEN", "GH_HOST", "GH_REPO", "GH_ENTERPRISE_TOKEN", "GITHUB_API_URL", "GITHUB_GRAPHQL_URL",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
		"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	}
	// agentPrefixes are passed by the start of their name: locale, git,
	// and the agent CLI's own settings.
	agentPrefixes = []string{"LC_", "GIT_", "ANTHROPIC_", "CLAUDE_", "DISABLE_"}
)

// allowedEnv returns the variables of environ that the agent and the git
// commands it may trigger (commit hooks) get: agentVars, agentPrefixes and
// the names in extra, never a BATON_ one.
func allowedEnv(environ, extra []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || strings.HasPrefix(name, "BATON_") {
			continue
		}
		if slices.Contains(agentVars, name) || slices.Contains(extra, name) || slices.ContainsFunc(agentPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			out = append(out, kv)
		}
	}
	return out
}
